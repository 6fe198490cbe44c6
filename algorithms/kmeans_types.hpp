#pragma once
// The public types of algorithms/kmeans.hpp, in a header of their own so that the backends
// (backends/*/kmeans_*.hpp) can declare their tuned specialisations without the implementation.
#include "gigaseg/algorithms/detail/kmeans_features.hpp"
#include "gigaseg/algorithms/path.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace gigaseg {

// The tag of kmeans()'s assignment pass in TunedAvailable / Tuned (algorithms/path.hpp).
struct KMeansAlgorithm {
  static constexpr char const* name = "kmeans";
};

constexpr int max_clusters = 64;
constexpr int max_kmeans_iterations = 10000;
constexpr int max_kmeans_attempts = 100;

struct KMeansParams {
  int k = 8;
  int iterations = 10;     // at most this many update steps, 1..max_kmeans_iterations
  double tolerance = 0.0;  // stop when no centre moves by more than this (feature units; finite, >= 0)
  std::uint64_t seed = 0;
  FeatureSpace space = FeatureSpace::rgb;
  int attempts = 1;  // whole runs from different seeds, 1..max_kmeans_attempts; the least inertia wins (cv::kmeans')
  int init_sample = 4096;       // pixels sampled for k-means++ (its work grows with K x this)
  Path path = Path::automatic;  // the assignment pass: tuned (CUDA kernel / OpenMP host reduction) or portable
};

struct KMeansResult {
  int channels = 3;                            // 1 for gray
  std::vector<std::array<double, 3>> centres;  // in label order (ascending luminance)
  int iterations = 0;                          // update steps run
  double inertia = 0;                          // sum of squared feature distances to the centres
  int attempt = 0;                             // the attempt that won (0-based)
};

}  // namespace gigaseg
