#pragma once
// Implementation of algorithms/region_stats.hpp.
#include "core/error.hpp"
#include "gigaseg_config.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
#include "backends/cuda/region_stats_cuda.hpp"
#endif

namespace gigaseg {
namespace detail {

// Accumulators of one component, unsigned 64-bit each.
enum StatField : int {
  stat_area,
  stat_sum_x,
  stat_sum_y,
  stat_perimeter,
  stat_sum_intensity,
  stat_x0,
  stat_y0,
  stat_x1,
  stat_y1,
  stat_min_intensity,
  stat_max_intensity,
  stat_fields
};

// Pixels a thread takes in a row: its run sums go to the accumulators once per change of label.
constexpr int stats_run_pixels = 16;

template <class ExecSpace>
struct TunedRegionStats : std::false_type {};
#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
template <>
struct TunedRegionStats<Kokkos::Cuda> : std::true_type {};
#endif

}  // namespace detail

template <class ExecSpace>
Path region_stats_path(Path requested) {
  return resolve_path(requested, detail::TunedRegionStats<ExecSpace>::value, "region statistics");
}

namespace detail {

template <class ExecSpace, class T, class Sums, class Flag>
void region_stats_portable(ExecSpace const& space,
                           ImageView<Label const, typename ExecSpace::memory_space> const& labels,
                           ImageView<T const, typename ExecSpace::memory_space> const& intensity, Label largest,
                           Sums const& sums, Flag const& out_of_range) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Sum = unsigned long long;
  constexpr int fields = stat_fields;
  index_t const width = labels.width(), height = labels.height();
  index_t const runs_per_row = (width + stats_run_pixels - 1) / stats_run_pixels;
  Kokkos::parallel_for(
      "gigaseg::stats::accumulate", Policy(space, int(height), Kokkos::AUTO), KOKKOS_LAMBDA(Member const& member) {
        index_t const y = member.league_rank();
        Label const* row = labels.row(y);
        Label const* above = y > 0 ? labels.row(y - 1) : nullptr;
        Label const* below = y + 1 < height ? labels.row(y + 1) : nullptr;
        T const* values = intensity.row(y);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, runs_per_row), [&](index_t run) {
          index_t const begin = run * stats_run_pixels;
          index_t const end = begin + stats_run_pixels < width ? begin + stats_run_pixels : width;
          Label current = 0;
          index_t first_x = 0, last_x = 0;
          Sum area = 0, sum_x = 0, perimeter = 0, sum_i = 0, min_i = 0, max_i = 0;
          auto flush = [&]() {
            if (current == 0) return;
            Sum* s = &sums(index_t(current - 1) * fields);
            Kokkos::atomic_add(&s[stat_area], area);
            Kokkos::atomic_add(&s[stat_sum_x], sum_x);
            Kokkos::atomic_add(&s[stat_sum_y], area * Sum(y));
            Kokkos::atomic_add(&s[stat_perimeter], perimeter);
            Kokkos::atomic_add(&s[stat_sum_intensity], sum_i);
            Kokkos::atomic_fetch_min(&s[stat_x0], Sum(first_x));
            Kokkos::atomic_fetch_min(&s[stat_y0], Sum(y));
            Kokkos::atomic_fetch_max(&s[stat_x1], Sum(last_x));
            Kokkos::atomic_fetch_max(&s[stat_y1], Sum(y));
            Kokkos::atomic_fetch_min(&s[stat_min_intensity], min_i);
            Kokkos::atomic_fetch_max(&s[stat_max_intensity], max_i);
          };
          for (index_t x = begin; x < end; ++x) {
            Label const l = row[x];
            if (l != current) {
              flush();
              current = l;
              first_x = x;
              area = sum_x = perimeter = sum_i = 0;
              min_i = ~Sum(0);
              max_i = 0;
            }
            if (l == 0) continue;
            if (l > largest) {  // a label image that does not match `components`
              out_of_range() = 1;
              current = 0;
              continue;
            }
            Sum const v = Sum(values[x]);
            last_x = x;
            ++area;
            sum_x += Sum(x);
            sum_i += v;
            min_i = v < min_i ? v : min_i;
            max_i = v > max_i ? v : max_i;
            perimeter += Sum(above == nullptr || above[x] != l) + Sum(below == nullptr || below[x] != l) +
                         Sum(x == 0 || row[x - 1] != l) + Sum(x + 1 == width || row[x + 1] != l);
          }
          flush();
        });
      });
}

}  // namespace detail

