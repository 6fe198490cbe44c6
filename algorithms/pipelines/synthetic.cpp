// The synthetic tissue generator (pipelines/synthetic.hpp).
#include "gigaseg/algorithms/pipelines/synthetic.hpp"

#include "gigaseg/core/error.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace gigaseg {
namespace {

// A stateless hash for per-pixel noise: the image does not depend on the drawing order.
std::uint32_t hash(std::uint64_t v) {
  v ^= v >> 33;
  v *= 0xff51afd7ed558ccdULL;
  v ^= v >> 33;
  v *= 0xc4ceb9fe1a85ec53ULL;
  v ^= v >> 33;
  return std::uint32_t(v);
}

std::uint8_t clamp8(int v) { return std::uint8_t(std::clamp(v, 0, 255)); }

}  // namespace

SyntheticTissue synthetic_tissue(SyntheticParams const& p) {
  GIGASEG_REQUIRE(p.width > 0 && p.height > 0, ErrorKind::usage, "SyntheticParams::width",
                  "the image needs at least one pixel");
  GIGASEG_REQUIRE(p.min_radius >= 1 && p.max_radius >= p.min_radius, ErrorKind::usage, "synthetic_tissue",
                  "radii must satisfy 1 <= min <= max");
  SyntheticTissue t{HostImage<std::uint8_t>("gigaseg::synthetic", p.width, p.height), {}};
  int const noise = std::max(0, p.noise);
  auto noisy = [&](index_t y, index_t x, int base) {
    if (noise == 0) return clamp8(base);
    std::uint32_t const h =
        hash(p.seed * 0x9e3779b97f4a7c15ULL + std::uint64_t(y) * std::uint64_t(p.width) + std::uint64_t(x));
    return clamp8(base + int(h % std::uint32_t(2 * noise + 1)) - noise);
  };
  // Cells are placed one to a square of 4.2 x max_radius (a pair shares its square) in raster
  // order of the squares, from one random stream; every cell lies inside its square.
  struct Draw {
    SyntheticCell cell;
    int stain;
  };
  std::mt19937_64 rng(p.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  double const square = 4.2 * p.max_radius;
  std::vector<std::vector<Draw>> bands;  // the cells of each row of squares, in drawing order
  for (double sy = 0; sy + square <= double(p.height); sy += square) {
    bands.emplace_back();
    for (double sx = 0; sx + square <= double(p.width); sx += square) {
      if (unit(rng) < p.empty_fraction) continue;
      double const r = p.min_radius + (p.max_radius - p.min_radius) * unit(rng);
      int const stain = 60 + int(70 * unit(rng));
      if (unit(rng) < p.pair_fraction) {
        double const r2 = r * (0.85 + 0.15 * unit(rng));
        double const angle = 6.283185307179586 * unit(rng);
        double const half = 0.75 * r;
        double const mx = sx + square / 2, my = sy + square / 2;
        SyntheticCell const a{mx - half * std::cos(angle), my - half * std::sin(angle), r};
        SyntheticCell const b{mx + half * std::cos(angle), my + half * std::sin(angle), r2};
        bands.back().push_back({a, stain});
        bands.back().push_back({b, std::min(255, stain + 10)});
      } else {
        double const margin = r + 1;
        SyntheticCell const c{sx + margin + (square - 2 * margin) * unit(rng),
                              sy + margin + (square - 2 * margin) * unit(rng), r};
        bands.back().push_back({c, stain});
      }
    }
  }
  for (auto const& band : bands)
    for (auto const& draw : band) t.cells.push_back(draw.cell);

  // Background: a bright stain varying slowly across the slide; then the cells, each band of
  // squares on its own host thread (bands do not overlap; inside a band, in drawing order).
  using Host = Kokkos::DefaultHostExecutionSpace;
  std::vector<double> column(static_cast<std::size_t>(p.width));
  for (index_t x = 0; x < p.width; ++x) column[std::size_t(x)] = std::cos(double(x) * 0.0017);
  Kokkos::parallel_for("gigaseg::synthetic::background", Kokkos::RangePolicy<Host>(0, p.height), [&](index_t y) {
    std::uint8_t* row = t.image.row(y);
    double const sy = std::sin(double(y) * 0.0021);
    for (index_t x = 0; x < p.width; ++x) row[x] = noisy(y, x, 200 + int(12 * sy * column[std::size_t(x)]));
  });
  Kokkos::parallel_for("gigaseg::synthetic::cells", Kokkos::RangePolicy<Host>(0, index_t(bands.size())),
                       [&](index_t b) {
                         for (auto const& [c, stain] : bands[std::size_t(b)]) {
                           index_t const y0 = std::max<index_t>(0, index_t(std::floor(c.y - c.radius)));
                           index_t const y1 = std::min<index_t>(p.height - 1, index_t(std::ceil(c.y + c.radius)));
                           index_t const x0 = std::max<index_t>(0, index_t(std::floor(c.x - c.radius)));
                           index_t const x1 = std::min<index_t>(p.width - 1, index_t(std::ceil(c.x + c.radius)));
                           for (index_t y = y0; y <= y1; ++y)
                             for (index_t x = x0; x <= x1; ++x) {
                               double const dx = double(x) - c.x, dy = double(y) - c.y;
                               if (dx * dx + dy * dy <= c.radius * c.radius) t.image(y, x) = noisy(y, x, stain);
                             }
                         }
                       });
  Host().fence();
  return t;
}

}  // namespace gigaseg
