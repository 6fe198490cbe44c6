// Host region statistics for the OpenMP backend (see region_stats_openmp.hpp).
#include "gigaseg/backends/openmp/region_stats_openmp.hpp"

#include "gigaseg/algorithms/detail/region_stats_portable.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace gigaseg::tuned {
namespace {

using detail::accumulate_row;
using detail::PlainAdd;
using detail::stat_fields;
using detail::stat_max_intensity;
using detail::stat_min_intensity;
using detail::stat_x0;
using detail::stat_x1;
using detail::stat_y0;
using detail::stat_y1;
using Sums = Kokkos::View<unsigned long long*, Kokkos::HostSpace>;
using Flag = Kokkos::View<int, Kokkos::HostSpace>;

// Each thread sums a strip of rows into accumulators of its own (plain adds, no
// atomics), then the threads' copies are combined per component. The portable pass sent 11 atomics
// per run of at most 16 pixels: 94 ms on the 4096^2 tissue mask with 2 threads, where OpenCV's
// connectedComponentsWithStats spends about 40 ms on its statistics. Returns false (the caller
// takes the portable pass) when the copies would take more than 256 MiB.
template <class T>
bool region_stats_host(Kokkos::OpenMP const& space, ImageView<Label const, Kokkos::HostSpace> const& labels,
                       ImageView<T const, Kokkos::HostSpace> const& intensity, Label largest, Sums const& sums,
                       Flag const& out_of_range) {
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
  Kokkos::parallel_for("gigaseg::stats::accumulate[Host]", Kokkos::RangePolicy<Kokkos::OpenMP>(space, 0, threads),
                       [&](int t) {
                         Sum* const mine = copies.get() + std::size_t(t) * per_thread;
                         for (std::size_t i = 0; i < per_thread; ++i)
                           mine[i] = is_min(int(i % fields)) ? ~Sum(0) : Sum(0);
                         bool strip_bad = false;
                         for (index_t y = height * t / threads; y < height * (t + 1) / threads; ++y) {
                           PlainAdd const add{mine, Sum(y)};
                           accumulate_row(labels.row(y), y > 0 ? labels.row(y - 1) : nullptr,
                                          y + 1 < height ? labels.row(y + 1) : nullptr, intensity.row(y), index_t(0),
                                          width, width, largest, add, strip_bad);
                         }
                         bad[std::size_t(t)] = strip_bad;
                       });
  Kokkos::parallel_for(
      "gigaseg::stats::combine[Host]",
      Kokkos::RangePolicy<Kokkos::OpenMP, Kokkos::IndexType<index_t>>(space, 0, index_t(per_thread)), [&](index_t i) {
        int const field = int(i % fields);
        Sum value = copies[std::size_t(i)];
        for (int t = 1; t < threads; ++t) {
          Sum const other = copies[std::size_t(t) * per_thread + std::size_t(i)];
          value = is_min(field)                                                         ? std::min(value, other)
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

}  // namespace

bool region_stats(Kokkos::OpenMP const& space, ImageView<Label const, Kokkos::HostSpace> const& labels,
                  ImageView<std::uint8_t const, Kokkos::HostSpace> const& intensity, Label largest,
                  Kokkos::View<unsigned long long*, Kokkos::HostSpace> const& sums,
                  Kokkos::View<int, Kokkos::HostSpace> const& out_of_range) {
  return region_stats_host(space, labels, intensity, largest, sums, out_of_range);
}

bool region_stats(Kokkos::OpenMP const& space, ImageView<Label const, Kokkos::HostSpace> const& labels,
                  ImageView<std::uint16_t const, Kokkos::HostSpace> const& intensity, Label largest,
                  Kokkos::View<unsigned long long*, Kokkos::HostSpace> const& sums,
                  Kokkos::View<int, Kokkos::HostSpace> const& out_of_range) {
  return region_stats_host(space, labels, intensity, largest, sums, out_of_range);
}

}  // namespace gigaseg::tuned
