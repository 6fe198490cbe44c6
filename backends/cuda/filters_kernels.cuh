#pragma once
// Device code of the tuned 8-bit filter kernels (backends/cuda/filters_cuda.cpp launches them).
// Kept free of Kokkos so that launch shapes can be explored in isolation.
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
#include "gigaseg/algorithms/detail/median_networks.hpp"

#include <cuda_runtime.h>

namespace gigaseg::tuned::kernels {

// Launch shape of the row-window kernels: BX threads along x (4 pixels each), BY strips of STRIP
// output rows per block.
constexpr int block_x = 64;
constexpr int block_y = 4;
constexpr int strip_rows = 16;

struct PackedMinMax {
  static __device__ __forceinline__ unsigned min(unsigned a, unsigned b) { return __vminu2(a, b); }
  static __device__ __forceinline__ unsigned max(unsigned a, unsigned b) { return __vmaxu2(a, b); }
  static __device__ __forceinline__ void sort(unsigned& a, unsigned& b) {
    unsigned const lo = __vminu2(a, b);
    b = __vmaxu2(a, b);
    a = lo;
  }
};

// Pair words (below) from the three words of bytes x-4 .. x+7 around quad q.
template <int R>
__device__ __forceinline__ void pairs_from_words(unsigned const (&w)[3], unsigned (&pair)[2 * R + 2]) {
#pragma unroll
  for (int k = -R; k <= R + 1; ++k) {
    int const lo = k + 4, hi = k + 6;  // byte positions in w[0..2]
    unsigned const a = w[lo / 4], c = w[hi / 4];
    // __byte_perm(a, c, s): selector nibble n picks byte n of {c:a}.
    unsigned const selector = unsigned(lo % 4) | unsigned(4 + hi % 4) << 8;
    pair[k + R] = __byte_perm(a, c, selector) & 0x00ff00ffu;
  }
}

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
  pairs_from_words<R>(w, pair);
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

template <int K, class Op, int BX = block_x, int BY = block_y, int STRIP = strip_rows>
__global__ void __launch_bounds__(BX* BY)
    window_kernel(unsigned char const* __restrict__ in, long long in_pitch, unsigned char* __restrict__ out,
                  long long out_pitch, long long width, long long height, int outside, Op op) {
  constexpr int R = K / 2, P = 2 * R + 2;
  long long const q = (long long)blockIdx.x * BX + threadIdx.x;
  if (4 * q >= width) return;
  long long const y0 = ((long long)blockIdx.y * BY + threadIdx.y) * STRIP;
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
  auto load = [&](long long y, unsigned(&pair)[P]) {
    unsigned char const* row = row_at(y);
    if (row) {
      load_pairs<R>(row, q, width, edge, outside, pair);
    } else {
      unsigned const fill = unsigned(outside) * 0x00010001u;
#pragma unroll
      for (int k = 0; k < P; ++k) pair[k] = fill;
    }
  };
  auto step = [&](long long y) {
#pragma unroll
    for (int i = 0; i + 1 < K; ++i)
#pragma unroll
      for (int k = 0; k < P; ++k) window[i][k] = window[i + 1][k];
    load(y + R, window[K - 1]);
    unsigned even, odd;
    op.template apply<K>(window, even, odd);
    store_quad(out + y * out_pitch, q, width, even, odd);
  };
  if (!edge && y0 - R >= 0 && y0 + STRIP + R <= height) {
    // Interior strip: every word of the strip's STRIP + K - 1 rows is loaded up front, without a
    // border test, so that each thread has the whole strip in flight at once; then the window
    // slides over registers (the shifts, unrolled, are renaming).
    unsigned raw[STRIP + K - 1][3];
    unsigned char const* first = in + (y0 - R) * in_pitch;
#pragma unroll
    for (int i = 0; i < STRIP + K - 1; ++i) {
      unsigned const* words = reinterpret_cast<unsigned const*>(first + i * in_pitch) + q;
      raw[i][0] = __ldg(words - 1), raw[i][1] = __ldg(words), raw[i][2] = __ldg(words + 1);
    }
#pragma unroll
    for (int i = 1; i < K; ++i) pairs_from_words<R>(raw[i - 1], window[i]);
#pragma unroll
    for (int s = 0; s < STRIP; ++s) {
#pragma unroll
      for (int i = 0; i + 1 < K; ++i)
#pragma unroll
        for (int k = 0; k < P; ++k) window[i][k] = window[i + 1][k];
      pairs_from_words<R>(raw[s + K - 1], window[K - 1]);
      unsigned even, odd;
      op.template apply<K>(window, even, odd);
      reinterpret_cast<unsigned*>(out + (y0 + s) * out_pitch)[q] = __byte_perm(even, odd, 0x6240);
    }
    return;
  }
#pragma unroll
  for (int i = 1; i < K; ++i) load(y0 - R + i - 1, window[i]);
  for (long long y = y0; y < y0 + STRIP && y < height; ++y) step(y);
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
      for (int i = 1; i < K; ++i)
        column[k] = minimum ? __vminu2(column[k], window[i][k]) : __vmaxu2(column[k], window[i][k]);
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

// ---- Sobel magnitude -------------------------------------------------------------------------
// A thread owns four adjacent output pixels and walks down a strip of rows; per input row it keeps
// the horizontal difference d = b[x+1] - b[x-1] and the smoothed sum s = b[x-1] + 2 b[x] + b[x+1]
// of its pixels, so gx = d(y-1) + 2 d(y) + d(y+1) and gy = s(y+1) - s(y-1). All integer (exact),
// then sqrtf of the exact float sum of squares: identical to the portable float pass.

__device__ __forceinline__ long long reflect101(long long i, long long n) {
  if (n == 1) return 0;
  while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
  return i;
}

struct SobelRow {
  int d[4], s[4];
};

__device__ __forceinline__ SobelRow sobel_row(unsigned char const* __restrict__ row, long long q, long long width,
                                              bool edge) {
  int b[6];  // bytes 4q-1 .. 4q+4
  if (!edge) {
    unsigned const* words = reinterpret_cast<unsigned const*>(row) + q;
    unsigned const w0 = __ldg(words - 1), w1 = __ldg(words), w2 = __ldg(words + 1);
    b[0] = int(w0 >> 24);
#pragma unroll
    for (int j = 0; j < 4; ++j) b[j + 1] = int((w1 >> (8 * j)) & 0xffu);
    b[5] = int(w2 & 0xffu);
  } else {
#pragma unroll
    for (int j = 0; j < 6; ++j) {
      b[j] = int(row[reflect101(4 * q - 1 + j, width)]);
    }
  }
  SobelRow r;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    r.d[i] = b[i + 2] - b[i];
    r.s[i] = b[i] + 2 * b[i + 1] + b[i + 2];
  }
  return r;
}

template <int BX = block_x, int BY = block_y, int STRIP = strip_rows>
__global__ void __launch_bounds__(BX* BY)
    sobel_kernel(unsigned char const* __restrict__ in, long long in_pitch, float* __restrict__ out, long long out_pitch,
                 long long width, long long height, bool vector_store) {
  long long const q = (long long)blockIdx.x * BX + threadIdx.x;
  if (4 * q >= width) return;
  long long const y0 = ((long long)blockIdx.y * BY + threadIdx.y) * STRIP;
  if (y0 >= height) return;
  bool const edge = q == 0 || 4 * q + 4 >= width;
  auto load = [&](long long y) { return sobel_row(in + reflect101(y, height) * in_pitch, q, width, edge); };
  SobelRow up = load(y0 - 1), mid = load(y0);
  auto step = [&](long long y) {
    SobelRow const down = load(y + 1);
    float v[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      int const gx = up.d[i] + 2 * mid.d[i] + down.d[i], gy = down.s[i] - up.s[i];
      v[i] = sqrtf(float(gx * gx + gy * gy));
    }
    float* const row = reinterpret_cast<float*>(reinterpret_cast<char*>(out) + y * out_pitch);
    if (vector_store && 4 * q + 4 <= width) {
      reinterpret_cast<float4*>(row)[q] = make_float4(v[0], v[1], v[2], v[3]);
    } else {
      for (int i = 0; i < 4 && 4 * q + i < width; ++i) row[4 * q + i] = v[i];
    }
    up = mid;
    mid = down;
  };
  if (y0 + STRIP <= height) {
#pragma unroll
    for (int s = 0; s < STRIP; ++s) step(y0 + s);
  } else {
    for (long long y = y0; y < height; ++y) step(y);
  }
}

// ---- Wide rectangles: a column pass, then a row pass -----------------------------------------
// Bytes are handled four to a 32-bit word with __vminu4/__vmaxu4. Pixels outside the image take
// no part (the neutral value), as in OpenCV's morphology border.

template <bool Minimum>
__device__ __forceinline__ unsigned min_max4(unsigned a, unsigned b) {
  return Minimum ? __vminu4(a, b) : __vmaxu4(a, b);
}

__device__ __forceinline__ void store_word(unsigned char* __restrict__ row, long long word, long long width,
                                           unsigned v) {
  if (4 * word + 4 <= width) {
    reinterpret_cast<unsigned*>(row)[word] = v;
  } else {
    for (int j = 0; 4 * word + j < width; ++j) row[4 * word + j] = (unsigned char)(v >> (8 * j));
  }
}

constexpr int column_threads = 64;  // words per block in the column pass

// Column pass, van Herk/Gil-Werman: a thread owns one word column and a chain of strips of K output
// rows. All windows of the strip y0 .. y0 + K - 1 contain row P = y0 + r: the suffix extrema of
// rows y0 - r .. P - 1 (in shared memory) and the running prefix extremum of rows P .. y + r
// complete each window. The rows read for the prefix, P + 1 .. P + K - 1, are the next strip's
// suffix rows: kept raw in the slots the outputs have consumed, they become its suffix without
// being read again, so each input row is read once and every pixel costs three operations.
// V consecutive words as one load/store (V = 1, 2 or 4; rows 4 V-byte aligned).
template <int V>
struct Words {
  unsigned w[V];
};
template <int V>
__device__ __forceinline__ Words<V> load_words(unsigned char const* row, long long word) {
  Words<V> r;
  if constexpr (V == 4) {
    uint4 const v = __ldg(reinterpret_cast<uint4 const*>(row) + word / 4);
    r.w[0] = v.x, r.w[1] = v.y, r.w[2] = v.z, r.w[3] = v.w;
  } else if constexpr (V == 2) {
    uint2 const v = __ldg(reinterpret_cast<uint2 const*>(row) + word / 2);
    r.w[0] = v.x, r.w[1] = v.y;
  } else {
    r.w[0] = __ldg(reinterpret_cast<unsigned const*>(row) + word);
  }
  return r;
}
template <bool Minimum, int V>
__device__ __forceinline__ Words<V> min_max_words(Words<V> a, Words<V> const& b) {
#pragma unroll
  for (int i = 0; i < V; ++i) a.w[i] = min_max4<Minimum>(a.w[i], b.w[i]);
  return a;
}

template <bool Minimum, int V = 1>
__global__ void __launch_bounds__(column_threads)
    column_min_max_kernel(unsigned char const* __restrict__ in, long long in_pitch, unsigned char* __restrict__ out,
                          long long out_pitch, long long width, long long height, int K, int chain) {
  extern __shared__ unsigned slots[];                                                 // (K - 1) x column_threads x V
  long long const word = ((long long)blockIdx.x * column_threads + threadIdx.x) * V;  // first of V
  if (4 * word >= width) return;
  int const r = K / 2;
  unsigned const neutral = Minimum ? 0xffffffffu : 0u;
  Words<V> none;
#pragma unroll
  for (int i = 0; i < V; ++i) none.w[i] = neutral;
  Words<V>* const slot = reinterpret_cast<Words<V>*>(slots) + threadIdx.x;  // slot t at slot[t * column_threads]
  auto read = [&](long long y) { return y >= 0 && y < height ? load_words<V>(in + y * in_pitch, word) : none; };
  auto store = [&](long long y, Words<V> const& v) {
    unsigned char* const row = out + y * out_pitch;
    if constexpr (V > 1) {
      if (4 * (word + V) <= width) {
        if constexpr (V == 4)
          reinterpret_cast<uint4*>(row)[word / 4] = make_uint4(v.w[0], v.w[1], v.w[2], v.w[3]);
        else
          reinterpret_cast<uint2*>(row)[word / 2] = make_uint2(v.w[0], v.w[1]);
        return;
      }
    }
#pragma unroll
    for (int i = 0; i < V; ++i)
      if (4 * (word + i) < width) store_word(row, word + i, width, v.w[i]);
  };
  long long const first = (long long)blockIdx.y * chain;
  {  // the first strip's suffix rows, read from memory
    long long const y0 = first * K;
    Words<V> acc = none;
#pragma unroll 8
    for (int t = K - 2; t >= 0; --t) {
      acc = min_max_words<Minimum>(acc, read(y0 - r + t));
      slot[t * column_threads] = acc;
    }
  }
  for (long long strip = first; strip < first + chain && strip * K < height; ++strip) {
    long long const y0 = strip * K, pivot = y0 + r;
    Words<V> acc = none;
#pragma unroll 8
    for (int t = 0; t < K; ++t) {  // output row y0 + t; row pivot + t joins the prefix
      Words<V> const v = read(pivot + t);
      acc = min_max_words<Minimum>(acc, v);
      Words<V> const result = t < K - 1 ? min_max_words<Minimum>(slot[t * column_threads], acc) : acc;
      if (t > 0) slot[(t - 1) * column_threads] = v;  // raw row pivot + t: the next strip's row t - 1
      if (y0 + t < height) store(y0 + t, result);
    }
    acc = none;
#pragma unroll 8
    for (int t = K - 2; t >= 0; --t) {
      acc = min_max_words<Minimum>(acc, slot[t * column_threads]);
      slot[t * column_threads] = acc;
    }
  }
}

// Row pass by doubling inside a warp: each lane holds 4 words (16 pixels) of a 512-pixel segment
// of a row; shifted copies come from neighbouring lanes by shuffles. After folding runs of 2, 4,
// 8, ... pixels (extrema over runs of p pixels), the window of K is two overlapping runs of the
// largest power of two p <= K. A segment's first and last `halo` words are context only (their
// neighbours lie in other lanes' or warps' segments), so warps overlap by 2 halo words.
constexpr int row_warps = 8;  // warps per block, each on its own row

// The word at in-warp word index 4 lane + k (k may be negative or past 3): from lane
// lane + floor(k / 4), slot k mod 4. Lanes past the warp give garbage, which reaches only context
// words.
__device__ __forceinline__ unsigned lane_word(unsigned const (&w)[4], int k) {
  int const slot = k & 3, delta = k >> 2;  // arithmetic shift: floor
  unsigned const mine = slot == 0 ? w[0] : slot == 1 ? w[1] : slot == 2 ? w[2] : w[3];
  return __shfl_sync(0xffffffffu, mine, int(threadIdx.x & 31) + delta);
}

// Bytes o .. o + 3 relative to each of the lane's four words j (o may be negative), into v[j].
__device__ __forceinline__ void lane_bytes(unsigned const (&w)[4], int o, unsigned (&v)[4]) {
  int const dw = o >> 2, shift = (o & 3) * 8;
  unsigned m[5];
#pragma unroll
  for (int k = 0; k < 5; ++k) m[k] = lane_word(w, dw + k);
#pragma unroll
  for (int j = 0; j < 4; ++j) v[j] = shift ? __funnelshift_r(m[j], m[j + 1], shift) : m[j];
}

// One doubling step with a compile-time shift P (pixels): w[j] = extremum of w and the run of
// bytes starting P later.
template <bool Minimum, int P>
__device__ __forceinline__ void double_run(unsigned (&w)[4], int K) {
  if (2 * P > K) return;  // P is a power of two; the steps run while 2 P <= K
  unsigned v[4];
  lane_bytes(w, P, v);
#pragma unroll
  for (int j = 0; j < 4; ++j) w[j] = min_max4<Minimum>(w[j], v[j]);
}

// The K-wide extrema of a warp-row (the lane's 4 words in `w`, folded in place) into `a`: runs of
// 2, 4, ... p pixels by doubling (p the largest power of two <= K), then two overlapping runs of p.
template <bool Minimum>
__device__ __forceinline__ void fold_row(unsigned (&w)[4], int K, int p, unsigned (&a)[4]) {
  double_run<Minimum, 1>(w, K);
  double_run<Minimum, 2>(w, K);
  double_run<Minimum, 4>(w, K);
  double_run<Minimum, 8>(w, K);
  double_run<Minimum, 16>(w, K);
  double_run<Minimum, 32>(w, K);
  double_run<Minimum, 64>(w, K);
  double_run<Minimum, 128>(w, K);
  int const r = K / 2;
  unsigned b[4];
  lane_bytes(w, -r, a);
  lane_bytes(w, -r + K - p, b);
#pragma unroll
  for (int j = 0; j < 4; ++j) a[j] = min_max4<Minimum>(a[j], b[j]);
}

// VEC: rows 16-byte aligned, halo a multiple of 4 words: one 16-byte load and store per lane.
template <bool Minimum, bool VEC>
__global__ void __launch_bounds__(row_warps * 32)
    row_min_max_kernel(unsigned char const* __restrict__ in, long long in_pitch, unsigned char* __restrict__ out,
                       long long out_pitch, long long width, long long height, int K, int halo) {
  int const lane = threadIdx.x & 31;
  int const useful = 128 - 2 * halo;  // output words per warp
  unsigned const neutral = Minimum ? 0xffffffffu : 0u;
  long long const words = (width + 3) / 4;
  long long const segment = (long long)blockIdx.x * useful - halo;  // the warp's first word
  long long const mine = segment + 4 * lane;                        // the lane's first word
  bool const inside = mine >= 0 && 4 * (mine + 4) <= width;
  int p = 1;
  while (2 * p <= K) p *= 2;
  // Each warp's rows are loaded one iteration ahead (the next row's 16 bytes a lane are in flight
  // while this row is folded), so a warp keeps two rows' loads outstanding instead of one.
  auto load_row = [&](long long y, unsigned(&w)[4]) {
    unsigned char const* row = in + y * in_pitch;
    if (VEC && inside) {
      uint4 const v = __ldg(reinterpret_cast<uint4 const*>(row) + mine / 4);
      w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        long long const x = 4 * (mine + j);
        if (x >= 0 && x + 4 <= width) {
          w[j] = __ldg(reinterpret_cast<unsigned const*>(row) + mine + j);
        } else {
          unsigned v = 0;
          for (int b = 0; b < 4; ++b)
            v |= (x + b >= 0 && x + b < width ? unsigned(row[x + b]) : (neutral & 0xffu)) << (8 * b);
          w[j] = v;
        }
      }
    }
  };
  long long const stride = (long long)gridDim.y * row_warps;
  long long y = (long long)blockIdx.y * row_warps + (threadIdx.x >> 5);
  unsigned next[4] = {neutral, neutral, neutral, neutral};
  if (y < height) load_row(y, next);
  for (; y < height; y += stride) {
    unsigned w[4] = {next[0], next[1], next[2], next[3]};
    if (y + stride < height) load_row(y + stride, next);
    unsigned a[4];
    fold_row<Minimum>(w, K, p, a);
    unsigned char* const dst = out + y * out_pitch;
    int const g = 4 * lane;
    if (VEC && inside && g >= halo && g + 4 <= 128 - halo && mine + 4 <= words) {
      reinterpret_cast<uint4*>(dst)[mine / 4] = make_uint4(a[0], a[1], a[2], a[3]);
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (g + j >= halo && g + j < 128 - halo && mine + j < words) store_word(dst, mine + j, width, a[j]);
    }
  }
}

