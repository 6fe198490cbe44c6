// Tuned K-means assignment pass for CUDA.
//
// Why a kernel of its own: the portable pass sums each cluster's members with atomics on the
// team's scratch memory. On a stain scan most pixels of a warp fall in one or two clusters, so
// those atomics hit the same few shared-memory words from 32 lanes at once and serialise (the
// first version, one atomic per pixel and feature, took 1.33 ms a pass at 2048 x 2048, over
// 100x its memory floor).
//
// Design: each warp owns a private copy of the sums in shared memory. A warp takes a row segment of
// 32 pixels per step; its lanes compute their nearest centres (for K <= 8 the centres sit in
// registers; else in shared memory, broadcast reads). For K <= 8 each thread then sums its pixels
// per label in registers (see the kernel) and the warp reduces them every 256 rows; for larger K
// the warp aggregates by label at every step: per
// distinct label present in the warp, one ballot and two warp reductions (__reduce_add_sync: R and
// G packed into 16-bit halves, which cannot overflow for 32 lanes of 8-bit values, then B) and
// four plain adds by one lane to its warp's sums. A coherent image has a few labels a warp, so a
// step costs a few instructions instead of 160 contended atomics. At the end the block adds its
// warps' sums and merges them into global memory once. (Measured on the H200, 2048 x 2048, K = 8:
// shared 64-bit atomics per group instead of private sums took 0.10 ms a pass.) The final
// pass instead writes the rank of each pixel's cluster and sums the squared distances in a
// register per thread, reduced once per block.
#include "gigaseg/backends/cuda/kmeans_cuda.hpp"

#include "gigaseg/core/cuda/cuda_check.hpp"

#include <cuda_runtime.h>

#include <algorithm>

