#pragma once
// Implementation of algorithms/filters.hpp: validation and the dispatch between the backends'
// tuned filters and the portable ones (algorithms/detail/filters_portable.hpp); instantiated by
// backends/instantiate/filters.cpp, which also sees the backends' specialisations.
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/dispatch.hpp"
#include "gigaseg/algorithms/detail/filters_portable.hpp"
#include "gigaseg/algorithms/filters.hpp"
#include "gigaseg/core/error.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace gigaseg {

template <class ExecSpace, class T>
Path median_path(FilterParams const& params) {
  return resolved_path<MedianAlgorithm<T>, ExecSpace>(params.path);
}

template <class ExecSpace>
Path sobel_path(FilterParams const& params) {
  return resolved_path<SobelAlgorithm, ExecSpace>(params.path);
}

template <class ExecSpace, class T>
void median(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& in,
            ImageView<T, typename ExecSpace::memory_space> const& out, int size, FilterParams const& params) {
  static_assert(
      std::is_same<T, std::uint8_t>::value || std::is_same<T, std::uint16_t>::value || std::is_same<T, float>::value,
      "median takes 8-bit, 16-bit or float images");
  GIGASEG_REQUIRE(size == 3 || size == 5, ErrorKind::usage, "median(size)",
                  "the median's size must be 3 or 5, got " + std::to_string(size));
  detail::require_same_size("median", in.width(), in.height(), out.width(), out.height());
  if (in.empty()) {
    (void)median_path<ExecSpace, T>(params);  // still validates a forced path
    return;
  }
  // The tuned paths return false when their precondition (CUDA: 4-byte-aligned rows) fails.
  detail::dispatch<MedianAlgorithm<T>>(
      space, params.path,
      [&] {
        if (size == 3)
          detail::median_portable<3>(space, in, out);
        else
          detail::median_portable<5>(space, in, out);
      },
      in, out, size);
}

template <class ExecSpace>
void gaussian(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
              ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, GaussianParams const& params) {
  detail::require_same_size("gaussian", in.width(), in.height(), out.width(), out.height());
  int const ksize = gaussian_ksize(params);
  if (in.empty()) {
    (void)resolved_path<GaussianAlgorithm, ExecSpace>(params.path);  // still validates a forced path
    return;
  }
  std::vector<float> const weights = gaussian_weights(ksize, params.sigma);
  detail::dispatch<GaussianAlgorithm>(
      space, params.path, [&] { detail::separable_filter(space, "gigaseg::gaussian", in, out, weights, true); }, in,
      out, weights);
}

template <class ExecSpace>
void box_filter(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, int size) {
  GIGASEG_REQUIRE(size >= 1 && size % 2 == 1 && size <= 63, ErrorKind::usage, "box_filter(size)",
                  "the box filter's size must be odd, 1..63, got " + std::to_string(size));
  detail::require_same_size("box_filter", in.width(), in.height(), out.width(), out.height());
  if (in.empty()) return;
  std::vector<float> const weights(std::size_t(size), 1.0f / float(size));
  detail::dispatch<BoxFilterAlgorithm>(
      space, Path::automatic, [&] { detail::separable_filter(space, "gigaseg::box", in, out, weights, false); });
}

template <class ExecSpace>
void sobel_magnitude(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                     ImageView<float, typename ExecSpace::memory_space> const& out, FilterParams const& params) {
  detail::require_same_size("sobel", in.width(), in.height(), out.width(), out.height());
  if (in.empty()) {
    (void)sobel_path<ExecSpace>(params);  // still validates a forced path
    return;
  }
  detail::dispatch<SobelAlgorithm>(
      space, params.path, [&] { detail::sobel_portable(space, in, out); }, in, out);
}

}  // namespace gigaseg
