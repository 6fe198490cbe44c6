#pragma once
// Implementation of algorithms/region_stats.hpp.
#include "algorithms/detail/host_arrays.hpp"
#include "core/error.hpp"
#include "core/translation_unit.hpp"
#include "gigaseg_config.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
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

// The tuned path: private accumulators per thread on host spaces (region_stats_host), the kernel of
// backends/cuda/region_stats_cuda.cpp on CUDA.
template <class ExecSpace>
struct TunedRegionStats
    : std::integral_constant<bool, Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible> {};
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

// Accumulates the pixels [begin, end) of a row into `add`, one call per run of one label:
// add(label, area, sum_x, perimeter, sum_i, first_x, last_x, min_i, max_i). A label above
// `largest` sets `bad` and is skipped. A run's pixel edges to its left and right are only at its
// ends; its edges up and down, its intensities, are summed in a plain loop over the run.
template <class T, class Add>
KOKKOS_INLINE_FUNCTION void accumulate_row(Label const* row, Label const* above, Label const* below, T const* values,
                                           index_t begin, index_t end, index_t width, Label largest, Add const& add,
                                           bool& bad) {
  using Sum = unsigned long long;
  index_t x = begin;
  while (x < end) {
    Label const l = row[x];
    index_t stop = x + 1;
    while (stop < end && row[stop] == l) ++stop;
    if (l == 0 || l > largest) {  // background, or a label image that does not match `components`
      bad = bad || l != 0;
      x = stop;
      continue;
    }
    Sum const area = Sum(stop - x);
    Sum perimeter = Sum(x == 0 || row[x - 1] != l) + Sum(stop == width || row[stop] != l);
    Sum sum_i = 0, min_i = ~Sum(0), max_i = 0;
    for (index_t i = x; i < stop; ++i) {
      Sum const v = Sum(values[i]);
      sum_i += v;
      min_i = v < min_i ? v : min_i;
      max_i = v > max_i ? v : max_i;
      perimeter += Sum(above == nullptr || above[i] != l) + Sum(below == nullptr || below[i] != l);
    }
    add(l, area, area * Sum(2 * x + index_t(area) - 1) / 2, perimeter, sum_i, x, stop - 1, min_i, max_i);
    x = stop;
  }
}

// Portable: every thread takes stats_run_pixels of a row and sends each run's sums to the
// accumulators with atomics.
template <class ExecSpace, class T, class Sums, class Flag, class Unit = detail::unit_for<ExecSpace>>
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
        auto add = [&](Label l, Sum area, Sum sum_x, Sum perimeter, Sum sum_i, index_t first_x, index_t last_x, Sum min_i,
                       Sum max_i) {
          Sum* s = &sums(index_t(l - 1) * fields);
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
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, runs_per_row), [&](index_t run) {
          index_t const begin = run * stats_run_pixels;
          index_t const end = begin + stats_run_pixels < width ? begin + stats_run_pixels : width;
          bool bad = false;
          accumulate_row(row, above, below, values, begin, end, width, largest, add, bad);
          if (bad) out_of_range() = 1;
        });
      });
}

// Adds one run's sums to a thread's own accumulators (no atomics). A functor rather than a host
// lambda, so that accumulate_row (host and device) may call it without a compiler warning.
struct PlainAdd {
  unsigned long long* mine;
  unsigned long long y;
  KOKKOS_INLINE_FUNCTION void operator()(Label l, unsigned long long area, unsigned long long sum_x,
                                         unsigned long long perimeter, unsigned long long sum_i, index_t first_x,
                                         index_t last_x, unsigned long long min_i, unsigned long long max_i) const {
    using Sum = unsigned long long;
    Sum* s = mine + std::size_t(l - 1) * stat_fields;
    s[stat_area] += area;
    s[stat_sum_x] += sum_x;
    s[stat_sum_y] += area * y;
    s[stat_perimeter] += perimeter;
    s[stat_sum_intensity] += sum_i;
    s[stat_x0] = Sum(first_x) < s[stat_x0] ? Sum(first_x) : s[stat_x0];
    s[stat_y0] = y < s[stat_y0] ? y : s[stat_y0];
    s[stat_x1] = Sum(last_x) > s[stat_x1] ? Sum(last_x) : s[stat_x1];
    s[stat_y1] = y > s[stat_y1] ? y : s[stat_y1];
    s[stat_min_intensity] = min_i < s[stat_min_intensity] ? min_i : s[stat_min_intensity];
    s[stat_max_intensity] = max_i > s[stat_max_intensity] ? max_i : s[stat_max_intensity];
  }
};

