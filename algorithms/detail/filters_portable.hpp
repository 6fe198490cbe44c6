#pragma once
// Portable implementation and dispatch of algorithms/filters.hpp.
#include "algorithms/convert.hpp"
#include "algorithms/detail/median_networks.hpp"
#include "algorithms/detail/stencil.hpp"
#include "core/error.hpp"
#include "core/translation_unit.hpp"
#include "gigaseg_config.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
#include "backends/cuda/filters_cuda.hpp"
#endif
#ifdef KOKKOS_ENABLE_OPENMP
#include "backends/openmp/filters_openmp.hpp"
#endif

namespace gigaseg::detail {

// Tuned paths: CUDA kernels for 8-bit images, host loops on OpenMP (medians of every type, Sobel,
// the Gaussian in integers).
template <class ExecSpace, class T>
struct TunedMedian : std::false_type {};
template <class ExecSpace>
struct TunedSobel : std::false_type {};
template <class ExecSpace>
struct TunedGaussian : std::false_type {};
#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
template <>
struct TunedMedian<Kokkos::Cuda, std::uint8_t> : std::true_type {};
template <>
struct TunedSobel<Kokkos::Cuda> : std::true_type {};
#endif
#ifdef KOKKOS_ENABLE_OPENMP
template <class T>
struct TunedMedian<Kokkos::OpenMP, T> : std::true_type {};
template <>
struct TunedSobel<Kokkos::OpenMP> : std::true_type {};
template <>
struct TunedGaussian<Kokkos::OpenMP> : std::true_type {};
#endif

using network::ScalarMinMax;

// Median of the K x K window around (ly, lx) of a scratch tile: sort its columns, select.
template <int K, class T>
KOKKOS_FORCEINLINE_FUNCTION T window_median(ScratchTile<T> const& tile, int ly, int lx) {
  constexpr int r = K / 2;
  T v[K * K];
  for (int c = 0; c < K; ++c)
    for (int i = 0; i < K; ++i) v[c * K + i] = tile.row(ly + i - r)[lx + c - r];
  if constexpr (K == 3) {
    for (int c = 0; c < K; ++c) network::sort3<ScalarMinMax>(v + c * K);
    return network::median9_of_sorted_columns<ScalarMinMax>(v);
  } else {
    for (int c = 0; c < K; ++c) network::sort5<ScalarMinMax>(v + c * K);
    return network::median25_of_sorted_columns<ScalarMinMax>(v);
  }
}

template <int K, class ExecSpace, class T, class Unit = detail::unit_for<ExecSpace>>
void median_portable(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& in,
                     ImageView<T, typename ExecSpace::memory_space> const& out) {
  tiled_stencil<ExecSpace, T>(space, K == 3 ? "gigaseg::median3" : "gigaseg::median5", in, K / 2, K / 2,
                              Border::replicate, T(0),
                              KOKKOS_LAMBDA(ScratchTile<T> const& tile, int ly, int lx0, int lx1, index_t y, index_t x0) {
                                T* const row = out.row(y) + x0 - lx0;
                                for (int lx = lx0; lx < lx1; ++lx) row[lx] = window_median<K>(tile, ly, lx);
                              });
}

// Rounds and saturates a filter's float result to T: half to even as cv::saturate_cast, or half
// up as OpenCV's fixed-point filters.
template <class T>
KOKKOS_INLINE_FUNCTION T saturate_to(float v, bool half_up) {
  if constexpr (std::is_same<T, float>::value) {
    (void)half_up;
    return v;
  } else {
    float const r = half_up ? floorf(v + 0.5f) : rintf(v);
    return r <= 0.0f ? T(0) : r >= 255.0f ? T(255) : T(r);
  }
}

// One separable pass: out = sum_i weights(i) * in at offset i - radius along x (horizontal) or y,
// accumulated in float, converted with saturate_to<U>(half_up).
template <class ExecSpace, class T, class U, class Unit = detail::unit_for<ExecSpace>>
void separable_pass(ExecSpace const& space, char const* label, ImageView<T const, typename ExecSpace::memory_space> const& in,
                    ImageView<U, typename ExecSpace::memory_space> const& out,
                    Kokkos::View<float const*, typename ExecSpace::memory_space> const& weights, bool horizontal,
                    bool half_up) {
  int const radius = int(weights.extent(0) / 2);
  int const taps = int(weights.extent(0));
  constexpr bool on_host = runs_on_host<ExecSpace>();
  tiled_stencil<ExecSpace, float>(
      space, label, in, horizontal ? radius : 0, horizontal ? 0 : radius, Border::reflect101, 0.0f,
      KOKKOS_LAMBDA(ScratchTile<float> const& tile, int ly, int lx0, int lx1, index_t y, index_t x0) {
        U* const row = out.row(y) + x0 - lx0;
        if (on_host) {  // a constant; not `if constexpr`, which nvcc refuses in extended lambdas
          // Tap-major so that the loop over the tile row vectorises.
          float sum[TileShape<ExecSpace>::width];
          for (int lx = lx0; lx < lx1; ++lx) sum[lx] = 0.0f;
          for (int i = 0; i < taps; ++i) {
            float const w = weights(i);
            float const* src = horizontal ? tile.row(ly) + i - radius : tile.row(ly + i - radius);
            for (int lx = lx0; lx < lx1; ++lx) sum[lx] += w * src[lx];
          }
          for (int lx = lx0; lx < lx1; ++lx) row[lx] = saturate_to<U>(sum[lx], half_up);
        } else {
          for (int lx = lx0; lx < lx1; ++lx) {
            float sum = 0.0f;
            for (int i = 0; i < taps; ++i)
              sum += weights(i) * (horizontal ? tile.row(ly)[lx + i - radius] : tile.row(ly + i - radius)[lx]);
            row[lx] = saturate_to<U>(sum, half_up);
          }
        }
      });
}

// A separable filter with the same kernel along x and y.
template <class ExecSpace>
void separable_filter(ExecSpace const& space, char const* label,
                      ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                      ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, std::vector<float> const& kernel,
                      bool half_up) {
  using Memory = typename ExecSpace::memory_space;
  Kokkos::View<float*, Memory> weights("gigaseg::filter::weights", kernel.size());
  auto host = Kokkos::create_mirror_view(weights);
  for (std::size_t i = 0; i < kernel.size(); ++i) host(i) = kernel[i];
  Kokkos::deep_copy(space, weights, host);
  ImageView<float, Memory> rows(std::string(label) + "::rows", in.width(), in.height());
  separable_pass(space, label, in, rows, Kokkos::View<float const*, Memory>(weights), true, half_up);
  separable_pass(space, label, ImageView<float const, Memory>(rows), out, Kokkos::View<float const*, Memory>(weights), false, half_up);
  space.fence();  // `host` must outlive the copy
}

template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void sobel_portable(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                    ImageView<float, typename ExecSpace::memory_space> const& out) {
  tiled_stencil<ExecSpace, float>(space, "gigaseg::sobel", in, 1, 1, Border::reflect101, 0.0f,
                                  KOKKOS_LAMBDA(ScratchTile<float> const& tile, int ly, int lx0, int lx1, index_t y, index_t x0) {
                                    float const* up = tile.row(ly - 1);
                                    float const* mid = tile.row(ly);
                                    float const* down = tile.row(ly + 1);
                                    float* const row = out.row(y) + x0 - lx0;
                                    for (int lx = lx0; lx < lx1; ++lx) {
                                      float const gx = (up[lx + 1] - up[lx - 1]) + 2.0f * (mid[lx + 1] - mid[lx - 1]) +
                                                       (down[lx + 1] - down[lx - 1]);
                                      float const gy = (down[lx - 1] - up[lx - 1]) + 2.0f * (down[lx] - up[lx]) +
                                                       (down[lx + 1] - up[lx + 1]);
                                      row[lx] = sqrtf(gx * gx + gy * gy);
                                    }
                                  });
}

}  // namespace gigaseg::detail

