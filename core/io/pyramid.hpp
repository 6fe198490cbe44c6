#pragma once
// The reduction the pyramidal outputs share (OME-TIFF: ome_tiff.cpp, OME-Zarr: zarr_file.cpp): a
// pixel of a reduced level stands for a 2 x 2 block of the level before it (the pixels of it that
// exist, at the right and bottom edges):
//   - labels (32-bit): the value most of them have, the first in raster order on a tie (a mean of
//     labels would be a label no region has);
//   - masks, gray and colour images, distances: the mean, rounded to the nearest integer for
//     integer samples.
// Each level is half the size of the one before (rounded up) until the largest side is at most
// reduced_tile.
#include "gigaseg/core/pixel.hpp"
#include "gigaseg/core/image.hpp"

#include <cstdint>
#include <type_traits>

namespace gigaseg::detail {

constexpr index_t reduced_tile = 512;

// One pixel of a reduced level from the n (1 to 4) pixels of its block, in raster order.
template <class T>
T reduce_block(T const* v, int n) {
  if constexpr (std::is_same_v<T, std::uint32_t>) {  // labels: the most common, the first on a tie
    T best = v[0];
    int best_count = 0;
    for (int i = 0; i < n; ++i) {
      int count = 0;
      for (int j = 0; j < n; ++j) count += v[j] == v[i] ? 1 : 0;
      if (count > best_count) best = v[i], best_count = count;
    }
    return best;
  } else if constexpr (std::is_same_v<T, float>) {
    float sum = 0;
    for (int i = 0; i < n; ++i) sum += v[i];
    return sum / float(n);
  } else if constexpr (std::is_same_v<T, Rgb8>) {
    unsigned r = 0, g = 0, b = 0;
    for (int i = 0; i < n; ++i) r += v[i].r, g += v[i].g, b += v[i].b;
    unsigned const half = unsigned(n) / 2;
    return Rgb8{std::uint8_t((r + half) / unsigned(n)), std::uint8_t((g + half) / unsigned(n)),
                std::uint8_t((b + half) / unsigned(n))};
  } else {
    std::uint32_t sum = 0;
    for (int i = 0; i < n; ++i) sum += v[i];
    return T((sum + std::uint32_t(n) / 2) / std::uint32_t(n));
  }
}

}  // namespace gigaseg::detail