// Host spaces: each thread sums a strip of rows into accumulators of its own (plain adds, no
// atomics), then the threads' copies are combined per component. The portable pass sent 11 atomics
// per run of at most 16 pixels: 94 ms on the 4096^2 tissue mask with 2 threads, where OpenCV's
// connectedComponentsWithStats spends about 40 ms on its statistics. Returns false (the caller
// takes the portable pass) when the copies would take more than 256 MiB.
template <class ExecSpace, class T, class Sums, class Flag>
bool region_stats_host(ExecSpace const& space, ImageView<Label const, typename ExecSpace::memory_space> const& labels,
                       ImageView<T const, typename ExecSpace::memory_space> const& intensity, Label largest,
                       Sums const& sums, Flag const& out_of_range) {
  using Sum = unsigned long long;
  constexpr int fields = stat_fields;
  int const threads = std::max(1, int(space.concurrency()));
  std::size_t const per_thread = std::size_t(largest) * fields;
  if (per_thread * std::size_t(threads) * sizeof(Sum) > (std::size_t(256) << 20)) return false;
  // Left uninitialised here: each thread initialises its own copy (first touch on its core).
  std::unique_ptr<Sum[]> const copies(new Sum[per_thread * std::size_t(threads)]);
  std::vector<char> bad(std::size_t(threads), 0);
  index_t const width = labels.width(), height = labels.height();
  auto is_min = [](int field) { return field == stat_x0 || field == stat_y0 || field == stat_min_intensity; };
  Kokkos::parallel_for(
      "gigaseg::stats::accumulate[Host]", Kokkos::RangePolicy<ExecSpace>(space, 0, threads), [&](int t) {
        Sum* const mine = copies.get() + std::size_t(t) * per_thread;
        for (std::size_t i = 0; i < per_thread; ++i) mine[i] = is_min(int(i % fields)) ? ~Sum(0) : Sum(0);
        bool strip_bad = false;
        for (index_t y = height * t / threads; y < height * (t + 1) / threads; ++y) {
          PlainAdd const add{mine, Sum(y)};
          accumulate_row(labels.row(y), y > 0 ? labels.row(y - 1) : nullptr, y + 1 < height ? labels.row(y + 1) : nullptr,
                         intensity.row(y), index_t(0), width, width, largest, add, strip_bad);
        }
        bad[std::size_t(t)] = strip_bad;
      });
  Kokkos::parallel_for(
      "gigaseg::stats::combine[Host]", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, index_t(per_thread)),
      [&](index_t i) {
        int const field = int(i % fields);
        Sum value = copies[std::size_t(i)];
        for (int t = 1; t < threads; ++t) {
          Sum const other = copies[std::size_t(t) * per_thread + std::size_t(i)];
          value = is_min(field) ? std::min(value, other)
                  : field == stat_x1 || field == stat_y1 || field == stat_max_intensity ? std::max(value, other)
                                                                                          : value + other;
        }
        sums(i) = value;
      });
  space.fence();
  for (char b : bad)
    if (b) out_of_range() = 1;
  return true;
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

template <class ExecSpace, class T, class Unit = detail::unit_for<ExecSpace>>
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
  if constexpr (Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) {
    // The host path writes every accumulator itself: no initialisation pass before it.
    if (resolved == Path::tuned &&
        region_stats_host(space, labels, intensity, Label(components), sums, result.out_of_range))
      return result;
  }
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
  auto const host = detail::to_host_array(space, sums);
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
