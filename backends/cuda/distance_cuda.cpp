// Tuned CUDA exact Euclidean distance transform: the portable algorithm's two separable passes
// (algorithms/detail/distance_portable.hpp), reorganised for the GPU's parallelism.
//
// Pass 1 (columns): the portable pass walks whole columns, one thread each: 20000 threads for a
// 20000-wide image, too few to hide memory latency. Here every column is cut into segments of 64
// rows (PBA's bands): each (column, segment) thread finds its segment's first and last zero pixel,
// one thread per column carries them across the segments, and each (column, segment) thread then
// keeps its segment's zero rows as the bits of one 64-bit word and writes each row's nearest zero
// row from that word and the carries: one read of the input and one write of the rows.
// Pass 2 (rows): instead of the lower envelope (a sequential stack per row), each pixel searches
// outward from its own column: the site at column offset k costs at least k^2, so the search stops
// once k^2 exceeds the best found. That is O(distance) work per pixel, all of it in parallel. A
// block takes 1024 columns of a row and first puts the squared column distances of those columns
// and of 512 more on each side into shared memory, so the search loop is two shared-memory loads,
// two adds and two compares per offset. Rows where some pixel would search past those 512 columns
// (images with huge empty areas) are redone by the portable envelope pass, so the result is exact
// for every image.
#include "gigaseg/backends/cuda/distance_cuda.hpp"

