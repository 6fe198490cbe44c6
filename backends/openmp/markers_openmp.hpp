#pragma once
// Tuned host paths of the markers' two propagations (algorithms/markers.hpp): sequential O(N)
// algorithms in place of the portable tile relaxation, which needs many sweeps on a CPU.
#include "gigaseg/algorithms/markers_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

#ifdef KOKKOS_ENABLE_OPENMP
namespace gigaseg {
namespace tuned {

// rec = the reconstruction by dilation of rec (the marker, <= mask) under `mask`, over the pixels
// with mask > 0 (others are left alone): Vincent's hybrid algorithm (forward and backward raster
// scans, then a FIFO of the pixels that can still grow).
void reconstruct_by_dilation(ImageView<float const, Kokkos::HostSpace> const& mask,
                             ImageView<float, Kokkos::HostSpace> const& rec, bool eight);

// flag = 1 spreads from flagged pixels to every unflagged foreground (mask > 0) neighbour of equal
// `value`, until no more can: a breadth-first search from the flagged pixels at a plateau's edge.
void spread_over_plateaus(ImageView<float const, Kokkos::HostSpace> const& mask,
                          ImageView<float const, Kokkos::HostSpace> const& value,
                          ImageView<std::uint8_t, Kokkos::HostSpace> const& flag, bool eight);

// The tuned entries of distance_markers() (algorithms/detail/markers_impl.hpp), after the work
// enqueued on `space`: the reconstruction (mask, rec, eight) and the plateau spread (mask, value,
// flag, eight). Always applicable.
inline bool distance_markers(Kokkos::OpenMP const& space, ImageView<float const, Kokkos::HostSpace> const& mask,
                             ImageView<float, Kokkos::HostSpace> const& rec, bool eight) {
  space.fence();
  reconstruct_by_dilation(mask, rec, eight);
  return true;
}
inline bool distance_markers(Kokkos::OpenMP const& space, ImageView<float const, Kokkos::HostSpace> const& mask,
                             ImageView<float const, Kokkos::HostSpace> const& value,
                             ImageView<std::uint8_t, Kokkos::HostSpace> const& flag, bool eight) {
  space.fence();
  spread_over_plateaus(mask, value, flag, eight);
  return true;
}

}  // namespace tuned

GIGASEG_DECLARE_TUNED(MarkersAlgorithm, Kokkos::OpenMP, tuned::distance_markers);

}  // namespace gigaseg
#endif
