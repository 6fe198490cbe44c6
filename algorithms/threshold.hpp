#pragma once
// Thresholds producing 8-bit masks (255 foreground, 0 background):
//  - threshold: foreground where pixel > level (any single-channel type). The 8-bit version
//    moves 16 bytes per thread when rows allow (see detail/threshold_portable.hpp).
//  - threshold_local_mean: foreground where pixel > mean(B x B window, border replicate) - C,
//    identical to cv::adaptiveThreshold(ADAPTIVE_THRESH_MEAN_C, THRESH_BINARY, B, C) for 8-bit.
//  - Otsu: algorithms/otsu.hpp.
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace gigaseg {

// The tags of threshold() and threshold_local_mean() in the dispatch
// (algorithms/detail/dispatch.hpp); no backend has a tuned path for either.
struct ThresholdAlgorithm {
  static constexpr char const* name = "threshold";
};
struct LocalMeanThresholdAlgorithm {
  static constexpr char const* name = "threshold_local_mean";
};

template <class ExecSpace, class T>
void threshold(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& in,
               ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, double level);

struct LocalMeanParams {
  int block = 11;  // odd window side B >= 3
  double c = 2.0;  // the constant subtracted from the mean
};

template <class ExecSpace>
void threshold_local_mean(ExecSpace const& space,
                          ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                          ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out,
                          LocalMeanParams const& params);

// Defined in the library (algorithms/detail/threshold_impl.hpp) for every enabled execution space;
// threshold() for 8-, 16- and 32-bit unsigned and float images (backends/instantiate/threshold.cpp).
// A non-const image, the same call.
template <class ExecSpace, class T, if_mutable<T> = 0>
void threshold(ExecSpace const& space, ImageView<T, typename ExecSpace::memory_space> const& in,
               ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, double level) {
  threshold(space, ImageView<T const, typename ExecSpace::memory_space>(in), out, level);
}

}  // namespace gigaseg