namespace gigaseg::tuned {
namespace {

constexpr int block_threads = 256;
constexpr int warps_per_block = block_threads / 32;
constexpr unsigned full_mask = 0xffffffffu;

// Nearest centre with the centres in registers (MaxK <= 8: the common case, K = 8 in the measured
// figure) or read from shared memory (larger K). The same order of scores as detail::nearest, so
// the same assignment bit for bit.
// The score |c|^2 - 512 f.c of detail::nearest is compared here in 32-bit pieces: with
// |c|^2 = 512 high + low (low < 512), score = 512 (high - f.c) + low, so the scores order as the
// pairs (high - f.c, low) do, lexicographically. high < 3 * 65280^2 / 512 < 2^25 and
// f.c < 2^26, so both pieces fit an int: the same order as the 64-bit scores (the same labels, ties
// to the lower index), in about half the instructions.
template <int MaxK>
struct Centres {
  int value[3 * MaxK];
  int high[MaxK], low[MaxK];
  __device__ void load(int const* centres, unsigned long long const* norms, int k) {
#pragma unroll
    for (int c = 0; c < MaxK; ++c) {
      value[3 * c] = c < k ? centres[3 * c] : 0;
      value[3 * c + 1] = c < k ? centres[3 * c + 1] : 0;
      value[3 * c + 2] = c < k ? centres[3 * c + 2] : 0;
      high[c] = c < k ? int(norms[c] >> 9) : 0;
      low[c] = c < k ? int(norms[c] & 511u) : 0;
    }
  }
  __device__ int nearest(int const f[3], int k, long long& distance) const {
    int label = 0, best_high = 0, best_low = 0;
#pragma unroll
    for (int c = 0; c < MaxK; ++c) {
      if (c >= k) break;
      int const dot = f[0] * value[3 * c] + f[1] * value[3 * c + 1] + f[2] * value[3 * c + 2];
      int const score_high = high[c] - dot;
      if (c == 0 || score_high < best_high || (score_high == best_high && low[c] < best_low))
        best_high = score_high, best_low = low[c], label = c;
    }
    distance = 65536LL * (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) + 512LL * best_high + best_low;
    return label;
  }
};

template <>
struct Centres<0> {  // K > 8: the centres stay in shared memory
  __device__ void load(int const*, unsigned long long const*, int) {}
  __device__ int nearest(int const*, int, long long&) const { return 0; }
};

template <int MaxK>
__global__ void __launch_bounds__(block_threads) kmeans_pass_kernel(detail::KMeansPassArgs<Kokkos::CudaSpace> args) {
  detail::KMeansState const layout{args.k};
  if (!args.final_pass && args.state[layout.converged()] != 0) return;  // uniform for the grid
  int const k = args.k;
  int const accumulated = layout.accumulated();
  // Shared: the k norms, then one private copy of the 4k+1 sums per warp (so a warp adds to its
  // own sums with plain stores: no atomics, no contention between warps), then centres and ranks.
  extern __shared__ unsigned long long shared_words[];
  unsigned long long* const norms = shared_words;
  unsigned long long* const warp_sums = norms + k;
  int* const centres = reinterpret_cast<int*>(warp_sums + warps_per_block * accumulated);
  int const* const rank = centres + 3 * k;
  for (int i = threadIdx.x; i < warps_per_block * accumulated; i += blockDim.x) warp_sums[i] = 0;
  for (int i = threadIdx.x; i < k; i += blockDim.x) norms[i] = args.state[layout.norms() + i];
  for (int i = threadIdx.x; i < 4 * k; i += blockDim.x) centres[i] = args.centres[i];
  __syncthreads();
  Centres<MaxK> registers;
  if (MaxK > 0) registers.load(centres, norms, k);

  int const lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned long long* const sums = warp_sums + warp * accumulated;
  long long const width = args.image.width(), height = args.image.height();
  unsigned long long distance_sum = 0;
  // Block (bx, by) takes columns [256 bx, 256 bx + 256) of rows by, by + gridDim.y, ... (no
  // division per pixel: a 64-bit division costs as much as the distances to eight centres).
  long long const x = (long long)blockIdx.x * block_threads + threadIdx.x;
  bool const valid = x < width;
  unsigned long long packed[MaxK > 0 ? MaxK : 1] = {};
  int packed_rows = 0;  // the same for every lane of the block
  auto flush_packed = [&]() {
    if constexpr (MaxK > 0) {
#pragma unroll
      for (int c = 0; c < MaxK; ++c) {
        if (c >= k) break;
        unsigned const red = __reduce_add_sync(full_mask, unsigned(packed[c] & 0xffffu));
        unsigned const green = __reduce_add_sync(full_mask, unsigned((packed[c] >> 16) & 0xffffu));
        unsigned const blue = __reduce_add_sync(full_mask, unsigned((packed[c] >> 32) & 0xffffu));
        unsigned const count = __reduce_add_sync(full_mask, unsigned(packed[c] >> 48));
        if (lane == 0) {
          sums[4 * c] += red;
          sums[4 * c + 1] += green;
          sums[4 * c + 2] += blue;
          sums[4 * c + 3] += count;
        }
        packed[c] = 0;
      }
    }
  };
  // Four rows in flight: their pixels are loaded before any is used, so a thread waits for memory
  // once per four rows (one row at a time left the pass latency-bound: ~21 dependent loads a thread).
  constexpr int rows_in_flight = 4;
  long long const row_step = gridDim.y;
  for (long long y0 = blockIdx.y; y0 < height; y0 += row_step * rows_in_flight) {
    Rgb8 pixels[rows_in_flight];
#pragma unroll
    for (int j = 0; j < rows_in_flight; ++j) {
      long long const y = y0 + j * row_step;
      pixels[j] = valid && y < height ? args.image.row(y)[x] : Rgb8{0, 0, 0};
    }
#pragma unroll
    for (int j = 0; j < rows_in_flight; ++j) {
      long long const y = y0 + j * row_step;
      if (y >= height) break;  // the same for the whole block
      int f[3] = {0, 0, 0};
      int label = -1;
      long long distance = 0;
      if (valid) {
        args.features(pixels[j], f);
        label = MaxK > 0 ? registers.nearest(f, k, distance) : detail::nearest(f, centres, norms, k, distance);
      }
      if (args.final_pass) {
        if (valid) {
          args.labels.row(y)[x] = std::uint8_t(rank[label]);
          distance_sum += (unsigned long long)distance;
        }
        continue;
      }
      if constexpr (MaxK > 0) {
        // K <= 8: each thread sums its own pixels per label in registers, R, G, B and the count
        // packed into 16-bit fields of one 64-bit word (one add a pixel, no warp traffic), and the
        // warp reduces them every 256 rows (256 x 255 < 2^16) and at the end.
        if (valid) {
          unsigned long long const packed_pixel = (unsigned long long)f[0] | ((unsigned long long)f[1] << 16) |
                                                  ((unsigned long long)f[2] << 32) | (1ull << 48);
#pragma unroll
          for (int c = 0; c < MaxK; ++c) packed[c] += label == c ? packed_pixel : 0ull;
        }
        if (++packed_rows == 256) {
          flush_packed();
          packed_rows = 0;
        }
        continue;
      }
      // Warp aggregation by label; `pending` is warp-uniform, so every lane runs every round. Only
      // the leader writes, to its warp's private sums.
      unsigned pending = __ballot_sync(full_mask, valid);
      while (pending != 0) {
        int const leader = __ffs(pending) - 1;
        int const current = __shfl_sync(full_mask, label, leader);
        bool const member = valid && label == current;
        unsigned const group = __ballot_sync(full_mask, member);
        unsigned const red_green = __reduce_add_sync(full_mask, member ? unsigned(f[0]) | (unsigned(f[1]) << 16) : 0u);
        unsigned const blue = __reduce_add_sync(full_mask, member ? unsigned(f[2]) : 0u);
        if (lane == leader) {
          sums[4 * current] += red_green & 0xffffu;
          sums[4 * current + 1] += red_green >> 16;
          sums[4 * current + 2] += blue;
          sums[4 * current + 3] += unsigned(__popc(group));
        }
        pending &= ~group;
      }
    }
  }
  if (!args.final_pass) flush_packed();
  if (args.final_pass) {
    for (int offset = 16; offset > 0; offset >>= 1) distance_sum += __shfl_down_sync(full_mask, distance_sum, offset);
    if (lane == 0) sums[4 * k] = distance_sum;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < accumulated; i += blockDim.x) {
    unsigned long long total = 0;
#pragma unroll
    for (int w = 0; w < warps_per_block; ++w) total += warp_sums[w * accumulated + i];
    if (total != 0) atomicAdd(reinterpret_cast<unsigned long long*>(args.state + layout.sums() + i), total);
  }
}

// The launch shape of one kernel instance on the current device, computed once per process and
// device (the occupancy query costs more than a small image's pass).
struct Launch {
  int device = -1, multiprocessors = 0, blocks_per_sm = 0;
  std::size_t shared_bytes = 0;
};

template <int MaxK>
Launch const& launch_shape(std::size_t shared_bytes) {
  thread_local Launch cached;
  int device = 0;
  GIGASEG_CUDA_CHECK(cudaGetDevice(&device));
  if (cached.device != device || cached.shared_bytes != shared_bytes) {
    cached.device = device;
    cached.shared_bytes = shared_bytes;
    GIGASEG_CUDA_CHECK(cudaDeviceGetAttribute(&cached.multiprocessors, cudaDevAttrMultiProcessorCount, device));
    GIGASEG_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cached.blocks_per_sm, kmeans_pass_kernel<MaxK>,
                                                                     block_threads, shared_bytes));
  }
  return cached;
}

