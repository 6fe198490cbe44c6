#pragma once
// K-means colour segmentation (seed 000 section 4.2), deterministic on every backend and run.
//
// Exactness by construction: features are small integers (8-bit RGB, BT.601 gray, or CIE Lab
// scaled to 0..255 like OpenCV's 8-bit Lab, computed with integer arithmetic and tables built on
// the host), centres are fixed point (1/256 feature unit), distances and per-cluster sums are
// integers. So assignments, sums and centres are identical whatever the order of the parallel
// reduction: the same seed gives the same result on CUDA, OpenMP and Serial.
//
// Initialisation: greedy k-means++ (2 + ln K trials per centre, as scikit-learn does) on a
// seeded sample of pixels (counter-based draws, so every backend samples the same pixels), in one
// team on the backend itself. Iterations: each pass assigns every pixel to its nearest
// centre (ties to the lower index) and sums each cluster's members in the same pass; the sums are
// reduced in fast memory first (per warp and then per block in the tuned CUDA kernel, per team in
// scratch in the portable pass, per thread on host backends) and only the partial sums are
// combined globally (seed 000 section 6.1: per-pixel global atomics were the trap). The centre
// update, the convergence test and the final ranking run on the backend too, so the loop needs no
// host round trip. An empty cluster keeps its centre. Output labels are numbered by ascending
// centre luminance (exact integer 299 R + 587 G + 114 B; L* for Lab, the value for gray).
#include "algorithms/detail/kmeans_features.hpp"
#include "algorithms/path.hpp"
#include "core/image.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace gigaseg {

constexpr int max_clusters = 64;

struct KMeansParams {
  int k = 8;
  int iterations = 10;          // at most this many update steps
  double tolerance = 0.0;       // stop when no centre moves by more than this (feature units)
  std::uint64_t seed = 0;
  FeatureSpace space = FeatureSpace::rgb;
  int attempts = 1;             // whole runs from different seeds; the least inertia wins (cv::kmeans' attempts)
  int init_sample = 4096;       // pixels sampled for k-means++ (its work grows with K x this)
  Path path = Path::automatic;  // the assignment pass: tuned (CUDA kernel / host reduction) or portable
};

struct KMeansResult {
  int channels = 3;                              // 1 for gray
  std::vector<std::array<double, 3>> centres;    // in label order (ascending luminance)
  int iterations = 0;                            // update steps run
  double inertia = 0;                            // sum of squared feature distances to the centres
  int attempt = 0;                               // the attempt that won (0-based)
};

// labels(y, x) in 0..k-1. Fences `space` (returns host data). The initialisation and the
// iterations run on `space` without a host round trip.
template <class ExecSpace>
KMeansResult kmeans(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& image,
                    ImageView<std::uint8_t, typename ExecSpace::memory_space> const& labels, KMeansParams const& params);

// The pass kmeans() takes on ExecSpace for a requested path.
template <class ExecSpace>
Path kmeans_path(Path requested);

}  // namespace gigaseg

#include "algorithms/detail/kmeans_impl.hpp"
