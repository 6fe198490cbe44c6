#pragma once
// Tuned watershed for the OpenMP backend (see watershed_openmp.cpp): the serial flood
// (algorithms/watershed.hpp) run per connected component of the mask, components spread over the
// threads. Components cannot interact (flooding never crosses the mask), so the labels are the
// serial flood's exactly. Without a mask, the serial flood of the whole image. The same for a tile
// with a ring of fixed keys and labels (watershed_tile()).
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/algorithms/watershed.hpp"
#include "gigaseg/algorithms/watershed_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

#ifdef KOKKOS_ENABLE_OPENMP
namespace gigaseg {
namespace tuned {

// The flood of watershed_flood() per connected component of the mask, the components spread over
// the threads. False, doing nothing, when there is no mask (then the caller floods the whole image
// with watershed_flood()).
template <class T>
bool watershed(Kokkos::OpenMP const& space, ImageView<T const, Kokkos::HostSpace> const& relief,
               ImageView<Label const, Kokkos::HostSpace> const& markers, ImageView<Label, Kokkos::HostSpace> const& out,
               WatershedParams const& params, ImageView<std::uint8_t const, Kokkos::HostSpace> const& mask);

// The tuned path: the mask's components on the threads where watershed() above takes the input,
// else watershed_flood() over the whole image. Always applicable.
template <class T>
bool watershed_host(Kokkos::OpenMP const& space, ImageView<T const, Kokkos::HostSpace> const& relief,
                    ImageView<Label const, Kokkos::HostSpace> const& markers,
                    ImageView<Label, Kokkos::HostSpace> const& out, WatershedParams const& params,
                    ImageView<std::uint8_t const, Kokkos::HostSpace> const& mask) {
  space.fence();
  if (watershed(space, relief, markers, out, params, mask)) return true;
  watershed_flood(relief, markers, out, params, mask);
  return true;
}

// watershed_tile() on the host: the flood of watershed() above with the tile's ring as fixed roots
// (the ring's keys from `keys`, its labels from `out`), per component of the mask where there is
// one; the tile's keys written to `keys`. Always applicable.
template <class T>
bool watershed_tile_host(Kokkos::OpenMP const& space, ImageView<T const, Kokkos::HostSpace> const& relief,
                         ImageView<Label const, Kokkos::HostSpace> const& markers,
                         ImageView<std::uint64_t, Kokkos::HostSpace> const& keys,
                         ImageView<Label, Kokkos::HostSpace> const& out, WatershedParams const& params,
                         ImageView<std::uint8_t const, Kokkos::HostSpace> const& mask);

}  // namespace tuned

GIGASEG_DECLARE_TUNED(WatershedAlgorithm, Kokkos::OpenMP, tuned::watershed_host);
GIGASEG_DECLARE_TUNED(WatershedTileAlgorithm, Kokkos::OpenMP, tuned::watershed_tile_host);

}  // namespace gigaseg
#endif
