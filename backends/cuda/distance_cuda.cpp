// Tuned CUDA exact Euclidean distance transform: the portable algorithm's two separable passes
// (algorithms/detail/distance_portable.hpp), reorganised for the GPU's parallelism.
//
// Pass 1 (columns): the portable pass walks whole columns, one thread each: 20000 threads for a
// 20000-wide image, too few to hide memory latency. Here every column is cut into segments of
// `segment_rows` rows (PBA's bands): each (column, segment) thread finds its segment's first and
// last zero pixel, one thread per column carries them across the segments, and each (column,
// segment) thread then writes its rows' nearest zero row with those carries.
// Pass 2 (rows): instead of the lower envelope (a sequential stack per row), each pixel searches
// outward from its own column: the site at column offset k costs at least k^2, so the search stops
// once k^2 exceeds the best found. That is O(distance) work per pixel, all of it in parallel and
// from cached neighbouring loads. Rows where some pixel would search past `max_search` columns
// (images with huge empty areas) are redone by the portable envelope pass, so the result is exact
// for every image.
#include "backends/cuda/distance_cuda.hpp"

#include "algorithms/distance.hpp"
#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/stream_scratch.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace gigaseg::tuned {
namespace {

constexpr int threads = 128;
constexpr int max_search = 512;

// First (into `first`) and last (into `last`) zero row of each (column, segment); -1: none.
__global__ void segment_zeros_kernel(std::uint8_t const* __restrict__ in, long long in_pitch, long long width,
                                     long long height, long long segment_rows, int* __restrict__ first,
                                     int* __restrict__ last) {
  long long const x = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (x >= width) return;
  long long const segment = blockIdx.y;
  long long const y0 = segment * segment_rows, y1 = min(height, y0 + segment_rows);
  int lo = -1, hi = -1;
#pragma unroll 8
  for (long long y = y0; y < y1; ++y) {
    if (in[y * in_pitch + x] == 0) {
      if (lo < 0) lo = int(y);
      hi = int(y);
    }
  }
  first[segment * width + x] = lo;
  last[segment * width + x] = hi;
}

// Per column, across the segments: `last` becomes the nearest zero row above each segment, `first`
// the nearest zero row below it (-1: none). Sets *any when the column has a zero pixel.
__global__ void carry_kernel(long long width, long long segments, int* first, int* last, int* any) {
  long long const x = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (x >= width) return;
  int above = -1;
  for (long long s = 0; s < segments; ++s) {
    int const own = last[s * width + x];
    last[s * width + x] = above;
    if (own >= 0) above = own;
  }
  int below = -1;
  for (long long s = segments - 1; s >= 0; --s) {
    int const own = first[s * width + x];
    first[s * width + x] = below;
    if (own >= 0) below = own;
  }
  if (above >= 0) *any = 1;
}

// The nearest zero row of each pixel in its column, the row above winning ties.
// __restrict__: the input bytes cannot alias the rows, so each walk's loads need not wait for the
// previous row's store.
__global__ void column_rows_kernel(std::uint8_t const* __restrict__ in, long long in_pitch, int* __restrict__ rows,
                                   long long rows_pitch, long long width, long long height, long long segment_rows,
                                   int const* __restrict__ below, int const* __restrict__ above) {
  long long const x = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (x >= width) return;
  long long const segment = blockIdx.y;
  long long const y0 = segment * segment_rows, y1 = min(height, y0 + segment_rows);
  int down = below[segment * width + x];
#pragma unroll 8
  for (long long y = y1 - 1; y >= y0; --y) {
    if (in[y * in_pitch + x] == 0) down = int(y);
    rows[y * rows_pitch + x] = down;
  }
  int up = above[segment * width + x];
#pragma unroll 8
  for (long long y = y0; y < y1; ++y) {
    int const d = rows[y * rows_pitch + x];
    if (d == int(y)) up = int(y);
    rows[y * rows_pitch + x] = up < 0 ? d : d < 0 ? up : (y - up <= d - y ? up : d);
  }
}

// Pass 2: the outward search. Ties go to the leftmost column (the left candidate at offset k is
// left of every candidate seen so far, the right one right of them), as in the portable envelope.
// I: the integer type of the squares, 32-bit where (width + height)^2 fits (the common case,
// cheaper), else 64-bit.
template <class I>
__global__ void row_search_kernel(int const* __restrict__ rows, long long rows_pitch, long long width, long long height,
                                  float* __restrict__ distance, long long distance_pitch, long long* __restrict__ squared,
                                  long long squared_pitch, long long* __restrict__ nearest, long long nearest_pitch,
                                  int* __restrict__ redo) {
  long long const x = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (x >= width) return;
  I const far = I(width + height);
  for (long long y = blockIdx.y; y < height; y += gridDim.y) {
    int const* const row = rows + y * rows_pitch;
    I const yy = I(y);
    auto g2 = [&](long long i) {
      I const r = I(__ldg(row + i));
      I const g = r < 0 ? far : (r > yy ? r - yy : yy - r);
      return g * g;
    };
    I best = g2(x);
    long long site = x;
    bool complete = false;
    for (int k = 1; k <= max_search; ++k) {
      I const kk = I(k) * I(k);
      bool const left = x - k >= 0, right = x + k < width;
      if (kk > best || (!left && !right)) {
        complete = true;
        break;
      }
      if (left) {
        I const v = kk + g2(x - k);
        if (v <= best) best = v, site = x - k;
      }
      if (right) {
        I const v = kk + g2(x + k);
        if (v < best) best = v, site = x + k;
      }
    }
    if (!complete) {
      complete = I(max_search + 1) * I(max_search + 1) > best || (x - max_search - 1 < 0 && x + max_search + 1 >= width);
      if (!complete) {
        redo[y] = 1;
        continue;
      }
    }
    distance[y * distance_pitch + x] = float(sqrt(double(best)));
    if (squared) squared[y * squared_pitch + x] = (long long)best;
    if (nearest) nearest[y * nearest_pitch + x] = (long long)row[site] * width + site;
  }
}

}  // namespace

