// Connected-component labelling against a serial BFS flood fill written for clarity: exact labels
// and counts on every backend and path, on adversarial images (spirals, combs, checkerboards,
// single pixels, full, empty, 1xN, Nx1, odd sizes, pitched rois) and random masks of density
// 0.1..0.9; equal-value mode on class maps; 8-, 16- and 32-bit input; 64-bit union-find entries;
// the same labels over 20 repeated runs.
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "tests/backends.hpp"
#include "tests/device_helpers.hpp"
#include "tests/generators.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace gigaseg {
namespace {

// Raster scan; each unlabelled foreground pixel starts a new component, filled breadth first.
template <class T>
std::pair<HostImage<Label>, index_t> flood_fill(HostImage<T> const& image, int connectivity, bool equal_value) {
  HostImage<Label> labels("reference", image.width(), image.height());
  for (index_t y = 0; y < image.height(); ++y)
    for (index_t x = 0; x < image.width(); ++x) labels(y, x) = 0;
  index_t count = 0;
  std::deque<std::pair<index_t, index_t>> queue;
  for (index_t y = 0; y < image.height(); ++y)
    for (index_t x = 0; x < image.width(); ++x) {
      if (image(y, x) == 0 || labels(y, x) != 0) continue;
      ++count;
      labels(y, x) = Label(count);
      queue.push_back({y, x});
      while (!queue.empty()) {
        auto const [cy, cx] = queue.front();
        queue.pop_front();
        for (index_t dy = -1; dy <= 1; ++dy)
          for (index_t dx = -1; dx <= 1; ++dx) {
            if ((dy == 0 && dx == 0) || (connectivity == 4 && dy != 0 && dx != 0)) continue;
            index_t const ny = cy + dy, nx = cx + dx;
            if (ny < 0 || nx < 0 || ny >= image.height() || nx >= image.width()) continue;
            if (image(ny, nx) == 0 || labels(ny, nx) != 0) continue;
            if (equal_value && image(ny, nx) != image(cy, cx)) continue;
            labels(ny, nx) = Label(count);
            queue.push_back({ny, nx});
          }
      }
    }
  return {labels, count};
}

HostImage<std::uint8_t> filled(index_t width, index_t height, std::uint8_t value) {
  HostImage<std::uint8_t> image("filled", width, height);
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) image(y, x) = value;
  return image;
}

// Vertical teeth two pixels apart joined only by the last row: every tooth is its own tree until
// the bottom row merges them all (late merges across the whole width).
HostImage<std::uint8_t> comb(index_t width, index_t height) {
  HostImage<std::uint8_t> image = filled(width, height, 0);
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) image(y, x) = (x % 2 == 0 || y == height - 1) ? 255 : 0;
  return image;
}

// The same comb upside down, and with teeth joined from right to left by a staircase: roots must
// move towards smaller indices through long chains.
HostImage<std::uint8_t> staircase(index_t width, index_t height) {
  HostImage<std::uint8_t> image = filled(width, height, 0);
  for (index_t x = 0; x < width; ++x) {
    index_t const y = height - 1 - (x * (height - 1)) / std::max<index_t>(1, width - 1);
    image(y, x) = 200;
    if (y + 1 < height && x % 5 == 0)
      for (index_t t = y; t < height; ++t) image(t, x) = 200;
  }
  return image;
}

HostImage<std::uint8_t> single_pixels(index_t width, index_t height) {
  HostImage<std::uint8_t> image = filled(width, height, 0);
  for (index_t y = 0; y < height; y += 2)
    for (index_t x = (y / 2) % 2; x < width; x += 3) image(y, x) = 1;
  return image;
}

template <class T>
HostImage<T> class_map(index_t width, index_t height, int classes, std::uint64_t seed) {
  HostImage<T> image("classes", width, height);
  std::mt19937_64 rng(seed);
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) image(y, x) = T(rng() % std::uint64_t(classes));
  return image;
}

