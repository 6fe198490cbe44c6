#pragma once
// Otsu's threshold. Deterministic on every backend and run: the histogram is an exact integer
// count (any path), and T is computed from it on the host in one fixed order.
//  - 8-bit: T identical to cv::threshold(..., THRESH_BINARY | THRESH_OTSU); foreground = pixel > T.
//    An image of one value has no between-class variance anywhere: T = 0, as OpenCV returns.
//  - 16-bit and float: an N-bin histogram over [min, max] (default 256 bins), the same criterion on
//    bin indices; T is the upper edge of the last background bin, so foreground = pixel > T.
//    An image of one value gives T = that value (everything background).
#include "gigaseg/algorithms/histogram.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace gigaseg {

// The tags of otsu_threshold() and value_range() in the dispatch (algorithms/detail/dispatch.hpp);
// no backend has a tuned path for either.
struct OtsuAlgorithm {
  static constexpr char const* name = "otsu";
};
struct ValueRangeAlgorithm {
  static constexpr char const* name = "value_range";
};

// Index of the last background bin by OpenCV's rule (first maximum of the between-class variance
// q1 q2 (mu1 - mu2)^2, computed in double as getThreshVal_Otsu_8u does); 0 if none.
int otsu_bin(std::uint64_t const* counts, int bins);

// Returns T; fences `space`. The histogram takes params.path.
template <class ExecSpace>
int otsu_threshold(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& image,
                   HistogramParams const& params = {});

template <class ExecSpace, class T>
double otsu_threshold(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& image,
                      int bins = 256, HistogramParams const& params = {});

// Smallest and largest pixel (NaN ignored); fences `space`.
template <class ExecSpace, class T>
Kokkos::pair<double, double> value_range(ExecSpace const& space,
                                         ImageView<T const, typename ExecSpace::memory_space> const& image);

// otsu_bin() is defined in algorithms/otsu.cpp; the templates in the library
// (algorithms/detail/otsu_impl.hpp) for every enabled execution space and 8-bit, 16-bit and float
// images (backends/instantiate/otsu.cpp).
// Non-const images, the same calls (the binned form takes its bin count explicitly here, so that
// an 8-bit image without one still takes the 8-bit form above).
template <class ExecSpace, class T, if_mutable<T> = 0>
double otsu_threshold(ExecSpace const& space, ImageView<T, typename ExecSpace::memory_space> const& image, int bins,
                      HistogramParams const& params = {}) {
  return otsu_threshold(space, ImageView<T const, typename ExecSpace::memory_space>(image), bins, params);
}
template <class ExecSpace, class T, if_mutable<T> = 0>
Kokkos::pair<double, double> value_range(ExecSpace const& space,
                                         ImageView<T, typename ExecSpace::memory_space> const& image) {
  return value_range(space, ImageView<T const, typename ExecSpace::memory_space>(image));
}

}  // namespace gigaseg
