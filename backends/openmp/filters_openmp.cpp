// Tuned host local filters (OpenMP backend). Each thread takes a band of rows and slides down it,
// keeping the input rows its window needs in a ring of padded row buffers (border already applied),
// so every inner loop is a plain loop along a row over local buffers that the compiler vectorises:
//  - median: the window's columns are sorted for a chunk of the row into a local array, then the
//    generated network (algorithms/detail/median_networks.hpp) selects each median from them;
//  - morphology: rectangles separably (extremum along the row by direct taps, or by doubling for
//    wide ones, then across the ring's K rows); other elements tap by tap along each row's span;
//  - Sobel: from three float rows, exact integer-valued sums, then sqrtf of the sum of squares.
// The portable paths' results are reproduced exactly: the same networks, the same float values.
#include "gigaseg/backends/openmp/filters_openmp.hpp"

#include "gigaseg/algorithms/detail/median_networks.hpp"
#include "gigaseg/algorithms/detail/stencil.hpp"
#include "gigaseg/core/loop_errors.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace gigaseg::tuned {
namespace {

using detail::network::ScalarMinMax;

// Calls f(y0, y1) for bands of rows on the space's threads: about four bands per thread, none
// shorter than `min_rows` (a band re-reads the window's rows above its first row). A band's
// buffers are its own: an allocation that fails is rethrown after the loop.
template <class F>
void for_each_band(Kokkos::OpenMP const& space, char const* label, index_t height, index_t min_rows, F const& f) {
  index_t const threads = space.concurrency();
  index_t const rows = std::max(min_rows, (height + 4 * threads - 1) / (4 * threads));
  index_t const bands = (height + rows - 1) / rows;
  detail::LoopErrors errors;
  Kokkos::parallel_for(label, Kokkos::RangePolicy<Kokkos::OpenMP>(space, 0, bands),
                       [&](index_t b) { errors.guard([&] { f(b * rows, std::min(height, (b + 1) * rows)); }); });
  space.fence();
  errors.rethrow();
}

// Input rows keyed by row index, each padded with `pad` values either side by `fill_row`.
template <class T>
class RowRing {
 public:
  RowRing(int slots, index_t padded_width, T fill = T())
      : slots_(slots), stride_(padded_width), data_(std::size_t(slots) * std::size_t(padded_width), fill) {}
  T* slot(index_t y) { return data_.data() + std::size_t(((y % slots_) + slots_) % slots_) * std::size_t(stride_); }