struct Case {
  std::string name;
  HostImage<std::uint8_t> image;
};

std::vector<Case> adversarial_cases() {
  std::vector<Case> cases;
  cases.push_back({"empty", filled(37, 23, 0)});
  cases.push_back({"full", filled(37, 23, 255)});
  cases.push_back({"1x1 background", filled(1, 1, 0)});
  cases.push_back({"1x1 foreground", filled(1, 1, 7)});
  cases.push_back({"1xN", test::random_mask(1, 301, 0.5, 3)});
  cases.push_back({"Nx1", test::random_mask(301, 1, 0.5, 4)});
  cases.push_back({"spiral", test::spiral(61, 59)});
  cases.push_back({"checkerboard", test::checkerboard(33, 31)});
  cases.push_back({"checkerboard 2", test::checkerboard(45, 29, 2)});
  cases.push_back({"comb", comb(67, 41)});
  cases.push_back({"staircase", staircase(131, 47)});
  cases.push_back({"single pixels", single_pixels(53, 37)});
  for (int d = 1; d <= 9; ++d)
    cases.push_back({"random " + std::to_string(d * 10) + "%", test::random_mask(203, 157, d / 10.0, 100 + d)});
  cases.push_back({"random wide", test::random_mask(1031, 67, 0.55, 7)});
  return cases;
}

template <class Space>
std::vector<Path> label_paths() {
  std::vector<Path> paths{Path::portable};
  if (label_path<Space>(Path::automatic) == Path::tuned) paths.push_back(Path::tuned);
  return paths;
}

template <class Space, class T>
std::pair<HostImage<Label>, index_t> run(Space const& space, HostImage<T> const& image, LabelParams const& params) {
  using M = typename Space::memory_space;
  auto device = test::to_space(space, image);
  ImageView<Label, M> labels("labels", image.width(), image.height());
  index_t const n = label(space, ImageView<T const, M>(device), labels, params);
  return {test::to_host(space, labels), n};
}

template <class ExecSpace>
class LabelOnBackend : public ::testing::Test {};
GIGASEG_BACKEND_TEST_SUITE(LabelOnBackend);

TYPED_TEST(LabelOnBackend, AdversarialImagesMatchFloodFill) {
  for (auto const& c : adversarial_cases())
    for (int connectivity : {4, 8}) {
      auto const [expected, expected_n] = flood_fill(c.image, connectivity, false);
      for (Path path : label_paths<TypeParam>()) {
        LabelParams params;
        params.connectivity = connectivity;
        params.path = path;
        auto const [labels, n] = run(TypeParam(), c.image, params);
        EXPECT_EQ(n, expected_n) << c.name << " connectivity " << connectivity << " path " << to_string(path);
        EXPECT_EQ(test::count_differences(labels, expected), 0)
            << c.name << " connectivity " << connectivity << " path " << to_string(path);
      }
    }
}

TYPED_TEST(LabelOnBackend, PitchedRoiIgnoresItsSurroundings) {
  auto padded = test::padded_roi<std::uint8_t>(77, 45, 3, 255);  // a frame of foreground around the roi
  auto const mask = test::random_mask(77, 45, 0.6, 21);
  for (index_t y = 0; y < 45; ++y)
    for (index_t x = 0; x < 77; ++x) padded.roi(y, x) = mask(y, x);
  for (int connectivity : {4, 8}) {
    auto const [expected, expected_n] = flood_fill(mask, connectivity, false);
    for (Path path : label_paths<TypeParam>()) {
      LabelParams params;
      params.connectivity = connectivity;
      params.path = path;
      auto const [labels, n] = run(TypeParam(), padded.roi, params);
      EXPECT_EQ(n, expected_n) << to_string(path);
      EXPECT_EQ(test::count_differences(labels, expected), 0) << to_string(path);
    }
  }
}

