#pragma once
// Tuned host paths of the markers' two propagations (algorithms/markers.hpp): sequential O(N)
// algorithms in place of the portable tile relaxation, which needs many sweeps on a CPU.
#include "core/image.hpp"

#include <cstdint>

namespace gigaseg::tuned {

// rec = the reconstruction by dilation of rec (the marker, <= mask) under `mask`, over the pixels
// with mask > 0 (others are left alone): Vincent's hybrid algorithm (forward and backward raster
// scans, then a FIFO of the pixels that can still grow).
void reconstruct_by_dilation(ImageView<float const, Kokkos::HostSpace> const& mask, ImageView<float, Kokkos::HostSpace> const& rec,
                             bool eight);

// flag = 1 spreads from flagged pixels to every unflagged foreground (mask > 0) neighbour of equal
// `value`, until no more can: a breadth-first search from the flagged pixels at a plateau's edge.
void spread_over_plateaus(ImageView<float const, Kokkos::HostSpace> const& mask, ImageView<float const, Kokkos::HostSpace> const& value,
                          ImageView<std::uint8_t, Kokkos::HostSpace> const& flag, bool eight);

}  // namespace gigaseg::tuned
