#pragma once
// The portable implementation of algorithms/filters.hpp (dispatched by algorithms/detail/filters_impl.hpp).
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/median_networks.hpp"
#include "gigaseg/algorithms/detail/stencil.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace gigaseg::detail {

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
  tiled_stencil<ExecSpace, T>(
      space, K == 3 ? "gigaseg::median3" : "gigaseg::median5", in, K / 2, K / 2, Border::replicate, T(0),
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
void separable_pass(ExecSpace const& space, char const* label,
                    ImageView<T const, typename ExecSpace::memory_space> const& in,
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
                      ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out,
                      std::vector<float> const& kernel, bool half_up) {
  using Memory = typename ExecSpace::memory_space;
  Kokkos::View<float*, Memory> weights("gigaseg::filter::weights", kernel.size());
  auto host = Kokkos::create_mirror_view(weights);
  for (std::size_t i = 0; i < kernel.size(); ++i) host(i) = kernel[i];
  Kokkos::deep_copy(space, weights, host);
  ImageView<float, Memory> rows(std::string(label) + "::rows", in.width(), in.height());
  separable_pass(space, label, in, rows, Kokkos::View<float const*, Memory>(weights), true, half_up);
  separable_pass(space, label, ImageView<float const, Memory>(rows), out, Kokkos::View<float const*, Memory>(weights),
                 false, half_up);
  space.fence();  // `host` must outlive the copy
}

template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void sobel_portable(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                    ImageView<float, typename ExecSpace::memory_space> const& out) {
  tiled_stencil<ExecSpace, float>(
      space, "gigaseg::sobel", in, 1, 1, Border::reflect101, 0.0f,
      KOKKOS_LAMBDA(ScratchTile<float> const& tile, int ly, int lx0, int lx1, index_t y, index_t x0) {
        float const* up = tile.row(ly - 1);
        float const* mid = tile.row(ly);
        float const* down = tile.row(ly + 1);
        float* const row = out.row(y) + x0 - lx0;
        for (int lx = lx0; lx < lx1; ++lx) {
          float const gx =
              (up[lx + 1] - up[lx - 1]) + 2.0f * (mid[lx + 1] - mid[lx - 1]) + (down[lx + 1] - down[lx - 1]);
          float const gy = (down[lx - 1] - up[lx - 1]) + 2.0f * (down[lx] - up[lx]) + (down[lx + 1] - up[lx + 1]);
          row[lx] = sqrtf(gx * gx + gy * gy);
        }
      });
}

}  // namespace gigaseg::detail