TYPED_TEST(LabelOnBackend, EqualValueModeOnClassMaps) {
  auto const classes8 = class_map<std::uint8_t>(97, 89, 4, 5);
  auto const classes16 = class_map<std::uint16_t>(64, 33, 3, 6);
  auto const classes32 = class_map<std::uint32_t>(41, 50, 5, 7);
  for (int connectivity : {4, 8})
    for (Path path : label_paths<TypeParam>()) {
      LabelParams params;
      params.connectivity = connectivity;
      params.equal_value = true;
      params.path = path;
      {
        auto const [expected, expected_n] = flood_fill(classes8, connectivity, true);
        auto const [labels, n] = run(TypeParam(), classes8, params);
        EXPECT_EQ(n, expected_n);
        EXPECT_EQ(test::count_differences(labels, expected), 0) << "u8 " << to_string(path);
      }
      {
        auto const [expected, expected_n] = flood_fill(classes16, connectivity, true);
        auto const [labels, n] = run(TypeParam(), classes16, params);
        EXPECT_EQ(n, expected_n);
        EXPECT_EQ(test::count_differences(labels, expected), 0) << "u16 " << to_string(path);
      }
      {
        auto const [expected, expected_n] = flood_fill(classes32, connectivity, true);
        auto const [labels, n] = run(TypeParam(), classes32, params);
        EXPECT_EQ(n, expected_n);
        EXPECT_EQ(test::count_differences(labels, expected), 0) << "u32 " << to_string(path);
      }
      // Nonzero mode on the same 16-bit map: all classes but 0 form components together.
      params.equal_value = false;
      auto const [expected, expected_n] = flood_fill(classes16, connectivity, false);
      auto const [labels, n] = run(TypeParam(), classes16, params);
      EXPECT_EQ(n, expected_n);
      EXPECT_EQ(test::count_differences(labels, expected), 0) << "u16 nonzero " << to_string(path);
    }
}

TYPED_TEST(LabelOnBackend, WideIndicesGiveTheSameLabels) {
  auto const mask = test::random_mask(211, 97, 0.5, 8);
  auto const [expected, expected_n] = flood_fill(mask, 8, false);
  for (Path path : label_paths<TypeParam>()) {
    LabelParams params;
    params.path = path;
    params.wide_indices = true;
    auto const [labels, n] = run(TypeParam(), mask, params);
    EXPECT_EQ(n, expected_n);
    EXPECT_EQ(test::count_differences(labels, expected), 0) << to_string(path);
  }
}

TYPED_TEST(LabelOnBackend, TwentyRunsGiveIdenticalLabels) {
  auto const mask = test::random_mask(1000, 700, 0.58, 9);  // near the percolation threshold
  auto const [expected, expected_n] = flood_fill(mask, 8, false);
  for (Path path : label_paths<TypeParam>())
    for (int repeat = 0; repeat < 20; ++repeat) {
      LabelParams params;
      params.path = path;
      auto const [labels, n] = run(TypeParam(), mask, params);
      ASSERT_EQ(n, expected_n) << "run " << repeat << " " << to_string(path);
      ASSERT_EQ(test::count_differences(labels, expected), 0) << "run " << repeat << " " << to_string(path);
    }
}

