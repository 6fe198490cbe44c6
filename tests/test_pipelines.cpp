// The end-to-end pipelines on every backend, on synthetic tissue with a known cell count: the
// `cells` pipeline (both reliefs) must find every drawn cell, touching pairs split, each cell's
// centre in its own region, and give the same labels on every run; the `kmeans` pipeline must
// find the separate groups of cells (touching pairs are one component there).
#include "gigaseg/algorithms/pipelines/cells.hpp"
#include "gigaseg/algorithms/pipelines/kmeans_segment.hpp"
#include "gigaseg/algorithms/pipelines/nuclei.hpp"
#include "gigaseg/algorithms/pipelines/stars.hpp"
#include "gigaseg/algorithms/pipelines/synthetic.hpp"
#include "tests/backends.hpp"
#include "tests/device_helpers.hpp"
#include "tests/generators.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <set>

namespace gigaseg {
namespace {

template <class ExecSpace>
class Pipelines : public ::testing::Test {};
GIGASEG_BACKEND_TEST_SUITE(Pipelines);

SyntheticTissue tissue() {
  SyntheticParams p;
  p.width = 431;
  p.height = 397;
  p.min_radius = 7;
  p.max_radius = 12;
  p.seed = 5;
  return synthetic_tissue(p);
}

// Groups of touching cells: pairs count once.
std::size_t groups(SyntheticTissue const& t) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < t.cells.size(); ++i) {
    bool joined = false;
    for (std::size_t j = 0; j < i; ++j) {
      double const dx = t.cells[i].x - t.cells[j].x, dy = t.cells[i].y - t.cells[j].y;
      joined = joined || std::sqrt(dx * dx + dy * dy) < t.cells[i].radius + t.cells[j].radius;
    }
    n += joined ? 0 : 1;
  }
  return n;
}

TYPED_TEST(Pipelines, CellsFindsEveryCell) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  auto const t = tissue();
  ASSERT_GT(t.cells.size(), 30u);
  ASSERT_LT(groups(t), t.cells.size());  // there are touching pairs to split
  auto const gray = test::to_space(space, t.image);
  for (CellsRelief relief : {CellsRelief::distance, CellsRelief::gradient}) {
    SCOPED_TRACE(relief == CellsRelief::distance ? "distance relief" : "gradient relief");
    CellsParams params;
    params.relief = relief;
    ImageView<Label, M> labels("labels", gray.width(), gray.height());
    CellsResult const result = segment_cells(space, ImageView<std::uint8_t const, M>(gray), labels, params);
    EXPECT_TRUE(result.dark);
    EXPECT_EQ(result.markers, index_t(t.cells.size()));
    ASSERT_EQ(result.regions.size(), std::size_t(result.components));
    auto const host = test::to_host(space, labels);
    std::set<Label> seen;
    for (auto const& c : t.cells) {
      Label const l = host(index_t(std::lround(c.y)), index_t(std::lround(c.x)));
      EXPECT_NE(l, 0u) << "cell at " << c.x << "," << c.y;
      bool const alone = seen.insert(l).second;
      // The distance relief splits every touching pair; the gradient relief follows edges, and
      // the pairs' stains differ by only 10 grey levels, so one flood may take both cells.
      if (relief == CellsRelief::distance) {
        EXPECT_TRUE(alone) << "cell at " << c.x << "," << c.y << " shares region " << l;
      }
    }
    if (relief == CellsRelief::distance) {
      EXPECT_EQ(result.components, index_t(t.cells.size()));
    } else {
      EXPECT_GE(result.components, index_t(groups(t)));
      EXPECT_LE(result.components, index_t(t.cells.size()));
      EXPECT_EQ(host(0, 0), 0u);  // the background marker's basin is not a region
    }
    for (auto const& r : result.regions) EXPECT_GE(r.area, params.min_area);
    for (char const* stage : {"median", "otsu", "threshold", "open", "edt", "markers", "watershed", "merge", "stats"})
      EXPECT_EQ(result.timings_ms.count(stage), 1u) << stage;
    // The same labels on a second run.
    ImageView<Label, M> again("again", gray.width(), gray.height());
    segment_cells(space, ImageView<std::uint8_t const, M>(gray), again, params);
    EXPECT_EQ(test::count_differences(host, test::to_host(space, again)), 0);
  }
}

TYPED_TEST(Pipelines, KMeansAndNucleiFindTheGroups) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  auto const t = tissue();
  HostImage<Rgb8> rgb("rgb", t.image.width(), t.image.height());
  for (index_t y = 0; y < rgb.height(); ++y)
    for (index_t x = 0; x < rgb.width(); ++x) {
      std::uint8_t const v = t.image(y, x);
      rgb(y, x) = Rgb8{v, std::uint8_t(v * 3 / 4), std::uint8_t(v / 2 + 60)};  // a purple-ish stain
    }
  auto const colour = test::to_space(space, rgb);
  ImageView<Label, M> labels("labels", rgb.width(), rgb.height());
  KMeansSegmentParams params;
  params.kmeans.k = 2;
  params.kmeans.seed = 3;
  auto const result = segment_kmeans(space, ImageView<Rgb8 const, M>(colour), labels, params);
  EXPECT_EQ(result.object_class, 0);  // the darker class: the cells
  // Noise pixels inside cells may join the background class, never split a group's outline;
  // isolated noise specks are possible, so count components of at least 20 pixels.
  index_t large = 0;
  for (auto const& r : result.regions) large += r.area >= 20 ? 1 : 0;
  EXPECT_EQ(large, index_t(groups(t)));

  auto const gray = test::to_space(space, t.image);
  ImageView<Label, M> nuclei_labels("nuclei", rgb.width(), rgb.height());
  auto const nuclei = segment_nuclei(space, ImageView<std::uint8_t const, M>(gray), nuclei_labels);
  large = 0;
  for (auto const& r : nuclei.regions) large += r.area >= 20 ? 1 : 0;
  EXPECT_EQ(large, index_t(groups(t)));
}

