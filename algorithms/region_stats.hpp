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
