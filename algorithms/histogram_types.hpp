#pragma once
// The public types of algorithms/histogram.hpp, in a header of their own so that the backends
// (backends/*/histogram_*.hpp) can declare their tuned specialisations without the implementation.
#include "gigaseg/algorithms/path.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace gigaseg {

// The tag of the 8-bit histogram() in TunedAvailable / Tuned (algorithms/path.hpp).
struct HistogramAlgorithm {
  static constexpr char const* name = "histogram";
};

// The tag of the binned histogram(), which has only the portable path on every backend.
struct BinnedHistogramAlgorithm {
  static constexpr char const* name = "histogram";
};

template <class MemorySpace>
using Counts = Kokkos::View<std::uint64_t*, MemorySpace>;

struct HistogramParams {
  Path path = Path::automatic;
};

// N equal bins over [lo, hi]: bin = floor((v - lo) * bins / (hi - lo)), v == hi in the last bin;
// values outside [lo, hi] and NaN are not counted.
struct BinRange {
  int bins = 256;
  double lo = 0.0;
  double hi = 256.0;
};

}  // namespace gigaseg
