#pragma once
// The public types of algorithms/label.hpp, in a header of their own so that the backends
// (backends/*/label_*.hpp) can declare their tuned specialisations without the implementation.
#include "gigaseg/algorithms/path.hpp"

#include <cstdint>

namespace gigaseg {

// The tag of label() in TunedAvailable / Tuned (algorithms/path.hpp).
struct LabelAlgorithm {
  static constexpr char const* name = "label";
};

using Label = std::uint32_t;  // label images are 32-bit (CLI.md); N must fit

struct LabelParams {
  int connectivity = 8;      // 4 or 8
  bool equal_value = false;  // components of equal nonzero values instead of all nonzero pixels
  Path path = Path::automatic;
  bool wide_indices = false;  // force 64-bit union-find entries (tests; automatic past 2^32 pixels)
};

}  // namespace gigaseg