 private:
  index_t slots_, stride_;
  std::vector<T> data_;
};

// ---- Median ------------------------------------------------------------------------------------

constexpr int median_chunk = 64;  // output pixels per chunk of a row

template <int K, class T>
void median_band(ImageView<T const, Kokkos::HostSpace> const& in, ImageView<T, Kokkos::HostSpace> const& out,
                 index_t y0, index_t y1) {
  constexpr int R = K / 2, C = median_chunk + 2 * R;
  index_t const width = in.width(), height = in.height();
  // Padded rows, long enough that every chunk reads a full C columns.
  index_t const stride = (width + median_chunk - 1) / median_chunk * median_chunk + 2 * R;
  RowRing<T> ring(K, stride);
  auto fill = [&](index_t y) {  // replicate border
    T* const dst = ring.slot(y);
    T const* const src = in.row(std::clamp<index_t>(y, 0, height - 1));
    std::fill(dst, dst + R, src[0]);
    std::memcpy(dst + R, src, std::size_t(width) * sizeof(T));
    std::fill(dst + R + width, dst + stride, src[width - 1]);
  };
  for (index_t y = y0 - R; y < y0 + R; ++y) fill(y);
  for (index_t y = y0; y < y1; ++y) {
    fill(y + R);
    T const* rows[K];
    for (int i = 0; i < K; ++i) rows[i] = ring.slot(y - R + i);
    T* const dst = out.row(y);
    for (index_t x0 = 0; x0 < width; x0 += median_chunk) {
      T sorted[K][C];  // sorted[i][c]: rank i of padded column x0 + c
      for (int c = 0; c < C; ++c) {
        T v[K];
        for (int i = 0; i < K; ++i) v[i] = rows[i][x0 + c];
        if constexpr (K == 3)
          detail::network::sort3<ScalarMinMax>(v);
        else
          detail::network::sort5<ScalarMinMax>(v);
        for (int i = 0; i < K; ++i) sorted[i][c] = v[i];
      }
      T result[median_chunk];
      for (int b = 0; b < median_chunk; ++b) {
        T v[K * K];
        for (int c = 0; c < K; ++c)
          for (int i = 0; i < K; ++i) v[c * K + i] = sorted[i][b + c];
        if constexpr (K == 3)
          result[b] = detail::network::median9_of_sorted_columns<ScalarMinMax>(v);
        else
          result[b] = detail::network::median25_of_sorted_columns<ScalarMinMax>(v);
      }
      std::memcpy(dst + x0, result, std::size_t(std::min<index_t>(median_chunk, width - x0)) * sizeof(T));
    }
  }
}

template <class T>
bool median_host(Kokkos::OpenMP const& space, ImageView<T const, Kokkos::HostSpace> const& in,
                 ImageView<T, Kokkos::HostSpace> const& out, int size) {
  if (size != 3 && size != 5) return false;
  if (in.empty()) return true;
  for_each_band(space, "gigaseg::median[OpenMP]", in.height(), 16, [&](index_t y0, index_t y1) {
    if (size == 3)
      median_band<3>(in, out, y0, y1);
    else
      median_band<5>(in, out, y0, y1);
  });
  return true;
}

// ---- Morphology --------------------------------------------------------------------------------

template <bool Minimum>
inline std::uint8_t extremum(std::uint8_t a, std::uint8_t b) {
  return Minimum ? (b < a ? b : a) : (a < b ? b : a);
}

// dst[x] = extremum(dst[x], src[x]) for x < n.
template <bool Minimum>
void fold(std::uint8_t* __restrict dst, std::uint8_t const* __restrict src, index_t n) {
  for (index_t x = 0; x < n; ++x) dst[x] = extremum<Minimum>(dst[x], src[x]);
}

// Extremum over the K = 2 a + 1 columns x .. x + K - 1 of a padded row, for x < n: direct taps for
// K = 3, else doubling (runs of 2, 4, 8 ... columns in `work`, then two overlapping runs).
template <bool Minimum>
void row_extremum(std::uint8_t const* padded, index_t n, int K, std::uint8_t* __restrict dst, std::uint8_t* work) {
  if (K <= 3) {
    std::memcpy(dst, padded, std::size_t(n));
    for (int d = 1; d < K; ++d) fold<Minimum>(dst, padded + d, n);
    return;
  }
  index_t const length = n + K - 1;
  std::memcpy(work, padded, std::size_t(length));
  int p = 1;
  for (; 2 * p <= K; p *= 2) {
    // work[x] becomes the extremum of columns x .. x + 2p - 1; ascending x reads work[x + p] before
    // it is overwritten.
    for (index_t x = 0; x + p < length; ++x) work[x] = extremum<Minimum>(work[x], work[x + p]);
  }
  for (index_t x = 0; x < n; ++x) dst[x] = extremum<Minimum>(work[x], work[x + K - p]);
}

constexpr int van_herk_rows = 5;          // rectangles from this size combine rows by van Herk
constexpr int max_tuned_rectangle = 255;  // ring and suffix rows: (3 K - 2) rows per thread

template <bool Minimum>
void min_max_band(ImageView<std::uint8_t const, Kokkos::HostSpace> const& in,
                  ImageView<std::uint8_t, Kokkos::HostSpace> const& out, std::vector<int> const& first,
                  std::vector<int> const& last, bool rect, index_t y0, index_t y1) {
  std::uint8_t const neutral = Minimum ? 255 : 0;
  int const K = int(first.size()), c = K / 2;
  index_t const width = in.width(), height = in.height();
  int reach = 0;
  for (int i = 0; i < K; ++i)
    if (first[std::size_t(i)] <= last[std::size_t(i)])
      reach = std::max({reach, -first[std::size_t(i)], last[std::size_t(i)]});
  index_t const stride = width + 2 * reach;
  std::vector<std::uint8_t> padded(std::size_t(stride), neutral);
  std::vector<std::uint8_t> work(static_cast<std::size_t>(stride));
  auto pad = [&](index_t y) {  // row y between `reach` neutral columns
    std::memcpy(padded.data() + reach, in.row(y), std::size_t(width));
    return padded.data();
  };
  if (rect && K < van_herk_rows) {
    // Ring of the K rows' extrema along x; rows outside the image take no part.
    RowRing<std::uint8_t> ring(K, width);
    auto fill = [&](index_t y) {
      if (y >= 0 && y < height) row_extremum<Minimum>(pad(y), width, K, ring.slot(y), work.data());
    };
    for (index_t y = y0 - c; y < y0 + c; ++y) fill(y);
    for (index_t y = y0; y < y1; ++y) {
      fill(y + c);
      std::uint8_t* const dst = out.row(y);
      std::memcpy(dst, ring.slot(y), std::size_t(width));
      for (index_t s = std::max<index_t>(y - c, 0); s <= std::min<index_t>(y + c, height - 1); ++s)
        if (s != y) fold<Minimum>(dst, ring.slot(s), width);
    }
    return;
  }
  if (rect) {
    // Across rows by van Herk/Gil-Werman, whole rows at a time: output rows b .. b + K - 1 all
    // contain row P = b + c; suffix extrema of rows b - c .. P - 1 (descending) and the running
    // prefix extremum of rows P .. y + c (ascending) give each row in two row operations. The
    // extrema along x of rows b - c .. b + K - 1 + c sit in a ring of 2K - 1 rows, each computed
    // once; rows outside the image are neutral.
    RowRing<std::uint8_t> ring(2 * K - 1, width);
    std::vector<std::uint8_t> suffix(std::size_t(K - 1) * std::size_t(width)), prefix(static_cast<std::size_t>(width));
    auto fill = [&](index_t y) {
      if (y >= 0 && y < height)
        row_extremum<Minimum>(pad(y), width, K, ring.slot(y), work.data());
      else
        std::memset(ring.slot(y), neutral, std::size_t(width));
    };
    for (index_t y = y0 - c; y < y0 + c; ++y) fill(y);  // the first block's rows above its pivot
    for (index_t b = y0; b < y1; b += K) {
      index_t const pivot = b + c;
      for (index_t y = pivot; y <= pivot + K - 1; ++y) fill(y);
      std::uint8_t* const s = suffix.data();
      std::memcpy(s + std::size_t(K - 2) * std::size_t(width), ring.slot(pivot - 1), std::size_t(width));
      for (int t = K - 3; t >= 0; --t) {
        std::uint8_t* const row = s + std::size_t(t) * std::size_t(width);
        std::memcpy(row, ring.slot(b - c + t), std::size_t(width));
        fold<Minimum>(row, row + width, width);
      }
      std::memcpy(prefix.data(), ring.slot(pivot), std::size_t(width));
      for (int t = 0; t < K && b + t < y1; ++t) {
        std::uint8_t* const dst = out.row(b + t);
        if (t > 0) fold<Minimum>(prefix.data(), ring.slot(pivot + t), width);
        std::memcpy(dst, prefix.data(), std::size_t(width));
        if (t < K - 1) fold<Minimum>(dst, s + std::size_t(t) * std::size_t(width), width);
      }
    }
    return;
  }
  // Any element: ring of padded input rows (the pads neutral from the start, only the middles
  // rewritten), every span folded tap by tap.
  RowRing<std::uint8_t> ring(K, stride, neutral);
  auto fill = [&](index_t y) {
    if (y >= 0 && y < height) std::memcpy(ring.slot(y) + reach, in.row(y), std::size_t(width));
  };
  for (index_t y = y0 - c; y < y0 + c; ++y) fill(y);
  for (index_t y = y0; y < y1; ++y) {
    fill(y + c);
    std::uint8_t* const dst = out.row(y);
    std::fill(dst, dst + width, neutral);
    for (int i = 0; i < K; ++i) {
      index_t const s = y - c + i;
      if (s < 0 || s >= height) continue;
      std::uint8_t const* const row = ring.slot(s) + reach;
      for (int dx = first[std::size_t(i)]; dx <= last[std::size_t(i)]; ++dx) fold<Minimum>(dst, row + dx, width);
    }
  }
}

// ---- Sobel -------------------------------------------------------------------------------------

void sobel_band(ImageView<std::uint8_t const, Kokkos::HostSpace> const& in,
                ImageView<float, Kokkos::HostSpace> const& out, index_t y0, index_t y1) {
  index_t const width = in.width(), height = in.height();
  auto reflect = [](index_t i, index_t n) {  // BORDER_REFLECT_101 for offsets of one
    return n == 1 ? 0 : i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i;
  };
  RowRing<float> ring(3, width + 2);
  auto fill = [&](index_t y) {
    float* const dst = ring.slot(y);
    std::uint8_t const* const src = in.row(reflect(y, height));
    for (index_t x = 0; x < width; ++x) dst[x + 1] = float(src[x]);
    dst[0] = dst[1 + reflect(-1, width)];
    dst[width + 1] = dst[1 + reflect(width, width)];
  };
  fill(y0 - 1);
  fill(y0);
  for (index_t y = y0; y < y1; ++y) {
    fill(y + 1);
    float const* __restrict up = ring.slot(y - 1);
    float const* __restrict mid = ring.slot(y);
    float const* __restrict down = ring.slot(y + 1);
    float* __restrict dst = out.row(y);
    for (index_t x = 0; x < width; ++x) {
      float const gx = (up[x + 2] - up[x]) + 2.0f * (mid[x + 2] - mid[x]) + (down[x + 2] - down[x]);
      float const gy = (down[x] - up[x]) + 2.0f * (down[x + 1] - up[x + 1]) + (down[x + 2] - up[x + 2]);
      dst[x] = std::sqrt(gx * gx + gy * gy);
    }
  }
}

// ---- Gaussian ----------------------------------------------------------------------------------

void gaussian_band(ImageView<std::uint8_t const, Kokkos::HostSpace> const& in,
                   ImageView<std::uint8_t, Kokkos::HostSpace> const& out, std::vector<std::uint16_t> const& q,
                   index_t y0, index_t y1) {
  int const K = int(q.size()), r = K / 2;
  index_t const width = in.width(), height = in.height();
  std::vector<std::uint8_t> padded(std::size_t(width + 2 * r));
  RowRing<std::uint16_t> ring(K, width);  // rows' horizontal sums, keyed by (unreflected) row
  std::vector<std::uint32_t> sum(static_cast<std::size_t>(width));
  auto fill = [&](index_t y) {
    std::uint8_t const* const src = in.row(detail::border_index(y, height, detail::Border::reflect101));
    for (index_t x = -r; x < width + r; ++x)
      padded[std::size_t(x + r)] =
          src[x >= 0 && x < width ? x : detail::border_index(x, width, detail::Border::reflect101)];
    // The kernel is symmetric: taps i and K - 1 - i share a weight, one multiply for both.
    std::uint16_t* __restrict const dst = ring.slot(y);
    std::uint8_t const* __restrict const p = padded.data();
    std::uint16_t const centre = q[std::size_t(r)];
    for (index_t x = 0; x < width; ++x) dst[x] = std::uint16_t(centre * p[x + r]);
    for (int i = 0; i < r; ++i) {
      std::uint16_t const w = q[std::size_t(i)];
      std::uint8_t const* __restrict const a = p + i;
      std::uint8_t const* __restrict const b = p + K - 1 - i;
      for (index_t x = 0; x < width; ++x) dst[x] = std::uint16_t(dst[x] + w * std::uint16_t(a[x] + b[x]));
    }
  };
  for (index_t y = y0 - r; y < y0 + r; ++y) fill(y);
  for (index_t y = y0; y < y1; ++y) {
    fill(y + r);
    std::uint32_t* __restrict const acc = sum.data();
    std::uint16_t const* __restrict const middle = ring.slot(y);
    std::uint32_t const centre = q[std::size_t(r)];
    for (index_t x = 0; x < width; ++x) acc[x] = centre * middle[x];
    for (int i = 0; i < r; ++i) {
      std::uint32_t const w = q[std::size_t(i)];
      std::uint16_t const* __restrict const a = ring.slot(y - r + i);
      std::uint16_t const* __restrict const b = ring.slot(y + r - i);
      for (index_t x = 0; x < width; ++x) acc[x] += w * (std::uint32_t(a[x]) + b[x]);
    }
    std::uint8_t* __restrict const dst = out.row(y);
    for (index_t x = 0; x < width; ++x) dst[x] = std::uint8_t((acc[x] + 32768u) >> 16);  // half up, <= 255
  }
}

}  // namespace

