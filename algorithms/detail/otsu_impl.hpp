#pragma once
// Implementation of algorithms/otsu.hpp (instantiated by backends/instantiate/otsu.cpp): the
// histogram comes from the library's histogram(), the threshold from otsu_bin() on the host.
#include "gigaseg/algorithms/detail/dispatch.hpp"
#include "gigaseg/algorithms/detail/host_arrays.hpp"
#include "gigaseg/algorithms/otsu.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <limits>
#include <vector>

namespace gigaseg {
namespace detail {

// Smallest and largest pixel (NaN ignored); fences `space`.
template <class ExecSpace, class T, class Unit = detail::unit_for<ExecSpace>>
Kokkos::pair<double, double> value_range_portable(ExecSpace const& space,
                                                  ImageView<T const, typename ExecSpace::memory_space> const& image) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  if (image.empty()) return {lo, hi};
  index_t const width = image.width();
  Kokkos::MinMaxScalar<double> result;
  Kokkos::parallel_reduce(
      "gigaseg::value_range", Policy(space, int(image.height()), Kokkos::AUTO),
      KOKKOS_LAMBDA(typename Policy::member_type const& member, Kokkos::MinMaxScalar<double>& extent) {
        T const* row = image.row(member.league_rank());
        Kokkos::MinMaxScalar<double> row_extent;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(member, width),
            [&](index_t x, Kokkos::MinMaxScalar<double>& e) {
              double const v = double(row[x]);
              if (v == v) {  // NaN is skipped
                if (v < e.min_val) e.min_val = v;
                if (v > e.max_val) e.max_val = v;
              }
            },
            Kokkos::MinMax<double>(row_extent));
        Kokkos::single(Kokkos::PerTeam(member), [&] {
          if (row_extent.min_val < extent.min_val) extent.min_val = row_extent.min_val;
          if (row_extent.max_val > extent.max_val) extent.max_val = row_extent.max_val;
        });
      },
      Kokkos::MinMax<double>(result));
  return {result.min_val, result.max_val};
}

}  // namespace detail

template <class ExecSpace>
int otsu_threshold(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& image,
                   HistogramParams const& params) {
  int threshold = 0;
  detail::dispatch<OtsuAlgorithm>(space, Path::automatic, [&] {
    Counts<typename ExecSpace::memory_space> counts("gigaseg::otsu::counts", 256);
    histogram(space, image, counts, params);
    auto const host = detail::to_host_array(space, counts);
    threshold = otsu_bin(host.data(), 256);
  });
  return threshold;
}

template <class ExecSpace, class T>
Kokkos::pair<double, double> value_range(ExecSpace const& space,
                                         ImageView<T const, typename ExecSpace::memory_space> const& image) {
  Kokkos::pair<double, double> range;
  detail::dispatch<ValueRangeAlgorithm>(space, Path::automatic,
                                        [&] { range = detail::value_range_portable(space, image); });
  return range;
}

template <class ExecSpace, class T>
double otsu_threshold(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& image,
                      int bins, HistogramParams const& params) {
  GIGASEG_REQUIRE(bins >= 2, ErrorKind::usage, "otsu_threshold(bins)", "Otsu needs at least 2 bins");
  double threshold = 0;
  detail::dispatch<OtsuAlgorithm>(space, Path::automatic, [&] {
    auto const range = detail::value_range_portable(space, image);
    GIGASEG_REQUIRE(range.first <= range.second, ErrorKind::input, "otsu", "image has no valid (non-NaN) pixel");
    if (range.first == range.second) {
      threshold = range.first;
      return;
    }
    Counts<typename ExecSpace::memory_space> counts("gigaseg::otsu::counts", std::size_t(bins));
    histogram(space, image, counts, BinRange{bins, range.first, range.second}, params);
    auto const host = detail::to_host_array(space, counts);
    int const last_background = otsu_bin(host.data(), bins);
    threshold = range.first + (last_background + 1) * (range.second - range.first) / bins;
  });
  return threshold;
}

}  // namespace gigaseg
