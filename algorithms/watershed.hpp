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

// The watershed of one tile of a larger image, for images never whole in memory (the tile
// engine, engine/tiled.hpp): relief, markers, mask, keys and out hold the tile and a ring of one
// pixel around it. On the ring, `keys` and `out` are inputs: the keys (watershed_key_unreached
// where not known, and outside the image) and labels of those pixels in the whole image's flood,
// as far as known; relief, markers and mask are not read there. Inside the ring they are outputs:
// the tile's keys and labels given the ring's, which are the whole image's once the ring's are.
// Every key is the least over the paths from the markers, and a tile's keys only fall as its
// ring's fall: relaxing the tiles and passing each its neighbours' border keys until none changes
// reaches the whole image's keys; a pixel's label is then its parent's, across the rings as
// within a tile, so exchanging the border labels until none changes gives watershed()'s labels.
// The portable path on every backend; on OpenMP the tuned path floods the tile in key order with
// the ring as fixed roots (the same keys and labels).
template <class ExecSpace, class T>
void watershed_tile(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& relief,
                    ImageView<Label const, typename ExecSpace::memory_space> const& markers,
                    ImageView<std::uint64_t, typename ExecSpace::memory_space> const& keys,
                    ImageView<Label, typename ExecSpace::memory_space> const& out, WatershedParams const& params = {},
                    ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& mask = {});

// The key of a pixel no flood reaches, for the rings of watershed_tile().
constexpr std::uint64_t watershed_key_unreached = ~std::uint64_t(0);

// The path watershed() takes on ExecSpace for a requested path.
template <class ExecSpace>
Path watershed_path(Path requested);

// watershed(), watershed_tile() and watershed_path() are defined in the library (algorithms/detail/watershed_impl.hpp)
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
