#pragma once
// The `cells` pipeline, done exactly: median, Otsu threshold, opening, exact distance
// transform, markers from the distance peaks (h-maxima, minimum separation), marker-based
// watershed, small-region merge, region statistics. Every stage runs on the backend holding the
// image; only per-label tables (markers' summaries, region areas) visit the host between stages.
//
// Relief (CellsRelief):
//  - distance (default): the watershed floods the inverted distance map from the markers inside
//    the opened foreground (skimage's watershed(-distance, markers, mask=foreground)). The relief is
//    65535 - squared distance as 16 bits while the squared distances fit (objects up to ~255 pixels
//    across their half-width), the negated float distance beyond: the same order either way.
//  - gradient: a variant: the watershed floods the morphological gradient (3x3 dilation
//    minus erosion) of the filtered image from the cell markers and one background marker (the
//    pixels at least `background_distance` from the foreground), with no mask; the background's
//    basin is set to 0 afterwards. It follows edges, so touching cells of like stain can end in
//    one region (their small remainder merged away): the distance relief splits them by shape.
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/algorithms/pipelines/foreground.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <map>
#include <string>
#include <vector>

namespace gigaseg {

enum class CellsRelief { distance, gradient };

struct CellsParams {
  Foreground foreground = Foreground::automatic;
  int median_size = 3;         // 3 or 5; 0 or 1: no median
  int open_size = 3;           // rectangle; 0 or 1: no opening
  float h = 0.5f;              // h-maxima height of the markers (pixels of distance)
  float min_separation = 8.f;  // pixels between marker centroids (0: no limit)
  index_t min_area = 16;       // smaller regions merge into a neighbour
  CellsRelief relief = CellsRelief::distance;
  float background_distance = 8.f;  // gradient relief: background marker distance from the cells
  int connectivity = 8;             // of the markers, the watershed and the merge's components
};

struct CellsResult {
  int threshold = 0;
  bool dark = false;
  index_t markers = 0;
  index_t components = 0;
  std::vector<RegionStats> regions;
  std::map<std::string, double> timings_ms;  // per stage, each ending with a fence
};

template <class ExecSpace>
CellsResult segment_cells(ExecSpace const& space,
                          ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& gray,
                          ImageView<Label, typename ExecSpace::memory_space> const& labels,
                          CellsParams const& params = {});

// Where a mask given to segment_cells_from_mask lies when it is a part of a larger image (the tile
// engine's windows): the larger image's coordinates of its first pixel (the markers' centroids are
// the larger image's), and the larger image's largest squared distance, which picks the distance
// relief's type (16 bits up to 65535); -1: the mask's own.
struct CellsPart {
  index_t x = 0, y = 0;
  std::int64_t most_squared = -1;
};

// segment_cells() from its mask on: the distance transform (written to `distance`), the markers
// (to `markers`), the relief, the watershed and the small-region merge into `labels`, without the
// statistics; `filtered` is the median-filtered gray (the gradient relief floods its gradient).
// Sets result.markers and result.components (both 0, and `labels` 0, when the mask is all
// background or all foreground; `distance` is then not written) and adds the stages' times.
// segment_cells() is the median, Otsu's mask and the opening, then this, then region_stats(). The
// tile engine calls it on windows of a larger image (engine/tiled.hpp, segment_cells_tiled): every
// stage here follows the mask's 8-connected components, given the larger image's `part`, so a
// component whole in a window gets the labels it gets in the whole image. Fences `space`.
template <class ExecSpace>
void segment_cells_from_mask(ExecSpace const& space,
                             ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& filtered,
                             ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& mask,
                             ImageView<float, typename ExecSpace::memory_space> const& distance,
                             ImageView<Label, typename ExecSpace::memory_space> const& markers,
                             ImageView<Label, typename ExecSpace::memory_space> const& labels,
                             CellsParams const& params, CellsResult& result, CellsPart const& part = {});

// Defined in the library (algorithms/pipelines/detail/cells_impl.hpp) for every enabled execution space
// (backends/instantiate/pipelines.cpp).
}  // namespace gigaseg
