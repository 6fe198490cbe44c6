#pragma once
// Region statistics of a label image (components 1..N, 0 background), all components in one pass
// over the image: area, bounding box, centroid, perimeter, and the mean, minimum and maximum of
// an intensity image.
//
// Perimeter: the number of pixel edges between the component and any pixel outside it, the image
// border included (so a lone pixel has 4, a full w x h image 2w + 2h).
//
// One pass, no kernel per region: each thread walks a stretch of a row, sums its pixels while the
// label stays the same, and adds the run's sums to the component's accumulators with atomics
// (one atomic per pixel and field would serialise on large components; a coherent label image has
// runs of tens to thousands of pixels). All sums are integers, so every backend and run gives the
// same table.
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/algorithms/path.hpp"
#include "gigaseg/algorithms/region_stats_types.hpp"
#include "gigaseg/core/image.hpp"

#include <cstdint>
#include <vector>

namespace gigaseg {

struct RegionStats {
  Label label = 0;
  index_t area = 0;
  index_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // bounding box, inclusive
  double cx = 0, cy = 0;                   // centroid: mean x and mean y
  index_t perimeter = 0;
  double mean_intensity = 0;
  double min_intensity = 0, max_intensity = 0;
};

// The integer sums behind RegionStats, for statistics reduced over parts of an image (tiles,
// ranks): merge() combines the parts of one component exactly, shift() moves a part's coordinates
// from its tile to the image, stats() gives the table row. A component with no pixels has area 0
// and its minima at their starting values.
struct RegionTotals {
  std::uint64_t area = 0, sum_x = 0, sum_y = 0, perimeter = 0, sum_intensity = 0;
  std::uint64_t x0 = ~std::uint64_t(0), y0 = ~std::uint64_t(0), x1 = 0, y1 = 0;
  std::uint64_t min_intensity = ~std::uint64_t(0), max_intensity = 0;

  void merge(RegionTotals const& o) {
    area += o.area;
    sum_x += o.sum_x;
    sum_y += o.sum_y;
    perimeter += o.perimeter;
    sum_intensity += o.sum_intensity;
    x0 = o.x0 < x0 ? o.x0 : x0;
    y0 = o.y0 < y0 ? o.y0 : y0;
    x1 = o.x1 > x1 ? o.x1 : x1;
    y1 = o.y1 > y1 ? o.y1 : y1;
    min_intensity = o.min_intensity < min_intensity ? o.min_intensity : min_intensity;
    max_intensity = o.max_intensity > max_intensity ? o.max_intensity : max_intensity;
  }
  // The same pixels seen from an image in which the part's origin is at (dx, dy).
  void shift(index_t dx, index_t dy) {
    if (area == 0) return;
    sum_x += area * std::uint64_t(dx);
    sum_y += area * std::uint64_t(dy);
    x0 += std::uint64_t(dx);
    x1 += std::uint64_t(dx);
    y0 += std::uint64_t(dy);
    y1 += std::uint64_t(dy);
  }
  RegionStats stats(Label label) const {
    RegionStats r;
    r.label = label;
    r.area = index_t(area);
    if (area == 0) return r;
    r.x0 = index_t(x0);
    r.y0 = index_t(y0);
    r.x1 = index_t(x1);
    r.y1 = index_t(y1);
    r.cx = double(sum_x) / double(area);
    r.cy = double(sum_y) / double(area);
    r.perimeter = index_t(perimeter);
    r.mean_intensity = double(sum_intensity) / double(area);
    r.min_intensity = double(min_intensity);
    r.max_intensity = double(max_intensity);
    return r;
  }
};

// One row per label 1..components, in label order. `intensity` has the labels' size; T: 8- or
// 16-bit unsigned. Fences `space` (returns host data). Paths (algorithms/path.hpp):
//  - portable: above (algorithms/detail/region_stats_portable.hpp);
//  - tuned on OpenMP: private accumulators per thread, combined at the end; the portable path when
//    they would take more than 256 MiB (backends/openmp/region_stats_openmp.cpp);
//  - tuned on CUDA: warp reductions by label and a per-warp carry
//    (backends/cuda/region_stats_cuda.cpp).
template <class ExecSpace, class T>
std::vector<RegionStats> region_stats(ExecSpace const& space,
                                      ImageView<Label const, typename ExecSpace::memory_space> const& labels,
                                      index_t components,
                                      ImageView<T const, typename ExecSpace::memory_space> const& intensity,
                                      Path path = Path::automatic);

// The sums of region_stats(), one per label 1..components: the same pass, without the division.
template <class ExecSpace, class T>
std::vector<RegionTotals> region_totals(ExecSpace const& space,
                                        ImageView<Label const, typename ExecSpace::memory_space> const& labels,
                                        index_t components,
                                        ImageView<T const, typename ExecSpace::memory_space> const& intensity,
                                        Path path = Path::automatic);

// The path region_stats() takes on ExecSpace for a requested path.
template <class ExecSpace>
Path region_stats_path(Path requested);

// Defined in the library (algorithms/detail/region_stats_impl.hpp) for every enabled execution
// space and 8- and 16-bit intensities (backends/instantiate/region_stats.cpp).
// A non-const intensity image, the same call.
template <class ExecSpace, class T, if_mutable<T> = 0>
std::vector<RegionStats> region_stats(ExecSpace const& space,
                                      ImageView<Label const, typename ExecSpace::memory_space> const& labels,
                                      index_t components,
                                      ImageView<T, typename ExecSpace::memory_space> const& intensity,
                                      Path path = Path::automatic) {
  return region_stats(space, labels, components, ImageView<T const, typename ExecSpace::memory_space>(intensity), path);
}

}  // namespace gigaseg
