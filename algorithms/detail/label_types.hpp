#pragma once
// The types of algorithms/label.hpp, in a header of their own so that the backend kernels
// (backends/*/label_*.hpp) can declare their entry points without the dispatcher.
#include "algorithms/path.hpp"

#include <cstdint>

namespace gigaseg {

using Label = std::uint32_t;  // label images are 32-bit (CLI.md); N must fit

struct LabelParams {
  int connectivity = 8;      // 4 or 8
  bool equal_value = false;  // components of equal nonzero values instead of all nonzero pixels
  Path path = Path::automatic;
  bool wide_indices = false;  // force 64-bit union-find entries (tests; automatic past 2^32 pixels)
};

}  // namespace gigaseg
