#pragma once
// Implementation of algorithms/histogram.hpp: the dispatch of the 8-bit histogram to the tuned
// backends, else the portable path (instantiated by backends/instantiate/histogram.cpp, which also
// sees the backends' specialisations).
#include "gigaseg/algorithms/detail/dispatch.hpp"
#include "gigaseg/algorithms/detail/histogram_portable.hpp"
#include "gigaseg/algorithms/histogram.hpp"
#include "gigaseg/core/error.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>
#include <string>
#include <type_traits>

namespace gigaseg {
namespace detail {

inline void require_bins(std::size_t have, int need) {
  GIGASEG_REQUIRE(have >= std::size_t(need), ErrorKind::usage, "histogram",
                  "counts has " + std::to_string(have) + " entries, " + std::to_string(need) + " needed");
}

}  // namespace detail

template <class ExecSpace>
Path histogram_path(HistogramParams const& params) {
  return resolved_path<HistogramAlgorithm, ExecSpace>(params.path);
}

template <class ExecSpace>
void histogram(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& image,
               Counts<typename ExecSpace::memory_space> const& counts, HistogramParams const& params) {
  detail::require_bins(counts.extent(0), 256);
  // The tuned kernels return false when a precondition (such as 16-byte-aligned rows) fails.
  detail::dispatch<HistogramAlgorithm>(
      space, params.path, [&] { detail::histogram_portable(space, image, counts, 256, detail::ByteBins{}); }, image,
      counts);
}

template <class ExecSpace, class T>
void histogram(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& image,
               Counts<typename ExecSpace::memory_space> const& counts, BinRange const& range,
               HistogramParams const& params) {
  static_assert(
      std::is_same<T, std::uint8_t>::value || std::is_same<T, std::uint16_t>::value || std::is_same<T, float>::value,
      "binned histograms take 8-bit, 16-bit or float images");
  GIGASEG_REQUIRE(range.bins >= 1 && range.bins <= (1 << 20), ErrorKind::usage, "BinRange::bins",
                  "must be between 1 and 1048576");
  GIGASEG_REQUIRE(std::isfinite(range.lo) && std::isfinite(range.hi), ErrorKind::usage, "BinRange::hi",
                  "LO and HI must be finite numbers");
  GIGASEG_REQUIRE(range.hi > range.lo, ErrorKind::usage, "BinRange::hi", "HI must be greater than LO");
  detail::require_bins(counts.extent(0), range.bins);
  (void)histogram_path<ExecSpace>(params);  // validates a forced path
  // Binned histograms have only the portable path: for 16-bit and float data the bin arithmetic,
  // not the counting, dominates, and it is the same code either way.
  detail::dispatch<BinnedHistogramAlgorithm>(space, Path::automatic, [&] {
    detail::histogram_portable(space, image, counts, range.bins, detail::RangeBins(range));
  });
}

}  // namespace gigaseg
