#pragma once
// The loop shape for pixel-independent work: one team per row, the team's threads across the row
// (coalesced on CUDA; on host backends a team is one thread running along the row, which the
// compiler can vectorise). Rows are independent, so any pitch or roi works.
#include "gigaseg/core/image.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

namespace gigaseg::detail {

template <class ExecSpace, class Functor, class Unit = detail::unit_for<ExecSpace>>
void for_each_row_pixel(ExecSpace const& space, char const* label, index_t height, index_t width, Functor f) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  if (height == 0 || width == 0) return;
  Kokkos::parallel_for(
      label, Policy(space, int(height), Kokkos::AUTO), KOKKOS_LAMBDA(typename Policy::member_type const& member) {
        index_t const y = member.league_rank();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, width), [&](index_t x) { f(y, x); });
      });
}

}  // namespace gigaseg::detail