#include "gigaseg/algorithms/detail/distance_portable.hpp"
#include "gigaseg/core/cuda/cuda_check.hpp"
#include "gigaseg/core/cuda/stream_scratch.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace gigaseg::tuned {
namespace {

constexpr int threads = 128;
constexpr int segment_rows = 64;  // one bit per row in the column pass
constexpr int max_search = 512;   // the row search's reach (shared-memory halo), in columns
constexpr int search_threads = 256, search_per_thread = 4;
constexpr int search_span = search_threads * search_per_thread;  // columns per block

// First (into `first`) and last (into `last`) zero row of each (column, segment); -1: none.
__global__ void segment_zeros_kernel(std::uint8_t const* __restrict__ in, long long in_pitch, long long width,
                                     long long height, long long segments, int* __restrict__ first,
                                     int* __restrict__ last) {
  long long const x = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (long long segment = blockIdx.y; segment < segments; segment += gridDim.y) {
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
}

// Per column, across the segments: `last` becomes the nearest zero row above each segment, `first`
// the nearest zero row below it (-1: none). Sets *any when the column has a zero pixel. Loads go
// eight segments at a time, so a column's walk is not one memory latency per segment.
__global__ void carry_kernel(long long width, long long segments, int* __restrict__ first, int* __restrict__ last,
                             int* __restrict__ any) {
  long long const x = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (x >= width) return;
  constexpr int batch = 8;
  int above = -1;
  for (long long s0 = 0; s0 < segments; s0 += batch) {
    int own[batch];
#pragma unroll
    for (int j = 0; j < batch; ++j) own[j] = s0 + j < segments ? last[(s0 + j) * width + x] : -1;
#pragma unroll
    for (int j = 0; j < batch; ++j) {
      if (s0 + j < segments) last[(s0 + j) * width + x] = above;
      if (own[j] >= 0) above = own[j];
    }
  }
  int below = -1;
  for (long long s1 = segments - 1; s1 >= 0; s1 -= batch) {
    int own[batch];
#pragma unroll
    for (int j = 0; j < batch; ++j) own[j] = s1 - j >= 0 ? first[(s1 - j) * width + x] : -1;
#pragma unroll
    for (int j = 0; j < batch; ++j) {
      if (s1 - j >= 0) first[(s1 - j) * width + x] = below;
      if (own[j] >= 0) below = own[j];
    }
  }
  if (above >= 0) *any = 1;
}

// The nearest zero row of each pixel in its column, the row above winning ties. The segment's zero
// rows are the bits of `zeros`; the nearest at or above row i is the highest set bit of bits 0..i,
// the nearest at or below it the lowest set bit of bits i..63, else the carries.
__global__ void column_rows_kernel(std::uint8_t const* __restrict__ in, long long in_pitch, int* __restrict__ rows,
                                   long long rows_pitch, long long width, long long height, long long segments,
                                   int const* __restrict__ below, int const* __restrict__ above) {
  long long const x = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (long long segment = blockIdx.y; segment < segments; segment += gridDim.y) {
    long long const y0 = segment * segment_rows;
    int const n = int(height - y0 < segment_rows ? height - y0 : segment_rows);
    unsigned long long zeros = 0;
#pragma unroll 8
    for (int i = 0; i < n; ++i)
      if (in[(y0 + i) * in_pitch + x] == 0) zeros |= 1ull << i;
    int const up0 = above[segment * width + x], down0 = below[segment * width + x];
#pragma unroll 8
    for (int i = 0; i < n; ++i) {
      long long const y = y0 + i;
      unsigned long long const upto = zeros & (~0ull >> (63 - i)), from = zeros & (~0ull << i);
      int const up = upto ? int(y0) + 63 - __clzll((long long)upto) : up0;
      int const down = from ? int(y0) + __ffsll((long long)from) - 1 : down0;
      rows[y * rows_pitch + x] = up < 0 ? down : down < 0 ? up : (y - up <= down - y ? up : down);
    }
  }
}

// Pass 2: the outward search over shared memory. g2[i] is the squared column distance of column
// x0 - max_search + i (`far`^2 for columns with no zero pixel and for columns outside the image, which
// thus never win). Ties go to the leftmost column (the left candidate at offset k is left of every
// candidate seen so far, the right one right of them), as in the portable envelope. I: the integer
// type of the squares, 32-bit where far^2 + (max_search + 1)^2 fits (the common case, cheaper), else
// 64-bit. The offsets go four at a time with one stopping test: the extra candidates cost more than
// the best and cannot change it.
template <class I>
__global__ void __launch_bounds__(search_threads)
    row_search_kernel(int const* __restrict__ rows, long long rows_pitch, long long width, long long height,
                      float* __restrict__ distance, long long distance_pitch, long long* __restrict__ squared,
                      long long squared_pitch, long long* __restrict__ nearest, long long nearest_pitch,
                      int* __restrict__ redo) {
  __shared__ I g2[search_span + 2 * max_search];
  long long const x0 = (long long)blockIdx.x * search_span;
  I const far = I(width + height), infinite = far * far;
  for (long long y = blockIdx.y; y < height; y += gridDim.y) {
    int const* const row = rows + y * rows_pitch;
    for (int i = threadIdx.x; i < search_span + 2 * max_search; i += search_threads) {
      long long const x = x0 - max_search + i;
      I v = infinite;
      if (x >= 0 && x < width) {
        int const r = __ldg(row + x);
        if (r >= 0) {
          I const g = I(r > y ? r - y : y - r);
          v = g * g;
        }
      }
      g2[i] = v;
    }
    __syncthreads();
    bool overflow = false;
#pragma unroll
    for (int p = 0; p < search_per_thread; ++p) {
      int const t = max_search + threadIdx.x + p * search_threads;
      long long const x = x0 + t - max_search;
      if (x >= width) break;
      I best = g2[t];
      int site = t, k = 1;
      for (; k <= max_search; k += 4) {
        if (I(k) * I(k) > best) break;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          I const kk = I(k + j) * I(k + j);
          I const left = kk + g2[t - k - j], right = kk + g2[t + k + j];
          if (left <= best) best = left, site = t - k - j;
          if (right < best) best = right, site = t + k + j;
        }
      }
      bool const complete = k <= max_search || I(max_search + 1) * I(max_search + 1) > best ||
                            (x - max_search - 1 < 0 && x + max_search + 1 >= width);
      if (!complete) {
        overflow = true;
        continue;
      }
      distance[y * distance_pitch + x] =
          best < I(1 << 24) ? __fsqrt_rn(float(best)) : float(sqrt(double(best)));  // the same float
      if (squared) squared[y * squared_pitch + x] = (long long)best;
      if (nearest) {
        long long const column = x0 + site - max_search;
        nearest[y * nearest_pitch + x] = (long long)__ldg(row + column) * width + column;
      }
    }
    if (overflow) {
      redo[y] = 1;
      redo[height + 1] = 1;  // some row needs the envelope pass
    }
    __syncthreads();
  }
}

}  // namespace

