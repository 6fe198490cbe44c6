#pragma once
// Implementation of algorithms/threshold.hpp (instantiated by backends/instantiate/threshold.cpp):
// argument checks, then the portable kernels of algorithms/detail/threshold_portable.hpp through
// the dispatch (no backend has a tuned threshold).
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/dispatch.hpp"
#include "gigaseg/algorithms/detail/threshold_portable.hpp"
#include "gigaseg/algorithms/threshold.hpp"
#include "gigaseg/core/error.hpp"

#include <Kokkos_Core.hpp>

#include <string>

namespace gigaseg {

template <class ExecSpace, class T>
void threshold(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& in,
               ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, double level) {
  detail::require_same_size("threshold", in.width(), in.height(), out.width(), out.height());
  detail::dispatch<ThresholdAlgorithm>(space, Path::automatic,
                                       [&] { detail::threshold_portable(space, in, out, level); });
}

template <class ExecSpace>
void threshold_local_mean(ExecSpace const& space,
                          ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                          ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out,
                          LocalMeanParams const& params) {
  detail::require_same_size("threshold", in.width(), in.height(), out.width(), out.height());
  GIGASEG_REQUIRE(params.block >= 3 && params.block % 2 == 1, ErrorKind::usage, "LocalMeanParams::block",
                  "block size must be odd and at least 3, got " + std::to_string(params.block));
  detail::dispatch<LocalMeanThresholdAlgorithm>(space, Path::automatic,
                                                [&] { detail::threshold_local_mean_portable(space, in, out, params); });
}

}  // namespace gigaseg