namespace gigaseg {

template <class ExecSpace, class T>
Path median_path(FilterParams const& params) {
  return resolve_path(params.path, detail::TunedMedian<ExecSpace, T>::value, "median");
}

template <class ExecSpace>
Path sobel_path(FilterParams const& params) {
  return resolve_path(params.path, detail::TunedSobel<ExecSpace>::value, "sobel");
}

template <class ExecSpace, class T>
void median(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& in,
            ImageView<T, typename ExecSpace::memory_space> const& out, int size, FilterParams const& params) {
  static_assert(std::is_same<T, std::uint8_t>::value || std::is_same<T, std::uint16_t>::value || std::is_same<T, float>::value,
                "median takes 8-bit, 16-bit or float images");
  GIGASEG_REQUIRE(size == 3 || size == 5, ErrorKind::usage, "--size", "the median's size must be 3 or 5, got " + std::to_string(size));
  detail::require_same_size("median", in.width(), in.height(), out.width(), out.height());
  Path const path = median_path<ExecSpace, T>(params);
  if (in.empty()) return;
  if constexpr (detail::TunedMedian<ExecSpace, T>::value) {
    // The tuned paths return false when their precondition (CUDA: 4-byte-aligned rows) fails.
    if (path == Path::tuned && tuned::median(space, in, out, size)) return;
  }
  (void)path;
  if (size == 3)
    detail::median_portable<3>(space, in, out);
  else
    detail::median_portable<5>(space, in, out);
}

template <class ExecSpace>
void gaussian(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
              ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, GaussianParams const& params) {
  detail::require_same_size("gaussian", in.width(), in.height(), out.width(), out.height());
  int const ksize = gaussian_ksize(params);
  Path const path = resolve_path(params.path, detail::TunedGaussian<ExecSpace>::value, "gaussian");
  if (in.empty()) return;
  std::vector<float> const weights = gaussian_weights(ksize, params.sigma);
#ifdef KOKKOS_ENABLE_OPENMP
  if constexpr (std::is_same<ExecSpace, Kokkos::OpenMP>::value) {
    if (path == Path::tuned && tuned::gaussian(space, in, out, weights)) return;
  }
#endif
  (void)path;
  detail::separable_filter(space, "gigaseg::gaussian", in, out, weights, true);
}

template <class ExecSpace>
void box_filter(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, int size) {
  GIGASEG_REQUIRE(size >= 1 && size % 2 == 1 && size <= 63, ErrorKind::usage, "--size",
                  "the box filter's size must be odd, 1..63, got " + std::to_string(size));
  detail::require_same_size("box_filter", in.width(), in.height(), out.width(), out.height());
  if (in.empty()) return;
  detail::separable_filter(space, "gigaseg::box", in, out, std::vector<float>(std::size_t(size), 1.0f / float(size)), false);
}

template <class ExecSpace>
void sobel_magnitude(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                     ImageView<float, typename ExecSpace::memory_space> const& out, FilterParams const& params) {
  detail::require_same_size("sobel", in.width(), in.height(), out.width(), out.height());
  Path const path = sobel_path<ExecSpace>(params);
  if (in.empty()) return;
  if constexpr (detail::TunedSobel<ExecSpace>::value) {
    if (path == Path::tuned && tuned::sobel_magnitude(space, in, out)) return;
  }
  (void)path;
  detail::sobel_portable(space, in, out);
}

}  // namespace gigaseg
