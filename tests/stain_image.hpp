#pragma once
// An IHC-like tissue image for colour clustering: near-white background, pink/violet stroma,
// hematoxylin-blue nuclei and brown DAB-positive cells, with sensor noise. Deterministic.
#include "gigaseg/core/image.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace gigaseg::test {

inline HostImage<Rgb8> stain_image(index_t width, index_t height, std::uint64_t seed) {
  HostImage<Rgb8> image("test::stain", width, height);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 6.0);
  struct Blob {
    double x, y, r;
    int kind;
  };
  std::vector<Blob> blobs;
  std::uniform_real_distribution<double> ux(0, double(width)), uy(0, double(height)), ur(3, 9), kind(0, 1);
  index_t const count = std::max<index_t>(4, width * height / 400);
  for (index_t i = 0; i < count; ++i) blobs.push_back({ux(rng), uy(rng), ur(rng), kind(rng) < 0.6 ? 0 : 1});
  double const colours[4][3] = {{240, 238, 235}, {200, 140, 180}, {70, 60, 150}, {150, 95, 45}};
  // Class of each pixel: background or stroma bands, then each blob painted over its box.
  std::vector<std::uint8_t> kind_of(std::size_t(width * height));
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x)
      kind_of[std::size_t(y * width + x)] = std::sin(x * 0.05) + std::cos(y * 0.043) > 0.6 ? 1 : 0;
  for (auto const& b : blobs)
    for (index_t y = std::max<index_t>(0, index_t(b.y - b.r)); y <= std::min<index_t>(height - 1, index_t(b.y + b.r));
         ++y)
      for (index_t x = std::max<index_t>(0, index_t(b.x - b.r)); x <= std::min<index_t>(width - 1, index_t(b.x + b.r));
           ++x)
        if ((x - b.x) * (x - b.x) + (y - b.y) * (y - b.y) < b.r * b.r)
          kind_of[std::size_t(y * width + x)] = std::uint8_t(2 + b.kind);
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) {
      int const c = kind_of[std::size_t(y * width + x)];
      auto channel = [&](int i) { return std::uint8_t(std::clamp(colours[c][i] + noise(rng), 0.0, 255.0)); };
      std::uint8_t const r = channel(0), g = channel(1), bl = channel(2);
      image(y, x) = Rgb8{r, g, bl};
    }
  return image;
}

}  // namespace gigaseg::test
