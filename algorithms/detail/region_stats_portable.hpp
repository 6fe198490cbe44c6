#pragma once
// The portable region statistics of algorithms/region_stats.hpp and what the tuned backends share
// with it: the accumulator layout (components x stat_fields, unsigned 64-bit), their
// initialisation, and the walk over the runs of a row. No dispatch: backends/cuda/ and
// backends/openmp/ include it.
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

namespace gigaseg::detail {

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

// Every accumulator to its starting value: ~0 for the minima, 0 for the rest. Enqueued on `space`.
template <class ExecSpace, class Sums, class Unit = detail::unit_for<ExecSpace>>
void init_region_sums(ExecSpace const& space, Sums const& sums) {
  using Sum = unsigned long long;
  constexpr int fields = stat_fields;
  Kokkos::parallel_for(
      "gigaseg::stats::init",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, index_t(sums.extent(0))),
      KOKKOS_LAMBDA(index_t i) {
        int const field = int(i % fields);
        bool const is_min = field == stat_x0 || field == stat_y0 || field == stat_min_intensity;
        sums(i) = is_min ? ~Sum(0) : Sum(0);
      });
}

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
        auto add = [&](Label l, Sum area, Sum sum_x, Sum perimeter, Sum sum_i, index_t first_x, index_t last_x,
                       Sum min_i, Sum max_i) {
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

}  // namespace gigaseg::detail
