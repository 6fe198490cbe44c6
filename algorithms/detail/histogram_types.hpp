#pragma once
// The types of algorithms/histogram.hpp, in a header of their own so that the backend kernels
// (backends/*/histogram_*.hpp) can declare their entry points without the dispatcher.
#include "algorithms/path.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace gigaseg {

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