bool distance_transform(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                        ImageView<float, Kokkos::CudaSpace> const& distance,
                        ImageView<std::int64_t, Kokkos::CudaSpace> const& squared,
                        ImageView<index_t, Kokkos::CudaSpace> const& nearest) {
  long long const width = in.width(), height = in.height();
  cudaStream_t const stream = space.cuda_stream();
  // Segments: at least 64 rows, at most 65535 of them (the grid's y limit).
  long long const segment_rows = std::max<long long>(64, (height + 65534) / 65535);
  long long const segments = (height + segment_rows - 1) / segment_rows;
  // Work memory from the stream-ordered pool (backends/cuda/stream_scratch.hpp): no cudaMalloc,
  // cudaFree and device synchronisation per call. Rows pitched to 128 bytes.
  long long const rows_pitch = (width + 31) / 32 * 32;
  cuda::StreamScratch segment_memory(space, std::size_t(2 * segments * width) * sizeof(int));
  cuda::StreamScratch flag_memory(space, std::size_t(height + 1) * sizeof(int));
  cuda::StreamScratch row_memory(space, std::size_t(rows_pitch * height) * sizeof(std::int32_t));
  int* const first = segment_memory.as<int>();
  int* const last = first + segments * width;
  int* const flag_data = flag_memory.as<int>();  // redo per row, then `any`
  GIGASEG_CUDA_CHECK(cudaMemsetAsync(flag_data, 0, std::size_t(height + 1) * sizeof(int), stream));
  Kokkos::View<int*, Kokkos::CudaSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> const flags(flag_data, height + 1);
  auto const rows = ImageView<std::int32_t, Kokkos::CudaSpace>::wrap(row_memory.as<std::int32_t>(), width, height,
                                                                     rows_pitch * index_t(sizeof(std::int32_t)));
  unsigned const column_blocks = unsigned((width + threads - 1) / threads);
  segment_zeros_kernel<<<dim3{column_blocks, unsigned(segments)}, threads, 0, stream>>>(
      in.data(), in.pitch_bytes(), width, height, segment_rows, first, last);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  carry_kernel<<<column_blocks, threads, 0, stream>>>(width, segments, first, last, flag_data + height);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  column_rows_kernel<<<dim3{column_blocks, unsigned(segments)}, threads, 0, stream>>>(
      in.data(), in.pitch_bytes(), rows.data(), rows_pitch, width, height, segment_rows, first, last);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  int any = 0;
  GIGASEG_CUDA_CHECK(cudaMemcpyAsync(&any, flag_data + height, sizeof any, cudaMemcpyDeviceToHost, stream));
  GIGASEG_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (!any) return false;
  unsigned const row_blocks = unsigned(std::min<long long>(height, 65535));
  long long const far = width + height, reach = max_search + 1;
  auto const search = far * far + reach * reach < (1LL << 31) ? row_search_kernel<int> : row_search_kernel<long long>;
  search<<<dim3{column_blocks, row_blocks}, threads, 0, stream>>>(
      rows.data(), rows_pitch, width, height, distance.data(), distance.pitch_bytes() / (long long)sizeof(float),
      squared.empty() ? nullptr : reinterpret_cast<long long*>(squared.data()),
      squared.empty() ? 0 : squared.pitch_bytes() / (long long)sizeof(std::int64_t),
      nearest.empty() ? nullptr : reinterpret_cast<long long*>(nearest.data()),
      nearest.empty() ? 0 : nearest.pitch_bytes() / (long long)sizeof(index_t), flag_data);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  // Rows some pixel of which lies more than max_search columns from its site: the envelope pass.
  int redo = 0;
  Kokkos::parallel_reduce(
      "gigaseg::distance::redo_rows", Kokkos::RangePolicy<Kokkos::Cuda>(space, 0, height),
      KOKKOS_LAMBDA(long long y, int& n) { n += flags(y); }, redo);
  if (redo > 0)
    detail::envelope_rows(space, ImageView<std::int32_t const, Kokkos::CudaSpace>(rows), distance, squared, nearest,
                          Kokkos::View<int const*, Kokkos::CudaSpace>(flags));
  return true;
}

}  // namespace gigaseg::tuned