// Fused wide rectangle: the column pass and the row pass of one band of rows in one kernel, the
// band's column extrema kept in shared memory instead of making a round trip through device memory
// (the separable passes read and write the image twice). A block owns a band of fused_words words
// (512 pixels, `halo` of them on each side context only) and a chain of strips of K rows: its
// threads run the column pass above (a thread a word, V = 1), `R` output rows at a time, into a
// tile of R rows; then each warp folds tile rows by doubling as row_min_max_kernel does. A small
// tile keeps the shared memory a block needs ((K - 1 + R) x 512 bytes) low enough for many blocks,
// so enough loads are in flight. Bytes past the image's right edge become the neutral value before
// the row fold, which would otherwise carry them left.
constexpr int fused_words = 128;  // words in a band: one warp-row of the doubling fold
constexpr int fused_warps = fused_words / 32;

template <bool Minimum>
__global__ void __launch_bounds__(fused_words)
    fused_min_max_kernel(unsigned char const* __restrict__ in, long long in_pitch, unsigned char* __restrict__ out,
                         long long out_pitch, long long width, long long height, int K, int R, int halo, int chain,
                         bool vector_store) {
  extern __shared__ unsigned fused_shared[];
  unsigned* const slots = fused_shared;                         // (K - 1) x fused_words
  unsigned* const tile = fused_shared + (K - 1) * fused_words;  // R x fused_words, 16-byte aligned rows
  int const tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, r = K / 2;
  int const useful = fused_words - 2 * halo;
  unsigned const neutral = Minimum ? 0xffffffffu : 0u;
  long long const words = (width + 3) / 4;
  long long const band = (long long)blockIdx.x * useful - halo;  // the band's first word
  long long const word = band + tid;
  bool const valid = word >= 0 && word < words;
  unsigned keep = 0xffffffffu;  // the bytes of the word inside the image
  if (valid && 4 * word + 4 > width) keep = (1u << (8 * int(width - 4 * word))) - 1u;
  auto read = [&](long long y) -> unsigned {
    if (!valid || y < 0 || y >= height) return neutral;
    unsigned const v = __ldg(reinterpret_cast<unsigned const*>(in + y * in_pitch) + word);
    return (v & keep) | (neutral & ~keep);
  };
  long long const first = (long long)blockIdx.y * chain;
  {  // the first strip's suffix rows, read from memory
    long long const y0 = first * K;
    unsigned acc = neutral;
#pragma unroll 8
    for (int t = K - 2; t >= 0; --t) {
      acc = min_max4<Minimum>(acc, read(y0 - r + t));
      slots[t * fused_words + tid] = acc;
    }
  }
  int p = 1;
  while (2 * p <= K) p *= 2;
  int const g = 4 * lane;  // the lane's first word in the band
  for (long long strip = first; strip < first + chain && strip * K < height; ++strip) {
    long long const y0 = strip * K, pivot = y0 + r;
    unsigned acc = neutral;
    for (int t0 = 0; t0 < K; t0 += R) {
      int const n = K - t0 < R ? K - t0 : R;
#pragma unroll 8
      for (int u = 0; u < n; ++u) {  // output row y0 + t, t = t0 + u; row pivot + t joins the prefix
        int const t = t0 + u;
        unsigned const v = read(pivot + t);
        acc = min_max4<Minimum>(acc, v);
        tile[u * fused_words + tid] = t < K - 1 ? min_max4<Minimum>(slots[t * fused_words + tid], acc) : acc;
        if (t > 0) slots[(t - 1) * fused_words + tid] = v;  // raw row pivot + t: the next strip's row t - 1
      }
      __syncthreads();  // the tile's n rows are complete
      for (int u = warp; u < n && y0 + t0 + u < height; u += fused_warps) {
        uint4 const q = reinterpret_cast<uint4 const*>(tile + u * fused_words)[lane];
        unsigned w[4] = {q.x, q.y, q.z, q.w};
        unsigned a[4];
        fold_row<Minimum>(w, K, p, a);
        unsigned char* const dst = out + (y0 + t0 + u) * out_pitch;
        long long const mine = band + g;
        if (vector_store && g >= halo && g + 4 <= fused_words - halo && 4 * (mine + 4) <= width) {
          reinterpret_cast<uint4*>(dst)[mine / 4] = make_uint4(a[0], a[1], a[2], a[3]);
        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j)
            if (g + j >= halo && g + j < fused_words - halo && mine + j >= 0 && mine + j < words)
              store_word(dst, mine + j, width, a[j]);
        }
      }
      __syncthreads();  // the tile is free for the next rows
    }
    acc = neutral;
#pragma unroll 8
    for (int t = K - 2; t >= 0; --t) {
      acc = min_max4<Minimum>(acc, slots[t * fused_words + tid]);
      slots[t * fused_words + tid] = acc;
    }
  }
}

}  // namespace gigaseg::tuned::kernels
