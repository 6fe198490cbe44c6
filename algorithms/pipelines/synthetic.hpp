#pragma once
// A synthetic tissue-like image with known cells, for the pipeline tests, the benchmarks and
// `gigaseg demo`: dark cells of varying size and stain on a bright, unevenly stained background,
// some cells alone and some in touching pairs, with noise. Deterministic for a seed.
#include "gigaseg/core/image.hpp"

#include <cstdint>
#include <vector>

namespace gigaseg {

struct SyntheticParams {
  index_t width = 8192, height = 8192;
  double min_radius = 7, max_radius = 16;  // pixels
  double pair_fraction = 0.3;              // groups that are two touching cells
  double empty_fraction = 0.15;            // grid squares left empty
  int noise = 12;                          // +- grey levels, uniform
  std::uint64_t seed = 1;
};

struct SyntheticCell {
  double x, y, radius;
};

struct SyntheticTissue {
  HostImage<std::uint8_t> image;
  std::vector<SyntheticCell> cells;  // every disc drawn; pairs overlap by design
};

// Cells sit one group to a square of side 4.2 x max_radius (so groups never touch); a pair's
// centres are 1.5 x the larger radius apart, the second radius 85-100% of the first.
SyntheticTissue synthetic_tissue(SyntheticParams const& params);

}  // namespace gigaseg
