#pragma once
// The random draws and sizes of K-means' initialisation (algorithms/detail/kmeans_impl.hpp), in a
// header without the driver so that the tests' serial reference draws the same numbers.
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace gigaseg::detail {

// The run's random numbers: a counter-based generator (SplitMix64's finaliser over the seed, a
// stream and a counter), so that any backend draws number i of stream s without a sequence to
// share, and the host reference of the tests draws the same ones.
//   stream 0: the sampled pixel indices; stream 1: k-means++'s first centre; stream 2: the
//   candidates (centre c, trial t: counter c * trials + t).
KOKKOS_INLINE_FUNCTION std::uint64_t kmeans_random(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (2 * counter + 1) + 0xd1b54a32d192ed03ULL * stream;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Attempt a of a run seeded `seed` starts from this seed (attempt 0 from the seed itself).
KOKKOS_INLINE_FUNCTION std::uint64_t kmeans_attempt_seed(std::uint64_t seed, int a) {
  return a == 0 ? seed : kmeans_random(seed, 3, std::uint64_t(a));
}

// k-means++ candidates per centre: 2 + ln K (scikit-learn's rule), as an integer for every backend.
KOKKOS_INLINE_FUNCTION int kmeans_trials(int k) {
  int trials = 2;
  for (double e = 2.718281828459045; e <= double(k); e *= 2.718281828459045) ++trials;
  return trials;
}
constexpr int kmeans_max_trials = 7;          // kmeans_trials(max_clusters) = 6
constexpr int kmeans_scratch_samples = 4096;  // k-means++ keeps samples up to this many in fast memory

// D^2 sampling's draw: the first sample whose inclusive running sum of distances passes
// floor(u * total), u uniform in [0, 1) from the top 53 bits (exact in a double on every backend).
KOKKOS_INLINE_FUNCTION long long kmeans_target(std::uint64_t draw, long long total) {
  return (long long)(double(draw >> 11) * (1.0 / 9007199254740992.0) * double(total));
}

}  // namespace gigaseg::detail
