#pragma once
// The tag of algorithms/region_stats.hpp, in a header of its own so that the backends
// (backends/*/region_stats_*.hpp) can declare their tuned specialisations without the
// implementation.
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/algorithms/path.hpp"

namespace gigaseg {

// The tag of region_stats() in TunedAvailable / Tuned (algorithms/path.hpp).
struct RegionStatsAlgorithm {
  static constexpr char const* name = "region_stats";
};

}  // namespace gigaseg
