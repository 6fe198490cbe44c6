#pragma once
// Portable pieces of algorithms/markers.hpp (algorithms/detail/markers_impl.hpp): the tile
// relaxations of distance_markers()'s two propagations and the relabelling.
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/host_arrays.hpp"
#include "gigaseg/algorithms/detail/pixelwise.hpp"
#include "gigaseg/algorithms/detail/relaxation.hpp"
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/scratch.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace gigaseg::detail {

// Calls f(ny, nx) for the neighbours of (y, x) inside the image (8, or the 4 edge neighbours).
template <class F>
KOKKOS_INLINE_FUNCTION void for_neighbours(index_t y, index_t x, index_t height, index_t width, bool eight,
                                           F const& f) {
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      if ((dy == 0 && dx == 0) || (!eight && dy != 0 && dx != 0)) continue;
      index_t const ny = y + dy, nx = x + dx;
      if (ny >= 0 && ny < height && nx >= 0 && nx < width) f(ny, nx);
    }
}

// Whether (y, x) is on the ring of a width x height tile-and-ring image (`ringed`: the ring's
// pixels are held fixed, the tile engine's rounds; else there is no ring).
KOKKOS_INLINE_FUNCTION bool on_fixed_ring(bool ringed, index_t y, index_t x, index_t height, index_t width) {
  return ringed && (y == 0 || x == 0 || y == height - 1 || x == width - 1);
}

// The portable reconstruction by dilation of rec (<= distance) under `distance` over its
// foreground: a tile relaxation to the fixpoint. `ringed`: the outer ring of pixels is fixed.
template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void reconstruct_portable(ExecSpace const& space,
                          ImageView<float const, typename ExecSpace::memory_space> const& distance,
                          ImageView<float, typename ExecSpace::memory_space> const& rec, bool eight,
                          bool ringed = false) {
  index_t const width = distance.width(), height = distance.height();
  detail::relax_to_fixpoint(
      space, "gigaseg::markers::reconstruct", rec,
      KOKKOS_LAMBDA(index_t y, index_t x, float own, detail::TileAccess<float> const& at) {
        float const d = distance(y, x);
        if (d <= 0 || on_fixed_ring(ringed, y, x, height, width)) return own;
        float best = own;
        // Background neighbours hold `lowest` and never raise `best`.
        detail::for_neighbours(y, x, height, width, eight, [&](index_t ny, index_t nx) {
          float const v = at(ny, nx) < d ? at(ny, nx) : d;
          best = v > best ? v : best;
        });
        return best;
      });
}

// The portable spread of `lower` over the plateaus of rec_c (foreground pixels of equal value):
// a tile relaxation to the fixpoint. `ringed`: the outer ring of pixels is fixed.
template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void spread_over_plateaus_portable(ExecSpace const& space,
                                   ImageView<float const, typename ExecSpace::memory_space> const& rec_c,
                                   ImageView<std::uint8_t, typename ExecSpace::memory_space> const& lower, bool eight,
                                   bool ringed = false) {
  index_t const width = rec_c.width(), height = rec_c.height();
  detail::relax_to_fixpoint(
      space, "gigaseg::markers::plateaus", lower,
      KOKKOS_LAMBDA(index_t y, index_t x, std::uint8_t own, detail::TileAccess<std::uint8_t> const& at) {
        if (own || on_fixed_ring(ringed, y, x, height, width)) return own;
        float const v = rec_c(y, x);
        std::uint8_t spread = 0;
        // Background neighbours hold `lowest`, never equal to a foreground v.
        detail::for_neighbours(y, x, height, width, eight, [&](index_t ny, index_t nx) {
          if (at(ny, nx) && rec_c(ny, nx) == v) spread = 1;
        });
        return spread;
      });
}

}  // namespace gigaseg::detail
