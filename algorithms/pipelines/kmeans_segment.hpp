#pragma once
// The `kmeans` pipeline: colour k-means (algorithms/kmeans.hpp), the mask of one class, its
// connected components and their statistics; on the backend holding the image throughout.
//
// Which class is the object: `object_class` when given (0..k-1, ascending luminance of the
// centres), else, following Foreground, the darkest class (dark), the brightest (bright) or,
// automatically, whichever of those two covers fewer pixels (objects cover less of a slide than
// what surrounds them).
#include "gigaseg/algorithms/kmeans_types.hpp"
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/algorithms/pipelines/foreground.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <map>
#include <string>
#include <vector>

namespace gigaseg {

struct KMeansSegmentParams {
  KMeansParams kmeans = {3};  // k = 3: background, tissue, objects
  Foreground foreground = Foreground::automatic;
  int object_class = -1;  // -1: chosen by `foreground`
  int connectivity = 8;
};

struct KMeansSegmentResult {
  KMeansResult clusters;
  int object_class = 0;
  index_t components = 0;
  std::vector<RegionStats> regions;
  std::map<std::string, double> timings_ms;
};

template <class ExecSpace>
KMeansSegmentResult segment_kmeans(ExecSpace const& space,
                                   ImageView<Rgb8 const, typename ExecSpace::memory_space> const& image,
                                   ImageView<Label, typename ExecSpace::memory_space> const& labels,
                                   KMeansSegmentParams const& params = {});

// Defined in the library (algorithms/pipelines/detail/kmeans_segment_impl.hpp) for every enabled execution space
// (backends/instantiate/pipelines.cpp).
}  // namespace gigaseg
