#pragma once
// The public types of algorithms/watershed.hpp, in a header of their own so that the backends
// (backends/openmp/watershed_openmp.hpp) can declare their tuned specialisations without the
// implementation.
#include "gigaseg/algorithms/path.hpp"

namespace gigaseg {

// The tag of watershed() in TunedAvailable / Tuned (algorithms/path.hpp).
struct WatershedAlgorithm {
  static constexpr char const* name = "watershed";
};

// The tag of watershed_tile() (the OpenMP backend's tuned path floods the host tile by key).
struct WatershedTileAlgorithm {
  static constexpr char const* name = "watershed_tile";
};

struct WatershedParams {
  int connectivity = 8;  // 4 or 8 neighbours (skimage's connectivity 1 or 2)
  Path path = Path::automatic;
};

}  // namespace gigaseg