template <int MaxK>
void launch(Kokkos::Cuda const& space, detail::KMeansPassArgs<Kokkos::CudaSpace> const& args) {
  detail::KMeansState const layout{args.k};
  std::size_t const shared_bytes =
      sizeof(unsigned long long) * std::size_t(args.k + warps_per_block * layout.accumulated()) +
      sizeof(int) * std::size_t(4 * args.k);
  Launch const& shape = launch_shape<MaxK>(shared_bytes);
  // As many blocks as fit at once: each merges its sums once, so fewer, longer blocks mean fewer
  // global atomics; the row-stride loop covers any image.
  long long const columns = (args.image.width() + block_threads - 1) / block_threads;
  long long const resident = (long long)std::max(shape.blocks_per_sm, 1) * shape.multiprocessors;
  long long const rows = std::min<long long>(args.image.height(), std::max<long long>(1, resident / columns));
  GIGASEG_REQUIRE(columns <= 0x7fffffffLL, ErrorKind::input, "kmeans", "image too wide");
  kmeans_pass_kernel<MaxK><<<dim3(unsigned(columns), unsigned(std::min<long long>(rows, 65535))), block_threads,
                             shared_bytes, space.cuda_stream()>>>(args);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void kmeans_pass(Kokkos::Cuda const& space, detail::KMeansPassArgs<Kokkos::CudaSpace> const& args) {
  if (args.image.empty()) return;
  if (args.k <= 8) {
    launch<8>(space, args);
  } else {
    launch<0>(space, args);
  }
}

}  // namespace gigaseg::tuned
