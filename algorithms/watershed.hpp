#pragma once
// Marker-based watershed by flooding with the semantics of
// skimage.segmentation.watershed(relief, markers, connectivity, mask): every unlabelled pixel
// inside the mask takes the label of the marker whose flood reaches it first, the flood always
// advancing from the lowest relief value on its front.
//
// watershed_flood() is the serial priority flood that defines the result (the test reference):
//  - the markers inside the mask are pushed in raster order; pixels outside the mask get 0 and
//    are never flooded (markers there are dropped);
//  - the front is a priority queue ordered by (relief value, age), age counting pushes: equal
//    values leave in the order they entered (FIFO), markers in raster order first;
//    (8/16-bit reliefs use one FIFO bucket per value, the same order);
//  - a popped pixel labels every unlabelled neighbour inside the image and the mask with its own
//    label and pushes it (neighbours in raster order: up-left, up, up-right, left, right,
//    down-left, down, down-right, the 4-neighbourhood keeping its four).
// Where relief values are distinct the result does not depend on the tie rules at all and equals
// scikit-image's; on plateaus scikit-image's heap (all markers at age 0, sift order) can break
// some ties differently.
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/algorithms/watershed_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace gigaseg {

// out(y, x) = the label flooding (y, x) from `markers` (0 = unlabelled) over `relief`, 0 outside
// `mask` (an empty mask = everywhere). T: std::uint8_t, std::uint16_t, float (no NaN). Defined in
// algorithms/watershed.cpp.
template <class T>
void watershed_flood(ImageView<T const, Kokkos::HostSpace> const& relief,
                     ImageView<Label const, Kokkos::HostSpace> const& markers,
                     ImageView<Label, Kokkos::HostSpace> const& out, WatershedParams const& params = {},
                     ImageView<std::uint8_t const, Kokkos::HostSpace> const& mask = {});

// The watershed on any backend. Portable path: the parallel minimum-path formulation
// (algorithms/detail/watershed_portable.hpp), the same labels as watershed_flood() wherever relief values are
// distinct; on plateaus the flood's first-in-first-out order is followed by counting steps at the
// plateau's level, so a few tie pixels can differ. Tuned path on OpenMP: watershed_flood() itself
// (one thread; O(1) a pixel with a bucket per value for 8/16-bit reliefs), per connected component
// of the mask on the threads where there is a mask (backends/openmp/watershed_openmp.cpp).
// Deterministic on every backend and run.
template <class ExecSpace, class T>
void watershed(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& relief,
               ImageView<Label const, typename ExecSpace::memory_space> const& markers,
               ImageView<Label, typename ExecSpace::memory_space> const& out, WatershedParams const& params = {},
               ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& mask = {});

// The path watershed() takes on ExecSpace for a requested path.
template <class ExecSpace>
Path watershed_path(Path requested);

// watershed() and watershed_path() are defined in the library (algorithms/detail/watershed_impl.hpp)
// for every enabled execution space and the relief types above (backends/instantiate/watershed.cpp).
// A non-const relief, the same call.
template <class ExecSpace, class T, if_mutable<T> = 0>
void watershed(ExecSpace const& space, ImageView<T, typename ExecSpace::memory_space> const& relief,
               ImageView<Label const, typename ExecSpace::memory_space> const& markers,
               ImageView<Label, typename ExecSpace::memory_space> const& out, WatershedParams const& params = {},
               ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& mask = {}) {
  watershed(space, ImageView<T const, typename ExecSpace::memory_space>(relief), markers, out, params, mask);
}

}  // namespace gigaseg
