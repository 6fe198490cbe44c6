// The end-to-end pipelines on every backend, on synthetic tissue with a known cell count: the
// `cells` pipeline (both reliefs) must find every drawn cell, touching pairs split, each cell's
// centre in its own region, and give the same labels on every run; the `kmeans` pipeline must
// find the separate groups of cells (touching pairs are one component there).
#include "gigaseg/algorithms/pipelines/cells.hpp"
#include "gigaseg/algorithms/pipelines/kmeans_segment.hpp"
#include "gigaseg/algorithms/pipelines/nuclei.hpp"
#include "gigaseg/algorithms/pipelines/synthetic.hpp"
#include "tests/backends.hpp"
#include "tests/device_helpers.hpp"
#include "tests/generators.hpp"

#include <gtest/gtest.h>

#include <cmath>
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

}  // namespace
}  // namespace gigaseg
