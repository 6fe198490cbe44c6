// Tuned 256-bin histogram for CUDA.
//
// Design (one sub-histogram per warp): every warp owns a 256-bin sub-histogram in
// shared memory and processes whole rows, its 32 lanes striding along the row with 16-byte loads
// (rows start on 128-byte boundaries, so each warp access is four full 128-byte transactions).
// Four loads are issued before any is counted, to keep enough bytes in flight to approach the
// memory bandwidth. Within a lane, runs of equal bytes are merged before they reach shared
// memory: a tissue scan's white background would otherwise send 32 lanes to one bin, the worst
// case for shared atomics. At the end the block sums its warps' sub-histograms and issues one
// global atomic per non-empty bin.
#include "gigaseg/backends/cuda/histogram_cuda.hpp"

#include "gigaseg/core/cuda/cuda_check.hpp"

#include <cuda_runtime.h>

namespace gigaseg::tuned {
namespace {

constexpr int warps_per_block = 16;  // 512 threads, 16 KiB of sub-histograms: 4 blocks per SM
constexpr int bins = 256;
constexpr int loads_in_flight = 4;

// Counts the 16 bytes of `q` into `hist`, merging runs of equal bytes.
__device__ __forceinline__ void count16(unsigned* hist, uint4 q) {
  unsigned const words[4] = {q.x, q.y, q.z, q.w};
  unsigned current = words[0] & 0xffu, run = 0;
#pragma unroll
  for (int w = 0; w < 4; ++w)
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      unsigned const v = (words[w] >> (8 * b)) & 0xffu;
      if (v != current) {
        atomicAdd(&hist[current], run);
        current = v;
        run = 0;
      }
      ++run;
    }
  atomicAdd(&hist[current], run);
}

__global__ void __launch_bounds__(warps_per_block * 32)
    histogram_u8_kernel(unsigned char const* __restrict__ first_row, long long pitch, long long width, long long height,
                        unsigned long long* __restrict__ counts) {
  __shared__ unsigned sub[warps_per_block][bins];
  for (int i = threadIdx.x; i < warps_per_block * bins; i += blockDim.x) (&sub[0][0])[i] = 0;
  __syncthreads();

  int const lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned* hist = sub[warp];
  long long const vectors = width >> 4;  // full 16-byte groups per row
  int const tail = int(width & 15);
  long long const warps_total = (long long)gridDim.x * warps_per_block;
  for (long long y = (long long)blockIdx.x * warps_per_block + warp; y < height; y += warps_total) {
    unsigned char const* row = first_row + y * pitch;
    uint4 const* vec = reinterpret_cast<uint4 const*>(row);
    long long v = lane;
    for (; v + 32 * (loads_in_flight - 1) < vectors; v += 32 * loads_in_flight) {
      uint4 q[loads_in_flight];
#pragma unroll
      for (int k = 0; k < loads_in_flight; ++k) q[k] = __ldcs(vec + v + 32 * k);  // streamed, read once
#pragma unroll
      for (int k = 0; k < loads_in_flight; ++k) count16(hist, q[k]);
    }
    for (; v < vectors; v += 32) count16(hist, __ldcs(vec + v));
    if (lane < tail) atomicAdd(&hist[row[vectors * 16 + lane]], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    unsigned long long sum = 0;
#pragma unroll
    for (int w = 0; w < warps_per_block; ++w) sum += sub[w][b];
    if (sum != 0) atomicAdd(counts + b, sum);
  }
}

}  // namespace

bool histogram_u8(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& image,
                  Counts<Kokkos::CudaSpace> const& counts) {
  auto const address = reinterpret_cast<std::uintptr_t>(image.data());
  if (address % 16 != 0 || image.pitch_bytes() % 16 != 0) return false;
  cudaStream_t const stream = space.cuda_stream();
  GIGASEG_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, 256 * sizeof(std::uint64_t), stream));
  if (image.empty()) return true;
  int device = 0, multiprocessors = 0;
  GIGASEG_CUDA_CHECK(cudaGetDevice(&device));
  GIGASEG_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  // Four resident blocks per SM; fewer when the image has fewer rows than warps.
  long long const warps_needed = image.height();
  long long blocks = std::min<long long>(4LL * multiprocessors, (warps_needed + warps_per_block - 1) / warps_per_block);
  histogram_u8_kernel<<<unsigned(std::max<long long>(blocks, 1)), warps_per_block * 32, 0, stream>>>(
      image.data(), image.pitch_bytes(), image.width(), image.height(),
      reinterpret_cast<unsigned long long*>(counts.data()));
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  return true;
}

}  // namespace gigaseg::tuned