namespace detail {

// The per-component accumulators on the backend (components x stat_fields) and the flag of a label
// above `components`: the device half of region_stats(), without the copy to the host.
template <class Memory>
struct RegionSums {
  Kokkos::View<unsigned long long*, Memory> sums;
  Kokkos::View<int, Memory> out_of_range;
};

template <class ExecSpace, class T>
RegionSums<typename ExecSpace::memory_space> region_sums(
    ExecSpace const& space, ImageView<Label const, typename ExecSpace::memory_space> const& labels, index_t components,
    ImageView<T const, typename ExecSpace::memory_space> const& intensity, Path path) {
  using Memory = typename ExecSpace::memory_space;
  using Sum = unsigned long long;
  constexpr int fields = stat_fields;
  Path const resolved = region_stats_path<ExecSpace>(path);
  RegionSums<Memory> result{
      Kokkos::View<Sum*, Memory>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gigaseg::stats::sums"),
                                 std::size_t(components) * fields),
      Kokkos::View<int, Memory>("gigaseg::stats::out_of_range")};
  auto const sums = result.sums;
  Kokkos::parallel_for(
      "gigaseg::stats::init", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, components * fields),
      KOKKOS_LAMBDA(index_t i) {
        int const field = int(i % fields);
        bool const is_min = field == stat_x0 || field == stat_y0 || field == stat_min_intensity;
        sums(i) = is_min ? ~Sum(0) : Sum(0);
      });
  if (resolved == Path::tuned) {
#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
    if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
      tuned::region_stats(space, labels, components, intensity, sums.data(), result.out_of_range.data());
      return result;
    }
#endif
  }
  region_stats_portable(space, labels, intensity, Label(components), sums, result.out_of_range);
  return result;
}

}  // namespace detail

template <class ExecSpace, class T>
std::vector<RegionStats> region_stats(ExecSpace const& space,
                                      ImageView<Label const, typename ExecSpace::memory_space> const& labels,
                                      index_t components,
                                      ImageView<T const, typename ExecSpace::memory_space> const& intensity,
                                      Path path) {
  static_assert(std::is_same<T, std::uint8_t>::value || std::is_same<T, std::uint16_t>::value,
                "region_stats() takes an 8- or 16-bit intensity image");
  GIGASEG_REQUIRE(labels.width() == intensity.width() && labels.height() == intensity.height(), ErrorKind::input,
                  "region statistics", "the label and intensity images differ in size");
  GIGASEG_REQUIRE(components >= 0, ErrorKind::usage, "region statistics", "negative component count");
  (void)region_stats_path<ExecSpace>(path);  // validates a forced path
  std::vector<RegionStats> table(static_cast<std::size_t>(components));
  if (components == 0 || labels.empty()) return table;
  constexpr int fields = detail::stat_fields;
  using Sum = unsigned long long;
  auto const [sums, out_of_range] = detail::region_sums(space, labels, components, intensity, path);
  auto host = Kokkos::create_mirror_view(sums);
  Kokkos::deep_copy(space, host, sums);
  int bad = 0;
  Kokkos::deep_copy(space, bad, out_of_range);
  space.fence();
  GIGASEG_REQUIRE(bad == 0, ErrorKind::input, "region statistics",
                  "the label image has labels above the component count " + std::to_string(components));
  for (index_t c = 0; c < components; ++c) {
    Sum const* s = &host(c * fields);
    RegionStats& r = table[std::size_t(c)];
    r.label = Label(c + 1);
    r.area = index_t(s[detail::stat_area]);
    if (r.area == 0) continue;  // a label with no pixels (not produced by label())
    r.x0 = index_t(s[detail::stat_x0]);
    r.y0 = index_t(s[detail::stat_y0]);
    r.x1 = index_t(s[detail::stat_x1]);
    r.y1 = index_t(s[detail::stat_y1]);
    r.cx = double(s[detail::stat_sum_x]) / double(r.area);
    r.cy = double(s[detail::stat_sum_y]) / double(r.area);
    r.perimeter = index_t(s[detail::stat_perimeter]);
    r.mean_intensity = double(s[detail::stat_sum_intensity]) / double(r.area);
    r.min_intensity = double(s[detail::stat_min_intensity]);
    r.max_intensity = double(s[detail::stat_max_intensity]);
  }
  return table;
}

}  // namespace gigaseg
