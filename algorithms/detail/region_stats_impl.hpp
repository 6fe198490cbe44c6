#pragma once
// Implementation of algorithms/region_stats.hpp: the accumulators on the backend, filled by the
// backend's tuned pass or the portable one through the dispatch, then the table on the host
// (instantiated by backends/instantiate/region_stats.cpp, which also sees the backends'
// specialisations).
#include "gigaseg/algorithms/detail/dispatch.hpp"
#include "gigaseg/algorithms/detail/host_arrays.hpp"
#include "gigaseg/algorithms/detail/region_stats_portable.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace gigaseg {

template <class ExecSpace>
Path region_stats_path(Path requested) {
  return resolved_path<RegionStatsAlgorithm, ExecSpace>(requested);
}

namespace detail {

// The per-component accumulators on the backend (components x stat_fields) and the flag of a label
// above `components`: the device half of region_stats(), without the copy to the host.
template <class Memory>
struct RegionSums {
  Kokkos::View<unsigned long long*, Memory> sums;
  Kokkos::View<int, Memory> out_of_range;
};

// A tuned pass (Tuned<RegionStatsAlgorithm, ExecSpace>::run) writes every accumulator itself (no
// initialisation pass before it); the portable pass initialises them first.
template <class ExecSpace, class T, class Unit = detail::unit_for<ExecSpace>>
RegionSums<typename ExecSpace::memory_space> region_sums(
    ExecSpace const& space, ImageView<Label const, typename ExecSpace::memory_space> const& labels, index_t components,
    ImageView<T const, typename ExecSpace::memory_space> const& intensity, Path path) {
  using Memory = typename ExecSpace::memory_space;
  using Sum = unsigned long long;
  constexpr int fields = stat_fields;
  RegionSums<Memory> result{
      Kokkos::View<Sum*, Memory>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gigaseg::stats::sums"),
                                 std::size_t(components) * fields),
      Kokkos::View<int, Memory>("gigaseg::stats::out_of_range")};
  auto const& sums = result.sums;
  auto const& out_of_range = result.out_of_range;
  Label const largest = Label(components);
  detail::dispatch<RegionStatsAlgorithm>(
      space, path,
      [&] {
        init_region_sums(space, sums);
        region_stats_portable(space, labels, intensity, largest, sums, out_of_range);
      },
      labels, intensity, largest, sums, out_of_range);
  return result;
}

}  // namespace detail

template <class ExecSpace, class T>
std::vector<RegionTotals> region_totals(ExecSpace const& space,
                                        ImageView<Label const, typename ExecSpace::memory_space> const& labels,
                                        index_t components,
                                        ImageView<T const, typename ExecSpace::memory_space> const& intensity,
                                        Path path) {
  static_assert(std::is_same<T, std::uint8_t>::value || std::is_same<T, std::uint16_t>::value,
                "region_stats() and region_totals() take an 8- or 16-bit intensity image");
  GIGASEG_REQUIRE(labels.width() == intensity.width() && labels.height() == intensity.height(), ErrorKind::input,
                  "region statistics", "the label and intensity images differ in size");
  GIGASEG_REQUIRE(components >= 0, ErrorKind::usage, "region statistics", "negative component count");
  (void)region_stats_path<ExecSpace>(path);  // validates a forced path
  std::vector<RegionTotals> table(static_cast<std::size_t>(components));
  if (components == 0 || labels.empty()) return table;
  constexpr int fields = detail::stat_fields;
  using Sum = unsigned long long;
  auto const [sums, out_of_range] = detail::region_sums(space, labels, components, intensity, path);
  auto const host = detail::to_host_array(space, sums);
  int bad = 0;
  Kokkos::deep_copy(space, bad, out_of_range);
  space.fence();
  GIGASEG_REQUIRE(bad == 0, ErrorKind::input, "region statistics",
                  "the label image has labels above the component count " + std::to_string(components));
  for (index_t c = 0; c < components; ++c) {
    Sum const* s = &host(c * fields);
    RegionTotals& r = table[std::size_t(c)];
    r.area = s[detail::stat_area];
    if (r.area == 0) continue;  // a label with no pixels (not produced by label())
    r.sum_x = s[detail::stat_sum_x];
    r.sum_y = s[detail::stat_sum_y];
    r.perimeter = s[detail::stat_perimeter];
    r.sum_intensity = s[detail::stat_sum_intensity];
    r.x0 = s[detail::stat_x0];
    r.y0 = s[detail::stat_y0];
    r.x1 = s[detail::stat_x1];
    r.y1 = s[detail::stat_y1];
    r.min_intensity = s[detail::stat_min_intensity];
    r.max_intensity = s[detail::stat_max_intensity];
  }
  return table;
}

template <class ExecSpace, class T>
std::vector<RegionStats> region_stats(ExecSpace const& space,
                                      ImageView<Label const, typename ExecSpace::memory_space> const& labels,
                                      index_t components,
                                      ImageView<T const, typename ExecSpace::memory_space> const& intensity,
                                      Path path) {
  std::vector<RegionTotals> const totals = region_totals(space, labels, components, intensity, path);
  std::vector<RegionStats> table(totals.size());
  for (std::size_t c = 0; c < totals.size(); ++c) table[c] = totals[c].stats(Label(c + 1));
  return table;
}

}  // namespace gigaseg