// A noisy sky (background 500, Gaussian noise of sigma 4 from a fixed seed, a block of NaN) with
// Gaussian stars of sigma 1.3 at sub-pixel positions: every star found once, its flux-weighted
// centroid within 0.1 pixel, its flux within 15% of the drawn one (the wings below the threshold
// are not counted) and the flux ordered as drawn; the sky's background and noise recovered; NaN
// never a source's. The table is computed on the host, so it is the same on every backend: here
// against the same pipeline's table on the host backend.
TYPED_TEST(Pipelines, StarsFindEveryStarAtItsFluxWeightedCentre) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  struct Star {
    double x, y, amplitude;
  };
  std::vector<Star> const stars{{30.3, 20.6, 700},  {90.75, 35.2, 300}, {60.1, 70.9, 1000}, {140.5, 88.5, 450},
                                {15.2, 100.8, 250}, {110.6, 15.3, 600}, {121.4, 15.1, 280}};
  HostImage<float> sky("sky", 160, 120);
  std::mt19937_64 random(9);
  std::normal_distribution<double> noise(0.0, 4.0);
  for (index_t y = 0; y < sky.height(); ++y)
    for (index_t x = 0; x < sky.width(); ++x) {
      double v = 500 + noise(random);
      for (Star const& s : stars)
        v += s.amplitude * std::exp(-((x - s.x) * (x - s.x) + (y - s.y) * (y - s.y)) / (2 * 1.3 * 1.3));
      sky(y, x) = (y >= 50 && y < 60 && x < 40) ? std::numeric_limits<float>::quiet_NaN() : float(v);
    }
  auto const image = test::to_space(space, sky);
  ImageView<Label, M> labels("labels", sky.width(), sky.height());
  StarResult const result = segment_stars(space, ImageView<float const, M>(image), labels);
  EXPECT_NEAR(result.background, 500, 0.5);
  EXPECT_NEAR(result.noise, 4, 0.4);
  ASSERT_EQ(result.components, index_t(stars.size()));
  for (Star const& s : stars) {
    StarSource const* found = nullptr;
    for (StarSource const& r : result.sources)
      if (found == nullptr || std::hypot(r.cx - s.x, r.cy - s.y) < std::hypot(found->cx - s.x, found->cy - s.y))
        found = &r;
    EXPECT_LT(std::hypot(found->cx - s.x, found->cy - s.y), 0.1) << s.x << "," << s.y;
    double const drawn = 2 * M_PI * 1.3 * 1.3 * s.amplitude;
    EXPECT_GT(found->flux / drawn, 0.85) << s.x << "," << s.y;
    EXPECT_LT(found->flux / drawn, 1.02) << s.x << "," << s.y;
  }
  auto const host_labels = test::to_host(space, labels);
  for (index_t y = 50; y < 60; ++y)
    for (index_t x = 0; x < 40; ++x) EXPECT_EQ(host_labels(y, x), 0u) << "no data is never a source";

  Kokkos::DefaultHostExecutionSpace host;
  ImageView<Label, Kokkos::HostSpace> host_run("host run", sky.width(), sky.height());
  StarResult const reference = segment_stars(host, ImageView<float const, Kokkos::HostSpace>(sky), host_run);
  ASSERT_EQ(reference.sources.size(), result.sources.size());
  for (std::size_t k = 0; k < result.sources.size(); ++k) {
    EXPECT_EQ(result.sources[k].flux, reference.sources[k].flux);
    EXPECT_EQ(result.sources[k].cx, reference.sources[k].cx);
    EXPECT_EQ(result.sources[k].cy, reference.sources[k].cy);
  }

  // An infinite pixel is no source; a sky of integers where most pixels are one value (MAD 0)
  // still has a noise, so only the stars are sources.
  HostImage<float> quantised("quantised", sky.width(), sky.height());
  for (index_t y = 0; y < sky.height(); ++y)
    for (index_t x = 0; x < sky.width(); ++x) {
      double v = 500 + 0.35 * noise(random);
      for (Star const& s : stars)
        v += s.amplitude * std::exp(-((x - s.x) * (x - s.x) + (y - s.y) * (y - s.y)) / (2 * 1.3 * 1.3));
      quantised(y, x) = float(std::round(v));
    }
  quantised(110, 5) = std::numeric_limits<float>::infinity();
  StarResult const integers = segment_stars(space, ImageView<float const, M>(test::to_space(space, quantised)), labels);
  EXPECT_GT(integers.noise, 0);
  EXPECT_EQ(integers.components, index_t(stars.size()));

  StarParams bad;
  bad.nsigma = 0;
  EXPECT_THROW(segment_stars(space, ImageView<float const, M>(image), labels, bad), Error);
  HostImage<float> empty("empty", 8, 8);
  for (index_t y = 0; y < 8; ++y)
    for (index_t x = 0; x < 8; ++x) empty(y, x) = std::numeric_limits<float>::quiet_NaN();
  ImageView<Label, M> small("small", 8, 8);
  EXPECT_THROW(segment_stars(space, ImageView<float const, M>(test::to_space(space, empty)), small), Error);
}

}  // namespace
}  // namespace gigaseg
