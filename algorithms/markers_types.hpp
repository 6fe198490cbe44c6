#pragma once
// The public types of algorithms/markers.hpp, in a header of their own so that the backends
// (backends/openmp/markers_openmp.hpp) can declare their tuned specialisations without the
// implementation.
#include "gigaseg/algorithms/path.hpp"

#include <cstdint>

namespace gigaseg {

// The tag of distance_markers() in TunedAvailable / Tuned (algorithms/path.hpp): its two
// propagations (the reconstruction by dilation, the spread over plateaus) have a tuned path.
struct MarkersAlgorithm {
  static constexpr char const* name = "distance_markers";
};
// The tags of background_markers() and merge_small_regions(), which have no tuned path.
struct BackgroundMarkersAlgorithm {
  static constexpr char const* name = "background_markers";
};
struct MergeRegionsAlgorithm {
  static constexpr char const* name = "merge_small_regions";
};

// The tag of h_maxima_tile() and regional_maxima_tile() (no backend has a tuned path for them).
struct MarkersTileAlgorithm {
  static constexpr char const* name = "markers_tile";
};

struct MarkerParams {
  float h = 1.0f;               // h-maxima height, in distance units (pixels); > 0
  float min_separation = 0.f;   // pixels; 0 keeps every h-maximum
  int connectivity = 8;         // of the foreground, the plateaus and the markers
  Path path = Path::automatic;  // the two propagations: tuned (OpenMP: sequential O(N)) or portable
  // For a distance map that is a part of a larger image (the tile engine's windows): the larger
  // image's coordinates of its first pixel. The centroids the separation compares are then the
  // larger image's, rounded as there.
  std::int64_t origin_x = 0, origin_y = 0;
};

}  // namespace gigaseg
