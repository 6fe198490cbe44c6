#pragma once
// Marker-based watershed by flooding with the semantics of
// skimage.segmentation.watershed(relief, markers, connectivity, mask): every unlabelled pixel
// inside the mask takes the label of the marker whose flood reaches it first, the flood always
// advancing from the lowest relief value on its front. Pixels outside the mask get 0 and are
// never flooded (markers there are dropped); pixels no flood reaches keep 0.
//
// One tie rule on every backend and path, so the labels are the same bit for bit: the flood
// takes pixels in the order of a 64-bit key (algorithms/detail/watershed_key.hpp): the flooding
// level (the minimax relief along a path from a marker); then, inside a plateau at that level,
// the number of steps from where the flood rose onto it (nearer first); then the level it rose
// from (lower first); then steps into pits below the level. A pixel takes the label of the
// neighbour its key came from, the smallest (key, raster index) among them. Where relief values
// are distinct this is scikit-image's result exactly; on plateaus scikit-image follows its heap's
// order (markers all at age 0, sift order), and agrees on most pixels (tests/test_watershed.cpp
// reports how many on the golden cases).
//
// watershed_flood() computes the rule serially (a priority flood over the keys, the test
// reference); watershed() on a backend computes it in parallel (portable: a relaxation of the
// keys to their fixpoint, then parents and pointer jumping) or with a backend's tuned flood.
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

// The watershed on any backend, the labels of watershed_flood() on every one. Portable path: the
// keys relaxed in parallel to their fixpoint (algorithms/detail/watershed_portable.hpp). Tuned
// path on OpenMP: watershed_flood() itself, per connected component of the mask on the threads
// where there is a mask (backends/openmp/watershed_openmp.cpp).
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