bool distance_transform(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                        ImageView<float, Kokkos::CudaSpace> const& distance,
                        ImageView<std::int64_t, Kokkos::CudaSpace> const& squared,
                        ImageView<index_t, Kokkos::CudaSpace> const& nearest) {
  long long const width = in.width(), height = in.height();
  cudaStream_t const stream = space.cuda_stream();
  long long const segments = (height + segment_rows - 1) / segment_rows;
  // Work memory from the stream-ordered pool (core/cuda/stream_scratch.hpp): no cudaMalloc,
  // cudaFree and device synchronisation per call. Rows pitched to 128 bytes.
  long long const rows_pitch = (width + 31) / 32 * 32;
  cuda::StreamScratch segment_memory(space, std::size_t(2 * segments * width) * sizeof(int));
  cuda::StreamScratch flag_memory(space, std::size_t(height + 2) * sizeof(int));
  cuda::StreamScratch row_memory(space, std::size_t(rows_pitch * height) * sizeof(std::int32_t));
  int* const first = segment_memory.as<int>();
  int* const last = first + segments * width;
  int* const flag_data = flag_memory.as<int>();  // redo per row, then `any`, then "some row to redo"
  GIGASEG_CUDA_CHECK(cudaMemsetAsync(flag_data, 0, std::size_t(height + 2) * sizeof(int), stream));
  Kokkos::View<int*, Kokkos::CudaSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> const flags(flag_data, height + 1);
  auto const rows = ImageView<std::int32_t, Kokkos::CudaSpace>::wrap(row_memory.as<std::int32_t>(), width, height,
                                                                     rows_pitch * index_t(sizeof(std::int32_t)));
  unsigned const column_blocks = unsigned((width + threads - 1) / threads);
  unsigned const segment_blocks = unsigned(std::min<long long>(segments, 65535));  // the grid's y limit
  segment_zeros_kernel<<<dim3{column_blocks, segment_blocks}, threads, 0, stream>>>(in.data(), in.pitch_bytes(), width,
                                                                                    height, segments, first, last);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  carry_kernel<<<column_blocks, threads, 0, stream>>>(width, segments, first, last, flag_data + height);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  column_rows_kernel<<<dim3{column_blocks, segment_blocks}, threads, 0, stream>>>(
      in.data(), in.pitch_bytes(), rows.data(), rows_pitch, width, height, segments, first, last);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  int any = 0;
  GIGASEG_CUDA_CHECK(cudaMemcpyAsync(&any, flag_data + height, sizeof any, cudaMemcpyDeviceToHost, stream));
  GIGASEG_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (!any) return false;
  unsigned const row_blocks = unsigned(std::min<long long>(height, 65535));
  long long const far = width + height, reach = max_search + 1;
  auto const search = far * far + reach * reach < (1LL << 31) ? row_search_kernel<int> : row_search_kernel<long long>;
  unsigned const span_blocks = unsigned((width + search_span - 1) / search_span);
  search<<<dim3{span_blocks, row_blocks}, search_threads, 0, stream>>>(
      rows.data(), rows_pitch, width, height, distance.data(), distance.pitch_bytes() / (long long)sizeof(float),
      squared.empty() ? nullptr : reinterpret_cast<long long*>(squared.data()),
      squared.empty() ? 0 : squared.pitch_bytes() / (long long)sizeof(std::int64_t),
      nearest.empty() ? nullptr : reinterpret_cast<long long*>(nearest.data()),
      nearest.empty() ? 0 : nearest.pitch_bytes() / (long long)sizeof(index_t), flag_data);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  // Rows some pixel of which lies more than max_search columns from its site: the envelope pass.
  int redo = 0;
  GIGASEG_CUDA_CHECK(cudaMemcpyAsync(&redo, flag_data + height + 1, sizeof redo, cudaMemcpyDeviceToHost, stream));
  GIGASEG_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (redo)
    detail::envelope_rows(space, ImageView<std::int32_t const, Kokkos::CudaSpace>(rows), distance, squared, nearest,
                          Kokkos::View<int const*, Kokkos::CudaSpace>(flags));
  return true;
}

}  // namespace gigaseg::tuned