// Statistics straight from the definition, from the reference labels.
std::vector<RegionStats> reference_stats(HostImage<Label> const& labels, index_t n,
                                         HostImage<std::uint8_t> const& intensity) {
  std::vector<RegionStats> table(static_cast<std::size_t>(n));
  std::vector<double> sum_x(static_cast<std::size_t>(n)), sum_y(static_cast<std::size_t>(n)),
      sum_i(static_cast<std::size_t>(n));
  for (index_t c = 0; c < n; ++c) {
    auto& r = table[std::size_t(c)];
    r.label = Label(c + 1);
    r.x0 = r.y0 = std::numeric_limits<index_t>::max();
    r.x1 = r.y1 = -1;
    r.min_intensity = 1e9;
    r.max_intensity = -1;
  }
  auto at = [&](index_t y, index_t x) -> Label {
    return y < 0 || x < 0 || y >= labels.height() || x >= labels.width() ? 0 : labels(y, x);
  };
  for (index_t y = 0; y < labels.height(); ++y)
    for (index_t x = 0; x < labels.width(); ++x) {
      Label const l = labels(y, x);
      if (l == 0) continue;
      auto& r = table[std::size_t(l - 1)];
      ++r.area;
      r.x0 = std::min(r.x0, x), r.x1 = std::max(r.x1, x), r.y0 = std::min(r.y0, y), r.y1 = std::max(r.y1, y);
      sum_x[std::size_t(l - 1)] += double(x), sum_y[std::size_t(l - 1)] += double(y);
      double const v = intensity(y, x);
      sum_i[std::size_t(l - 1)] += v;
      r.min_intensity = std::min(r.min_intensity, v), r.max_intensity = std::max(r.max_intensity, v);
      r.perimeter += (at(y - 1, x) != l) + (at(y + 1, x) != l) + (at(y, x - 1) != l) + (at(y, x + 1) != l);
    }
  for (index_t c = 0; c < n; ++c) {
    auto& r = table[std::size_t(c)];
    r.cx = sum_x[std::size_t(c)] / double(r.area);
    r.cy = sum_y[std::size_t(c)] / double(r.area);
    r.mean_intensity = sum_i[std::size_t(c)] / double(r.area);
  }
  return table;
}

void expect_same_stats(std::vector<RegionStats> const& got, std::vector<RegionStats> const& want,
                       std::string const& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    auto const &g = got[i], &w = want[i];
    ASSERT_EQ(g.label, w.label) << what;
    EXPECT_EQ(g.area, w.area) << what << " label " << w.label;
    EXPECT_EQ(g.x0, w.x0) << what << " label " << w.label;
    EXPECT_EQ(g.y0, w.y0) << what << " label " << w.label;
    EXPECT_EQ(g.x1, w.x1) << what << " label " << w.label;
    EXPECT_EQ(g.y1, w.y1) << what << " label " << w.label;
    EXPECT_DOUBLE_EQ(g.cx, w.cx) << what << " label " << w.label;
    EXPECT_DOUBLE_EQ(g.cy, w.cy) << what << " label " << w.label;
    EXPECT_EQ(g.perimeter, w.perimeter) << what << " label " << w.label;
    EXPECT_DOUBLE_EQ(g.mean_intensity, w.mean_intensity) << what << " label " << w.label;
    EXPECT_EQ(g.min_intensity, w.min_intensity) << what << " label " << w.label;
    EXPECT_EQ(g.max_intensity, w.max_intensity) << what << " label " << w.label;
  }
}

