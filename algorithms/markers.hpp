#pragma once
// Watershed markers and the clean-up after the watershed.
//
// distance_markers(): one marker per h-maximum of a distance map. The h-maxima transform is the
// morphological reconstruction by dilation of (D - h) under D, restricted to the foreground
// (D > 0); its regional maxima are the peaks that rise more than h above the saddle joining them to
// any higher peak, so noise ripples on a distance ridge give no extra marker. Each foreground
// component keeps at least one marker (its highest plateau). Markers closer than
// `min_separation` (Euclidean, between centroids) to a higher marker of the same foreground
// component are then dropped, higher meaning a larger reconstructed height, ties to the lower
// label; the rest are numbered 1..M in raster order of their first pixel. Everything is exact (min,
// max and comparisons of the distance values; integer sums), so the markers are the same on every
// backend and run.
//
// background_markers(): the pixels at least `min_distance` from every foreground pixel (an exact
// distance transform of the background) take `label`: background markers, which stop a
// watershed over a gradient relief from flooding the background from the cells.
//
// merge_small_regions(): every region with fewer than `min_area` pixels merges into the adjacent
// region sharing the longest boundary with it (4-neighbour pixel edges; ties to the smaller
// label), smallest regions first (ties to the lower label), merged areas adding up; a small region
// with no labelled neighbour is removed (set to 0). The regions left are numbered 1..N in raster
// order of their first pixel, as label() numbers components.
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/algorithms/markers_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace gigaseg {

// markers(y, x) = 1..M on the markers, 0 elsewhere; returns M. `distance` >= 0, 0 = background.
// Fences `space`.
template <class ExecSpace>
index_t distance_markers(ExecSpace const& space,
                         ImageView<float const, typename ExecSpace::memory_space> const& distance,
                         ImageView<Label, typename ExecSpace::memory_space> const& markers,
                         MarkerParams const& params = {});

// markers(y, x) = label where mask(y, x) == 0 and the distance to the nearest mask pixel != 0 is at
// least min_distance; other pixels are left as they are. Returns how many pixels were marked (0
// when the mask is empty: no distance is then defined, nothing is marked). Fences `space`.
template <class ExecSpace>
index_t background_markers(ExecSpace const& space,
                           ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& mask,
                           ImageView<Label, typename ExecSpace::memory_space> const& markers, float min_distance,
                           Label label);

// Merges the regions 1..count of `labels` smaller than min_area (above) in place; returns the new
// count. Fences `space`.
template <class ExecSpace>
index_t merge_small_regions(ExecSpace const& space, ImageView<Label, typename ExecSpace::memory_space> const& labels,
                            index_t count, index_t min_area);

// distance_markers()'s two propagations on one tile of a larger image, for images never whole in
// memory (the tile engine, engine/tiled.hpp, distance_markers_tiled): `distance` holds the tile
// and a ring of one pixel around it (0 beyond the image), and so do `rec` and `lower`. On the ring
// they are inputs, the values of those pixels in the whole image as far as known; inside they are
// outputs given the ring's, the whole image's once the ring's are. Both are least fixpoints that
// only rise as the ring's values rise, so rounds over the tiles, passing borders, reach the whole
// image's (as for watershed_tile). Portable path on every backend.
//   h_maxima_tile: rec = the reconstruction by dilation of D - h under D over the foreground
//     (ring: the reconstruction, or the lowest float where not known).
//   regional_maxima_tile: lower = 0 on the regional maxima of rec over the foreground, 1 elsewhere
//     (ring: the flags, 0 where not known; rec final on the tile and its ring).
template <class ExecSpace>
void h_maxima_tile(ExecSpace const& space, ImageView<float const, typename ExecSpace::memory_space> const& distance,
                   ImageView<float, typename ExecSpace::memory_space> const& rec, MarkerParams const& params = {});
template <class ExecSpace>
void regional_maxima_tile(ExecSpace const& space,
                          ImageView<float const, typename ExecSpace::memory_space> const& distance,
                          ImageView<float const, typename ExecSpace::memory_space> const& rec,
                          ImageView<std::uint8_t, typename ExecSpace::memory_space> const& lower,
                          MarkerParams const& params = {});

// The path distance_markers() takes on ExecSpace for a requested path (MarkerParams::path): the
// tuned path on OpenMP runs the two propagations as sequential O(N) algorithms
// (backends/openmp/markers_openmp.cpp), the portable one as tile relaxations.
template <class ExecSpace>
Path markers_path(Path requested);

// The functions above are defined in the library (algorithms/detail/markers_impl.hpp) for every
// enabled execution space (backends/instantiate/markers.cpp).

namespace detail {

// The host decisions behind the functions above (algorithms/markers.cpp).
struct MarkerSummary {
  double sum_x = 0, sum_y = 0;
  index_t area = 0;
  float height = 0;     // reconstructed height of the marker's plateau
  Label component = 0;  // foreground component
};
// new_id[l] for markers l = 1..M (index 0 unused): 0 when dropped, else 1..kept in label order.
std::vector<Label> separate_markers(std::vector<MarkerSummary> const& markers, float min_separation);

// Region merging: `area[l]` and `first[l]` (first pixel's raster index) for l = 1..count, `edges`
// the (a, b) label pairs of 4-neighbour pixel edges between different labels (a < b, repeated per
// edge). Returns new_id[l], 0 = removed, consecutive in raster order of the merged regions' first
// pixels.
std::vector<Label> merge_plan(std::vector<index_t> const& area, std::vector<index_t> const& first,
                              std::vector<std::uint64_t> const& edges, index_t min_area, index_t& merged_count);

}  // namespace detail
}  // namespace gigaseg
