#pragma once
// What one K-means pass needs, in a header of its own so that the backend kernels
// (backends/cuda/kmeans_cuda.hpp) can declare their entry points without the driver.
//
// The state of a run lives in the backend's memory from the first pass to the last, so the
// iterations need no host round trip (ten iterations at 2048 x 2048 take under 1 ms on an H200):
//   centres: int[3k]  fixed point (1/256 feature unit), then rank: int[k]  (label order)
//   state:   uint64[] laid out by KMeansState below
#include "gigaseg/algorithms/detail/kmeans_features.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace gigaseg::detail {

// Offsets into the uint64 state array of a run with k clusters.
struct KMeansState {
  int k;
  // Per cluster the squared norm of its centre (sum of the three fixed-point components squared),
  // precomputed once per iteration for the distance decomposition in nearest().
  KOKKOS_INLINE_FUNCTION int norms() const { return 0; }
  // Per cluster the three feature sums and the member count of the current pass, then the total
  // squared distance (1/65536 feature units^2, only summed by the final pass).
  KOKKOS_INLINE_FUNCTION int sums() const { return k; }
  KOKKOS_INLINE_FUNCTION int inertia() const { return k + 4 * k; }
  KOKKOS_INLINE_FUNCTION int converged() const {
    return inertia() + 1;
  }  // 1 once a step moved no centre past the tolerance
  KOKKOS_INLINE_FUNCTION int iterations() const { return converged() + 1; }  // update steps run
  KOKKOS_INLINE_FUNCTION int size() const { return iterations() + 1; }
  KOKKOS_INLINE_FUNCTION int accumulated() const { return 4 * k + 1; }  // sums() .. inertia(), zeroed per pass
};

// Nearest centre of the features f (ties to the lower index) and its squared distance.
//
// |256 f - c|^2 = 65536 |f|^2 - 512 f.c + |c|^2: the first term is the same for every centre, so
// the argmin needs only |c|^2 - 512 f.c, with f.c < 3 * 255 * 65280 < 2^31 in 32-bit arithmetic
// and one 64-bit subtraction per centre. The result is the exact integer distance, so every backend
// and path assigns identically.
// Norm: a 64-bit unsigned type (std::uint64_t in views, unsigned long long in CUDA shared memory).
template <class Norm>
KOKKOS_INLINE_FUNCTION int nearest(int const f[3], int const* centres, Norm const* norms, int k, long long& distance) {
  int label = 0;
  long long best = 0;
  for (int c = 0; c < k; ++c) {
    int const dot = f[0] * centres[3 * c] + f[1] * centres[3 * c + 1] + f[2] * centres[3 * c + 2];
    long long const score = (long long)norms[c] - 512LL * dot;
    if (c == 0 || score < best) best = score, label = c;
  }
  distance = 65536LL * (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) + best;
  return label;
}

// One assignment pass over the image. An update pass only sums each cluster's members into state
// (nobody reads its labels); the final pass writes labels(y, x) = rank of the nearest centre and
// sums the inertia. Gray features keep f[1] = f[2] = 0 and centres with
// zero second and third components, so the three-channel formula serves every feature space.
template <class MemorySpace>
struct KMeansPassArgs {
  ImageView<Rgb8 const, MemorySpace> image;
  ImageView<std::uint8_t, MemorySpace> labels;
  FeatureMap features;
  int const* centres;    // 3k, then the rank of each cluster (k)
  std::uint64_t* state;  // KMeansState layout
  int k;
  bool final_pass;
};

}  // namespace gigaseg::detail
