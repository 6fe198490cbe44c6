// Tuned CUDA kernels for 8-bit neighbourhood filters: medians and small-rectangle morphology.
//
// Design: a thread owns four horizontally adjacent output pixels and walks down a strip of rows,
// keeping the last K input rows of its window in registers (no shared memory: the sliding window
// reuses each loaded row K times, and the neighbouring words come from L1). Each row is loaded as
// three 32-bit words (bytes x-4 .. x+7) and repacked into 16-bit lanes: pair word k holds bytes
// k and k+2, so one packed min/max (min.u16x2, native on sm_90) works on two output pixels,
// (0, 2) and (1, 3). For the median, every pair word's column of K rows is sorted once and
// shared by the K output pairs that use it; a generated network (algorithms/detail/
// median_networks.hpp) then selects each median from its K sorted columns. Threads at the left
// and right image edges build their bytes with clamped (median: replicate) or neutral
// (morphology: ignored pixels) reads; every other thread runs without border checks.
#include "backends/cuda/filters_cuda.hpp"

#include "algorithms/detail/median_networks.hpp"
#include "backends/cuda/cuda_check.hpp"
#include "core/error.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace gigaseg::tuned {
namespace {

constexpr int block_x = 64;      // threads along x: 256 pixels
constexpr int block_y = 4;       // strips per block
constexpr int strip_rows = 16;   // output rows per thread

struct PackedMinMax {
  static __device__ __forceinline__ unsigned min(unsigned a, unsigned b) { return __vminu2(a, b); }
  static __device__ __forceinline__ unsigned max(unsigned a, unsigned b) { return __vmaxu2(a, b); }
  static __device__ __forceinline__ void sort(unsigned& a, unsigned& b) {
    unsigned const lo = __vminu2(a, b);
    b = __vmaxu2(a, b);
    a = lo;
  }
};

// The pair words of one input row for the thread's quad q: pair[k + R] = byte (k) | byte (k + 2) << 16
// relative to the quad's first pixel, k = -R .. 3 + R - 2. Bytes outside the image are `outside`
// (replicate when outside < 0, else that constant).
template <int R>
__device__ __forceinline__ void load_pairs(unsigned char const* __restrict__ row, long long q, long long width,
                                           bool edge, int outside, unsigned (&pair)[2 * R + 2]) {
  unsigned w[3];
  if (!edge) {
    unsigned const* words = reinterpret_cast<unsigned const*>(row) + q;
    w[0] = __ldg(words - 1), w[1] = __ldg(words), w[2] = __ldg(words + 1);
  } else {
    unsigned char b[12];
#pragma unroll
    for (int j = 0; j < 12; ++j) {
      long long x = 4 * q + j - 4;
      if (x < 0 || x >= width) {
        if (outside >= 0) {
          b[j] = (unsigned char)outside;
          continue;
        }
        x = x < 0 ? 0 : width - 1;
      }
      b[j] = row[x];
    }
#pragma unroll
    for (int i = 0; i < 3; ++i) w[i] = b[4 * i] | b[4 * i + 1] << 8 | b[4 * i + 2] << 16 | unsigned(b[4 * i + 3]) << 24;
  }
#pragma unroll
  for (int k = -R; k <= R + 1; ++k) {
    int const lo = k + 4, hi = k + 6;  // byte positions in w[0..2]
    unsigned const a = w[lo / 4], c = w[hi / 4];
    // __byte_perm(a, c, s): selector nibble n picks byte n of {c:a}.
    unsigned const selector = unsigned(lo % 4) | unsigned(4 + hi % 4) << 8;
    pair[k + R] = __byte_perm(a, c, selector) & 0x00ff00ffu;
  }
}

__device__ __forceinline__ void store_quad(unsigned char* __restrict__ row, long long q, long long width, unsigned even,
                                           unsigned odd) {
  // even = pixels 0 and 2 (low halves), odd = pixels 1 and 3.
  unsigned const word = __byte_perm(even, odd, 0x6240);
  if (4 * q + 4 <= width) {
    reinterpret_cast<unsigned*>(row)[q] = word;
  } else {
    for (int j = 0; 4 * q + j < width; ++j) row[4 * q + j] = (unsigned char)(word >> (8 * j));
  }
}

template <int K, class Op>
__global__ void __launch_bounds__(block_x * block_y)
    window_kernel(unsigned char const* __restrict__ in, long long in_pitch, unsigned char* __restrict__ out,
                  long long out_pitch, long long width, long long height, int outside, Op op) {
  constexpr int R = K / 2, P = 2 * R + 2;
  long long const q = (long long)blockIdx.x * block_x + threadIdx.x;
  if (4 * q >= width) return;
  long long const y0 = ((long long)blockIdx.y * block_y + threadIdx.y) * strip_rows;
  if (y0 >= height) return;
  bool const edge = q == 0 || 4 * q + 8 > width;
  unsigned window[K][P];
  auto row_at = [&](long long y) -> unsigned char const* {
    if (y < 0 || y >= height) {
      if (outside >= 0) return nullptr;
      y = y < 0 ? 0 : height - 1;
    }
    return in + y * in_pitch;
  };
  auto load = [&](long long y, unsigned (&pair)[P]) {
    unsigned char const* row = row_at(y);
    if (row) {
      load_pairs<R>(row, q, width, edge, outside, pair);
    } else {
      unsigned const fill = unsigned(outside) * 0x00010001u;
#pragma unroll
      for (int k = 0; k < P; ++k) pair[k] = fill;
    }
  };
#pragma unroll
  for (int i = 1; i < K; ++i) load(y0 - R + i - 1, window[i]);
  long long const y1 = y0 + strip_rows < height ? y0 + strip_rows : height;
  for (long long y = y0; y < y1; ++y) {
#pragma unroll
    for (int i = 0; i + 1 < K; ++i)
#pragma unroll
      for (int k = 0; k < P; ++k) window[i][k] = window[i + 1][k];
    load(y + R, window[K - 1]);
    unsigned even, odd;
    op.template apply<K>(window, even, odd);
    store_quad(out + y * out_pitch, q, width, even, odd);
  }
}

struct MedianOp {
  template <int K>
  __device__ __forceinline__ void apply(unsigned const (&window)[K][K + 1], unsigned& even, unsigned& odd) const {
    constexpr int P = K + 1;
    unsigned sorted[P][K];
#pragma unroll
    for (int k = 0; k < P; ++k) {
#pragma unroll
      for (int i = 0; i < K; ++i) sorted[k][i] = window[i][k];
      if constexpr (K == 3)
        detail::network::sort3<PackedMinMax>(sorted[k]);
      else
        detail::network::sort5<PackedMinMax>(sorted[k]);
    }
    unsigned v[K * K];
#pragma unroll
    for (int half = 0; half < 2; ++half) {
#pragma unroll
      for (int c = 0; c < K; ++c)
#pragma unroll
        for (int i = 0; i < K; ++i) v[c * K + i] = sorted[c + half][i];
      unsigned const m = K == 3 ? detail::network::median9_of_sorted_columns<PackedMinMax>(v)
                                : detail::network::median25_of_sorted_columns<PackedMinMax>(v);
      (half ? odd : even) = m;
    }
  }
};

struct RectMinMaxOp {
  bool minimum;
  template <int K>
  __device__ __forceinline__ void apply(unsigned const (&window)[K][K + 1], unsigned& even, unsigned& odd) const {
    constexpr int P = K + 1;
    unsigned column[P];
#pragma unroll
    for (int k = 0; k < P; ++k) {
      column[k] = window[0][k];
#pragma unroll
      for (int i = 1; i < K; ++i) column[k] = minimum ? __vminu2(column[k], window[i][k]) : __vmaxu2(column[k], window[i][k]);
    }
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      unsigned m = column[half];
#pragma unroll
      for (int c = 1; c < K; ++c) m = minimum ? __vminu2(m, column[c + half]) : __vmaxu2(m, column[c + half]);
      (half ? odd : even) = m;
    }
  }
};