TYPED_TEST(LabelOnBackend, RegionStatisticsMatchTheDefinition) {
  using M = typename TypeParam::memory_space;
  TypeParam space;
  std::vector<Case> cases;
  cases.push_back({"full", filled(37, 23, 255)});
  cases.push_back({"lone pixel", single_pixels(9, 7)});
  cases.push_back({"spiral", test::spiral(61, 59)});
  cases.push_back({"1xN", test::random_mask(1, 301, 0.5, 3)});
  cases.push_back({"Nx1", test::random_mask(301, 1, 0.5, 4)});
  cases.push_back({"random", test::random_mask(203, 157, 0.45, 11)});
  cases.push_back({"random wide", test::random_mask(1031, 67, 0.7, 12)});
  cases.push_back({"strips", comb(9001, 5)});  // several 4096-pixel strips of the CUDA kernel
  for (auto const& c : cases) {
    auto const [labels, n] = flood_fill(c.image, 8, false);
    auto const intensity = test::noise_u8(c.image.width(), c.image.height(), 77);
    auto device_labels = test::to_space(space, labels);
    auto device_intensity = test::to_space(space, intensity);
    auto const want = reference_stats(labels, n, intensity);
    std::vector<Path> stats_paths{Path::portable};
    if (region_stats_path<TypeParam>(Path::automatic) == Path::tuned) stats_paths.push_back(Path::tuned);
    for (Path path : stats_paths) {
      auto const got = region_stats(space, ImageView<Label const, M>(device_labels), n,
                                    ImageView<std::uint8_t const, M>(device_intensity), path);
      expect_same_stats(got, want, c.name + " " + to_string(path));
    }
  }
  // Definition checks that need no reference: a full image's perimeter, a lone pixel's.
  auto const [full_labels, full_n] = flood_fill(filled(37, 23, 255), 8, false);
  auto const full = region_stats(space, ImageView<Label const, M>(test::to_space(space, full_labels)), full_n,
                                 ImageView<std::uint8_t const, M>(test::to_space(space, filled(37, 23, 255))));
  ASSERT_EQ(full.size(), 1u);
  EXPECT_EQ(full[0].perimeter, 2 * 37 + 2 * 23);
  EXPECT_EQ(full[0].mean_intensity, 255.0);
  // A label image with labels above the given count is an input error, not a memory fault.
  auto const [pixel_labels, pixel_n] = flood_fill(single_pixels(9, 7), 8, false);
  EXPECT_THROW(region_stats(space, ImageView<Label const, M>(test::to_space(space, pixel_labels)), pixel_n - 1,
                            ImageView<std::uint8_t const, M>(test::to_space(space, single_pixels(9, 7)))),
               Error);
}

// first_pixels(): each label's first pixel in raster order (one label's pixels in several runs and
// rows, an absent label, the background), through a pitched roi; a label above the count is an
// input error.
TYPED_TEST(LabelOnBackend, FirstPixelsAreTheRasterFirstOfEachLabel) {
  using M = typename TypeParam::memory_space;
  auto const mask = test::random_mask(61, 37, 0.4, 5);
  auto const [labels, n] = flood_fill(mask, 4, false);
  ASSERT_GT(n, 20);
  std::vector<index_t> expected(std::size_t(n + 2), std::numeric_limits<index_t>::max());
  for (index_t y = 0; y < labels.height(); ++y)
    for (index_t x = 0; x < labels.width(); ++x) {
      Label const l = labels(y, x);
      if (l != 0 && expected[l] == std::numeric_limits<index_t>::max()) expected[l] = y * labels.width() + x;
    }
  auto padded = test::padded_roi<Label>(labels.width(), labels.height(), 2, Label(1));
  for (index_t y = 0; y < labels.height(); ++y)
    for (index_t x = 0; x < labels.width(); ++x) padded.roi(y, x) = labels(y, x);
  auto const on_space = clone<M>(TypeParam(), padded.parent, "labels");
  auto const roi = ImageView<Label const, M>(on_space).roi(2, 2, labels.width(), labels.height());
  std::vector<index_t> const first = first_pixels(TypeParam(), roi, n + 1);  // label n + 1 is absent
  ASSERT_EQ(first.size(), expected.size());
  for (std::size_t l = 0; l < first.size(); ++l) EXPECT_EQ(first[l], expected[l]) << "label " << l;
  try {
    first_pixels(TypeParam(), roi, n - 1);
    FAIL() << "a label above the count was accepted";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
  }
}

TYPED_TEST(LabelOnBackend, RejectsBadParameters) {
  using M = typename TypeParam::memory_space;
  ImageView<std::uint8_t, M> image("image", 4, 4);
  ImageView<Label, M> labels("labels", 4, 4), small("small", 3, 4);
  LabelParams params;
  params.connectivity = 6;
  try {
    label(TypeParam(), image, labels, params);
    FAIL() << "connectivity 6 accepted";
  } catch (Error const& e) {
    // The library names its own parameter; the command line maps it to --connectivity.
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_EQ(e.subject(), "LabelParams::connectivity");
  }
  EXPECT_THROW(label(TypeParam(), ImageView<std::uint8_t const, M>(image), small, LabelParams{}), Error);
}

}  // namespace
}  // namespace gigaseg
