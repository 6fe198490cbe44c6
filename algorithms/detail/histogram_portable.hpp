#pragma once
// Portable histogram: each team keeps its own sub-histogram in scratch memory (shared memory on
// CUDA, a private buffer per thread on host backends where teams have one thread), counts its rows
// into it with scratch atomics, and merges it into the global counts with one atomic per non-empty
// bin. Global traffic is one read of the image plus league_size x bins atomics.
#include "gigaseg/algorithms/histogram_types.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace gigaseg::detail {

// Identity bins for 8-bit pixels.
struct ByteBins {
  KOKKOS_INLINE_FUNCTION int operator()(std::uint8_t v) const { return v; }
};

// Equal bins over [lo, hi] (see BinRange); -1 for values outside, and for NaN.
struct RangeBins {
  double lo, hi, scale;
  int bins;
  explicit RangeBins(BinRange const& r) : lo(r.lo), hi(r.hi), scale(r.bins / (r.hi - r.lo)), bins(r.bins) {}
  template <class T>
  KOKKOS_INLINE_FUNCTION int operator()(T value) const {
    double const v = double(value);
    if (!(v >= lo && v <= hi)) return -1;  // also false for NaN
    int const b = int((v - lo) * scale);
    return b < bins ? b : bins - 1;
  }
};

template <class ExecSpace, class T, class BinOf, class Unit = detail::unit_for<ExecSpace>>
void histogram_portable(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& image,
                        Counts<typename ExecSpace::memory_space> const& counts, int bins, BinOf bin_of) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<std::uint32_t*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  Kokkos::deep_copy(space, counts, 0);
  if (image.empty()) return;
  index_t const height = image.height(), width = image.width();
  // Enough teams to fill the machine (on a GPU about four teams of AUTO size per multiprocessor),
  // and never so few that a team's 32-bit counters could overflow: a team sees at most
  // ceil(height / league) rows, so at most 2^31 pixels once league > pixels / 2^31.
  index_t league = Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible
                       ? index_t(space.concurrency())
                       : index_t(space.concurrency()) / 256;
  league = std::max<index_t>(league, (image.pixel_count() >> 31) + 1);
  league = std::max<index_t>(1, std::min<index_t>(league, height));
  Policy policy(space, int(league), Kokkos::AUTO);
  policy.set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(bins)));
  Kokkos::parallel_for(
      "gigaseg::histogram[Portable]", policy, KOKKOS_LAMBDA(Member const& member) {
        Scratch local(member.team_scratch(0), bins);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, bins), [&](int b) { local(b) = 0; });
        member.team_barrier();
        for (index_t y = member.league_rank(); y < height; y += member.league_size()) {
          T const* row = image.row(y);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, width), [&](index_t x) {
            int const b = bin_of(row[x]);
            if (b >= 0) Kokkos::atomic_add(&local(b), 1u);  // atomic_increment is gone in Kokkos 5
          });
        }
        member.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, bins), [&](int b) {
          if (local(b) != 0) Kokkos::atomic_add(&counts(b), std::uint64_t(local(b)));
        });
      });
}

}  // namespace gigaseg::detail