bool aligned(void const* p, long long pitch) { return reinterpret_cast<std::uintptr_t>(p) % 4 == 0 && pitch % 4 == 0; }

template <int K, class Op>
bool launch(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
            ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, int outside, Op op) {
  long long const width = in.width(), height = in.height();
  long long const quads = (width + 3) / 4;
  long long const strips = (height + strip_rows - 1) / strip_rows;
  dim3 const grid(unsigned((quads + block_x - 1) / block_x), unsigned((strips + block_y - 1) / block_y));
  if (grid.y > 65535u) return false;  // taller than 16.7 M rows: the portable path takes it
  window_kernel<K><<<grid, dim3(block_x, block_y), 0, space.cuda_stream()>>>(
      in.data(), in.pitch_bytes(), out.data(), out.pitch_bytes(), width, height, outside, op);
  GIGASEG_CUDA_CHECK(cudaGetLastError());
  return true;
}

}  // namespace

bool median_u8(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
               ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, int size) {
  if (!aligned(in.data(), in.pitch_bytes()) || !aligned(out.data(), out.pitch_bytes())) return false;
  if (size == 3) return launch<3>(space, in, out, -1, MedianOp{});
  if (size == 5) return launch<5>(space, in, out, -1, MedianOp{});
  return false;
}

bool rect_min_max_u8(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                     ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, int size, bool minimum) {
  if (!aligned(in.data(), in.pitch_bytes()) || !aligned(out.data(), out.pitch_bytes())) return false;
  int const neutral = minimum ? 255 : 0;
  switch (size) {
    case 3: return launch<3>(space, in, out, neutral, RectMinMaxOp{minimum});
    case 5: return launch<5>(space, in, out, neutral, RectMinMaxOp{minimum});
    case 7: return launch<7>(space, in, out, neutral, RectMinMaxOp{minimum});
    default: return false;
  }
}

}  // namespace gigaseg::tuned