bool gaussian(Kokkos::OpenMP const& space, ImageView<std::uint8_t const, Kokkos::HostSpace> const& in,
              ImageView<std::uint8_t, Kokkos::HostSpace> const& out, std::vector<float> const& weights) {
  std::vector<std::uint16_t> q;
  long total = 0;
  for (float w : weights) {
    float const scaled = w * 256.0f;
    if (scaled < 0.0f || scaled != std::floor(scaled)) return false;
    q.push_back(std::uint16_t(scaled));
    total += long(scaled);
  }
  if (total != 256 || q.size() % 2 == 0) return false;
  for (std::size_t i = 0; i < q.size() / 2; ++i)
    if (q[i] != q[q.size() - 1 - i]) return false;  // symmetric kernels only
  if (in.empty()) return true;
  for_each_band(space, "gigaseg::gaussian[OpenMP]", in.height(), index_t(4 * q.size()),
                [&](index_t y0, index_t y1) { gaussian_band(in, out, q, y0, y1); });
  return true;
}

bool median(Kokkos::OpenMP const& space, ImageView<std::uint8_t const, Kokkos::HostSpace> const& in,
            ImageView<std::uint8_t, Kokkos::HostSpace> const& out, int size) {
  return median_host(space, in, out, size);
}
bool median(Kokkos::OpenMP const& space, ImageView<std::uint16_t const, Kokkos::HostSpace> const& in,
            ImageView<std::uint16_t, Kokkos::HostSpace> const& out, int size) {
  return median_host(space, in, out, size);
}
bool median(Kokkos::OpenMP const& space, ImageView<float const, Kokkos::HostSpace> const& in,
            ImageView<float, Kokkos::HostSpace> const& out, int size) {
  return median_host(space, in, out, size);
}

bool min_max(Kokkos::OpenMP const& space, ImageView<std::uint8_t const, Kokkos::HostSpace> const& in,
             ImageView<std::uint8_t, Kokkos::HostSpace> const& out, std::vector<int> const& first,
             std::vector<int> const& last, bool minimum) {
  int const K = int(first.size());
  bool rect = K > 1;
  for (int i = 0; i < K; ++i) rect = rect && first[std::size_t(i)] == -(K / 2) && last[std::size_t(i)] == K / 2;
  if (rect && K > max_tuned_rectangle) return false;
  if (in.empty()) return true;
  for_each_band(space, minimum ? "gigaseg::morphology::erode[OpenMP]" : "gigaseg::morphology::dilate[OpenMP]",
                in.height(), 4 * K, [&](index_t y0, index_t y1) {
                  if (minimum)
                    min_max_band<true>(in, out, first, last, rect, y0, y1);
                  else
                    min_max_band<false>(in, out, first, last, rect, y0, y1);
                });
  return true;
}

bool sobel_magnitude(Kokkos::OpenMP const& space, ImageView<std::uint8_t const, Kokkos::HostSpace> const& in,
                     ImageView<float, Kokkos::HostSpace> const& out) {
  if (in.empty()) return true;
  for_each_band(space, "gigaseg::sobel[OpenMP]", in.height(), 16,
                [&](index_t y0, index_t y1) { sobel_band(in, out, y0, y1); });
  return true;
}

}  // namespace gigaseg::tuned
