// Watershed by flooding: hand-made cases with known answers (ramps, plateaus, masks, touching
// markers, markers on the border and outside the mask, unreachable islands) and, from
// tests/data/watershed/ (written by scripts/gen-watershed-golden.py with scikit-image), cases on
// which the result must equal skimage.segmentation.watershed exactly (distinct relief values) or
// agree on at least 99% of pixels (8-bit reliefs with plateaus).
#include "gigaseg/algorithms/watershed.hpp"
#include "tests/backends.hpp"
#include "tests/device_helpers.hpp"
#include "tests/generators.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

// tests/CMakeLists.txt defines the data path; compile-only checks build this file without it.
#ifndef GIGASEG_TEST_DATA
#define GIGASEG_TEST_DATA "tests/data"
#endif

namespace gigaseg {
namespace {

template <class T>
HostImage<T> image_of(std::vector<std::vector<double>> const& rows) {
  HostImage<T> image("image", index_t(rows.front().size()), index_t(rows.size()));
  for (index_t y = 0; y < image.height(); ++y)
    for (index_t x = 0; x < image.width(); ++x) image(y, x) = T(rows[std::size_t(y)][std::size_t(x)]);
  return image;
}

std::vector<std::vector<double>> rows_of(HostImage<Label> const& image) {
  std::vector<std::vector<double>> rows(std::size_t(image.height()));
  for (index_t y = 0; y < image.height(); ++y)
    for (index_t x = 0; x < image.width(); ++x) rows[std::size_t(y)].push_back(double(image(y, x)));
  return rows;
}

template <class T>
std::vector<std::vector<double>> flood(HostImage<T> const& relief, HostImage<Label> const& markers, int connectivity,
                                       HostImage<std::uint8_t> const& mask = {}) {
  HostImage<Label> out("out", relief.width(), relief.height());
  watershed_flood(HostImage<T const>(relief), HostImage<Label const>(markers), out, WatershedParams{connectivity},
                  HostImage<std::uint8_t const>(mask));
  return rows_of(out);
}

TEST(Watershed, RampValleysMeetAtTheLowerSide) {
  auto const relief = image_of<std::uint8_t>({{0, 1, 2, 5, 3, 1, 0}});
  auto const markers = image_of<Label>({{1, 0, 0, 0, 0, 0, 2}});
  // The peak is reached first from the left: its left neighbour (2) leaves the front before its
  // right one (3).
  EXPECT_EQ(flood(relief, markers, 4), (std::vector<std::vector<double>>{{1, 1, 1, 1, 2, 2, 2}}));
}

TEST(Watershed, PlateauSplitsInArrivalOrder) {
  // A flat plateau between two markers: the fronts advance one pixel per step each, the left marker
  // (earlier in raster order) first, so the middle pixel goes left.
  auto const relief = image_of<float>({{0, 4, 4, 4, 4, 4, 0}});
  auto const markers = image_of<Label>({{7, 0, 0, 0, 0, 0, 9}});
  EXPECT_EQ(flood(relief, markers, 4), (std::vector<std::vector<double>>{{7, 7, 7, 7, 9, 9, 9}}));
}

TEST(Watershed, MaskBlocksAndDropsMarkers) {
  auto const relief = image_of<std::uint16_t>({{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}});
  auto const markers = image_of<Label>({{1, 0, 0, 0, 3}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 2}});
  auto const mask = image_of<std::uint8_t>({{1, 1, 0, 1, 0}, {1, 1, 0, 1, 1}, {1, 1, 0, 1, 1}});
  // Column 2 is outside the mask: label 1 stays left of it; marker 3 lies outside the mask and is
  // dropped; label 2 floods the right part.
  EXPECT_EQ(flood(relief, markers, 8, mask),
            (std::vector<std::vector<double>>{{1, 1, 0, 2, 0}, {1, 1, 0, 2, 2}, {1, 1, 0, 2, 2}}));
}

TEST(Watershed, UnreachableIslandsStayZeroAndConnectivityMatters) {
  auto const relief = image_of<std::uint8_t>({{0, 0, 0}, {0, 0, 0}, {0, 0, 0}});
  auto const markers = image_of<Label>({{5, 0, 0}, {0, 0, 0}, {0, 0, 0}});
  auto const mask = image_of<std::uint8_t>({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}});  // a diagonal
  EXPECT_EQ(flood(relief, markers, 8, mask), (std::vector<std::vector<double>>{{5, 0, 0}, {0, 5, 0}, {0, 0, 5}}));
  EXPECT_EQ(flood(relief, markers, 4, mask), (std::vector<std::vector<double>>{{5, 0, 0}, {0, 0, 0}, {0, 0, 0}}));
}

TEST(Watershed, TouchingMarkersKeepTheirLabels) {
  auto const relief = image_of<std::uint8_t>({{9, 1, 1, 9}, {9, 2, 2, 9}});
  auto const markers = image_of<Label>({{0, 1, 2, 0}, {0, 0, 0, 0}});
  EXPECT_EQ(flood(relief, markers, 4), (std::vector<std::vector<double>>{{1, 1, 2, 2}, {1, 1, 2, 2}}));
}

TEST(Watershed, RejectsBadConnectivityAndSizes) {
  auto const relief = image_of<std::uint8_t>({{0, 1}});
  auto const markers = image_of<Label>({{1, 0}});
  HostImage<Label> out("out", 2, 1), wrong("wrong", 3, 1);
  EXPECT_THROW(
      watershed_flood(HostImage<std::uint8_t const>(relief), HostImage<Label const>(markers), out, WatershedParams{6}),
      Error);
  EXPECT_THROW(watershed_flood(HostImage<std::uint8_t const>(relief), HostImage<Label const>(markers), wrong), Error);
}

// A case written by scripts/gen-watershed-golden.py.
struct GoldenCase {
  std::string type;
  int connectivity = 8;
  bool exact = true;
  std::vector<std::vector<double>> relief, markers, mask, expected;
};

GoldenCase read_case(std::string const& name) {
  char const* env = std::getenv("GIGASEG_TEST_DATA");
  std::string const path = std::string(env ? env : GIGASEG_TEST_DATA) + "/watershed/" + name + ".txt";
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot open " + path);
  GoldenCase c;
  int width = 0, height = 0;
  std::string line, word;
  auto read_rows = [&](std::vector<std::vector<double>>& rows) {
    for (int y = 0; y < height; ++y) {
      std::getline(file, line);
      std::istringstream in(line);
      std::vector<double> row;
      double v;
      while (in >> v) row.push_back(v);
      if (int(row.size()) != width) throw std::runtime_error(path + ": ragged row");
      rows.push_back(row);
    }
  };
  while (std::getline(file, line)) {
    std::istringstream in(line);
    in >> word;
    if (word == "type")
      in >> c.type;
    else if (word == "size")
      in >> width >> height;
    else if (word == "connectivity")
      in >> c.connectivity;
    else if (word == "exact")
      in >> c.exact;
    else if (word == "relief")
      read_rows(c.relief);
    else if (word == "markers")
      read_rows(c.markers);
    else if (word == "mask" && line.find("none") == std::string::npos)
      read_rows(c.mask);
    else if (word == "expected")
      read_rows(c.expected);
  }
  return c;
}

std::vector<std::vector<double>> run_case(GoldenCase const& c) {
  HostImage<std::uint8_t> mask;
  if (!c.mask.empty()) mask = image_of<std::uint8_t>(c.mask);
  auto const markers = image_of<Label>(c.markers);
  if (c.type == "float") return flood(image_of<float>(c.relief), markers, c.connectivity, mask);
  if (c.type == "u16") return flood(image_of<std::uint16_t>(c.relief), markers, c.connectivity, mask);
  return flood(image_of<std::uint8_t>(c.relief), markers, c.connectivity, mask);
}

class WatershedGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(WatershedGolden, AgreesWithScikitImage) {
  GoldenCase const c = read_case(GetParam());
  auto const ours = run_case(c);
  std::size_t same = 0, total = 0;
  for (std::size_t y = 0; y < ours.size(); ++y)
    for (std::size_t x = 0; x < ours[y].size(); ++x, ++total) same += ours[y][x] == c.expected[y][x];
  double const agreement = double(same) / double(total);
  if (c.exact)
    EXPECT_EQ(same, total) << "distinct relief values: the result must equal scikit-image's";
  else
    EXPECT_GE(agreement, 0.99) << "plateaus: " << same << " of " << total << " pixels agree";
  RecordProperty("agreement", std::to_string(agreement));
}

INSTANTIATE_TEST_SUITE_P(Cases, WatershedGolden,
                         ::testing::Values("distinct_float_c4", "distinct_float_c8", "distinct_u16_mask_c4",
                                           "distinct_u16_mask_c8", "plateau_cells_0_c8", "plateau_cells_1_c8"));

// The parallel watershed on every backend against the serial flood.
template <class ExecSpace>
class WatershedOnBackend : public ::testing::Test {};
GIGASEG_BACKEND_TEST_SUITE(WatershedOnBackend);

// The backend's portable (parallel) path: the tuned OpenMP path is the serial flood itself.
template <class Space, class T>
HostImage<Label> parallel(Space const& space, HostImage<T> const& relief, HostImage<Label> const& markers,
                          int connectivity, HostImage<std::uint8_t> const& mask = {}, Path path = Path::portable) {
  using M = typename Space::memory_space;
  ImageView<Label, M> out("out", relief.width(), relief.height());
  ImageView<std::uint8_t, M> device_mask;
  if (!mask.empty()) device_mask = test::to_space(space, mask);
  watershed(space, ImageView<T const, M>(test::to_space(space, relief)),
            ImageView<Label const, M>(test::to_space(space, markers)), out, WatershedParams{connectivity, path},
            ImageView<std::uint8_t const, M>(device_mask));
  return test::to_host(space, out);
}

TYPED_TEST(WatershedOnBackend, GoldenCasesAndHandMadeOnes) {
  TypeParam space;
  for (std::string const name : {"distinct_float_c4", "distinct_float_c8", "distinct_u16_mask_c4",
                                 "distinct_u16_mask_c8", "plateau_cells_0_c8", "plateau_cells_1_c8"}) {
    GoldenCase const c = read_case(name);
    HostImage<std::uint8_t> mask;
    if (!c.mask.empty()) mask = image_of<std::uint8_t>(c.mask);
    auto const markers = image_of<Label>(c.markers);
    HostImage<Label> ours;
    if (c.type == "float")
      ours = parallel(space, image_of<float>(c.relief), markers, c.connectivity, mask);
    else if (c.type == "u16")
      ours = parallel(space, image_of<std::uint16_t>(c.relief), markers, c.connectivity, mask);
    else
      ours = parallel(space, image_of<std::uint8_t>(c.relief), markers, c.connectivity, mask);
    auto const expected = image_of<Label>(c.expected);
    index_t const differ = test::count_differences(ours, expected);
    this->RecordProperty(std::string(name) + "_differing_pixels", std::to_string(differ));
    if (c.exact)
      EXPECT_EQ(differ, 0) << name;
    else
      EXPECT_LE(double(differ), 0.01 * double(ours.width() * ours.height()))
          << name << ": " << differ << " pixels differ";
  }
  auto const relief = image_of<float>({{0, 4, 4, 4, 4, 4, 0}});
  EXPECT_EQ(rows_of(parallel(space, relief, image_of<Label>({{7, 0, 0, 0, 0, 0, 9}}), 4)),
            (std::vector<std::vector<double>>{{7, 7, 7, 7, 9, 9, 9}}));
  auto const diagonal = image_of<std::uint8_t>({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
  auto const flat = image_of<std::uint8_t>({{0, 0, 0}, {0, 0, 0}, {0, 0, 0}});
  auto const corner = image_of<Label>({{5, 0, 0}, {0, 0, 0}, {0, 0, 0}});
  EXPECT_EQ(rows_of(parallel(space, flat, corner, 4, diagonal)),
            (std::vector<std::vector<double>>{{5, 0, 0}, {0, 0, 0}, {0, 0, 0}}));
  EXPECT_EQ(rows_of(parallel(space, flat, corner, 8, diagonal)),
            (std::vector<std::vector<double>>{{5, 0, 0}, {0, 5, 0}, {0, 0, 5}}));
}

TYPED_TEST(WatershedOnBackend, EqualsTheFloodOnDistinctReliefs) {
  TypeParam space;
  std::mt19937_64 rng(77);
  for (auto [w, h] : {std::pair<index_t, index_t>{1, 60}, {60, 1}, {97, 83}, {256, 130}}) {
    std::vector<std::uint16_t> values(std::size_t(w * h));
    std::iota(values.begin(), values.end(), std::uint16_t(0));
    std::shuffle(values.begin(), values.end(), rng);
    HostImage<std::uint16_t> relief("relief", w, h);
    HostImage<Label> markers("markers", w, h);
    for (index_t y = 0; y < h; ++y)
      for (index_t x = 0; x < w; ++x) relief(y, x) = values[std::size_t(y * w + x)], markers(y, x) = 0;
    for (Label l = 1; l <= 12; ++l) markers(index_t(rng() % std::uint64_t(h)), index_t(rng() % std::uint64_t(w))) = l;
    auto const mask = test::random_mask(w, h, 0.9, 5);
    for (int connectivity : {4, 8})
      for (bool with_mask : {false, true}) {
        HostImage<Label> expected("expected", w, h);
        watershed_flood(HostImage<std::uint16_t const>(relief), HostImage<Label const>(markers), expected,
                        WatershedParams{connectivity},
                        with_mask ? HostImage<std::uint8_t const>(mask) : HostImage<std::uint8_t const>());
        for (Path path : {Path::portable, Path::automatic}) {
          auto const ours =
              parallel(space, relief, markers, connectivity, with_mask ? mask : HostImage<std::uint8_t>(), path);
          EXPECT_EQ(test::count_differences(ours, expected), 0)
              << w << "x" << h << " connectivity " << connectivity << (with_mask ? " masked" : "") << " path "
              << to_string(path);
        }
      }
  }
}

// Plateaus everywhere: reliefs of a few levels (random noise, quantised ramps and bowls, flat
// images with pits, one level), 8-bit, 16-bit and float, markers scattered and in blobs, with and
// without a mask, 4- and 8-connected. Every path on every backend must give the flood's labels
// bit for bit (the tie rule is one, detail/watershed_key.hpp).
template <class T>
HostImage<T> plateau_relief(int kind, index_t w, index_t h, std::mt19937_64& rng) {
  HostImage<T> relief("relief", w, h);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) {
      double v = 0;
      switch (kind) {
        case 0: v = double(rng() % 3); break;                                                 // noise of 3 levels
        case 1: v = double((x + 2 * y) / 17 % 5); break;                                      // quantised ramps
        case 2: v = std::floor(std::hypot(double(x - w / 2), double(y - h / 3)) / 9); break;  // bowl
        case 3: v = rng() % 97 == 0 ? 0.0 : 6.0; break;                                       // flat with pits
        default: v = 4; break;                                                                // one level
      }
      relief(y, x) = T(v);
    }
  return relief;
}

TYPED_TEST(WatershedOnBackend, EqualsTheFloodOnPlateaus) {
  TypeParam space;
  std::mt19937_64 rng(2026);
  auto check = [&](auto const& relief, char const* type, int kind) {
    index_t const w = relief.width(), h = relief.height();
    HostImage<Label> markers("markers", w, h);
    for (index_t y = 0; y < h; ++y)
      for (index_t x = 0; x < w; ++x) markers(y, x) = 0;
    for (Label l = 1; l <= 9; ++l) {  // blobs of 1 to 3 x 3 pixels, some touching the border
      index_t const cy = index_t(rng() % std::uint64_t(h)), cx = index_t(rng() % std::uint64_t(w));
      int const r = int(rng() % 2);
      for (index_t y = std::max<index_t>(0, cy - r); y <= std::min(h - 1, cy + r); ++y)
        for (index_t x = std::max<index_t>(0, cx - r); x <= std::min(w - 1, cx + r); ++x) markers(y, x) = l;
    }
    auto const mask = test::random_mask(w, h, 0.85, 3);
    for (int connectivity : {4, 8})
      for (bool with_mask : {false, true}) {
        HostImage<std::uint8_t> const m = with_mask ? mask : HostImage<std::uint8_t>();
        HostImage<Label> expected("expected", w, h);
        using T = typename std::decay_t<decltype(relief)>::value_type;
        watershed_flood(HostImage<T const>(relief), HostImage<Label const>(markers), expected,
                        WatershedParams{connectivity}, HostImage<std::uint8_t const>(m));
        index_t labelled = 0;
        for (index_t y = 0; y < h; ++y)
          for (index_t x = 0; x < w; ++x) labelled += expected(y, x) != 0;
        if (w > 1 && h > 1) {
          EXPECT_GT(labelled, (w * h) / 4) << "the flood reaches most pixels";
        }
        for (Path path : {Path::portable, Path::automatic}) {
          auto const ours = parallel(space, relief, markers, connectivity, m, path);
          EXPECT_EQ(test::count_differences(ours, expected), 0)
              << type << " kind " << kind << " " << w << "x" << h << " connectivity " << connectivity
              << (with_mask ? " masked" : "") << " path " << to_string(path);
        }
      }
  };
  for (auto [w, h] : {std::pair<index_t, index_t>{1, 50}, {71, 1}, {93, 61}, {170, 120}})
    for (int kind = 0; kind < 5; ++kind) {
      check(plateau_relief<std::uint8_t>(kind, w, h, rng), "u8", kind);
      check(plateau_relief<std::uint16_t>(kind, w, h, rng), "u16", kind);
      check(plateau_relief<float>(kind, w, h, rng), "float", kind);
    }
}

// The watershed tile by tile (watershed_tile): the image cut into tiles of 7 x 5, 16 x 16 and
// 40 x 9 pixels, each tile relaxed with a ring of its neighbours' keys and labels, rounds over all
// tiles until no key or label changes; the labels must be the flood's on the whole image, bit for
// bit, on the plateau reliefs above (8-bit, 16-bit, float; 4- and 8-connected; with a mask).
// Reports the rounds, and the cases must need more than one: the floods cross tile edges.
template <class Space, class T>
index_t tiled_watershed(Space const& space, HostImage<T> const& relief, HostImage<Label> const& markers,
                        HostImage<std::uint8_t> const& mask, int connectivity, index_t tile_w, index_t tile_h,
                        HostImage<Label>& labels, Path path) {
  using M = typename Space::memory_space;
  index_t const w = relief.width(), h = relief.height();
  HostImage<std::uint64_t> keys("keys", w, h);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) keys(y, x) = watershed_key_unreached, labels(y, x) = 0;
  for (index_t round = 1;; ++round) {
    bool changed = false;
    for (index_t ty = 0; ty < h; ty += tile_h)
      for (index_t tx = 0; tx < w; tx += tile_w) {
        index_t const tw = std::min(tile_w, w - tx), th = std::min(tile_h, h - ty);
        HostImage<T> r("r", tw + 2, th + 2);
        HostImage<Label> m("m", tw + 2, th + 2), l("l", tw + 2, th + 2);
        HostImage<std::uint8_t> k_mask("k_mask", tw + 2, th + 2);
        HostImage<std::uint64_t> k("k", tw + 2, th + 2);
        for (index_t y = 0; y < th + 2; ++y)
          for (index_t x = 0; x < tw + 2; ++x) {
            index_t const gy = ty + y - 1, gx = tx + x - 1;
            bool const inside = gy >= 0 && gy < h && gx >= 0 && gx < w;
            r(y, x) = inside ? relief(gy, gx) : T(0);
            m(y, x) = inside ? markers(gy, gx) : 0;
            k_mask(y, x) = inside && (mask.empty() || mask(gy, gx) != 0) ? 1 : 0;
            k(y, x) = inside ? keys(gy, gx) : watershed_key_unreached;
            l(y, x) = inside ? labels(gy, gx) : 0;
          }
        ImageView<std::uint64_t, M> const k_on = test::to_space(space, k);
        ImageView<Label, M> const l_on = test::to_space(space, l);
        WatershedParams params{connectivity};
        params.path = path;
        ImageView<T const, M> const r_on(test::to_space(space, r));
        ImageView<Label const, M> const m_on(test::to_space(space, m));
        // Without a mask the ring beyond the image stays unreached, so no mask is needed there.
        ImageView<std::uint8_t const, M> const mask_on =
            mask.empty() ? ImageView<std::uint8_t const, M>()
                         : ImageView<std::uint8_t const, M>(test::to_space(space, k_mask));
        watershed_tile(space, r_on, m_on, k_on, l_on, params, mask_on);
        auto const k_out = test::to_host(space, k_on);
        auto const l_out = test::to_host(space, l_on);
        if (path != Path::portable) {  // the tuned path's keys and labels are the portable path's
          ImageView<std::uint64_t, M> const k_portable = test::to_space(space, k);
          ImageView<Label, M> const l_portable = test::to_space(space, l);
          params.path = Path::portable;
          watershed_tile(space, r_on, m_on, k_portable, l_portable, params, mask_on);
          EXPECT_EQ(test::count_differences(test::to_host(space, k_portable), k_out), 0) << "keys";
          EXPECT_EQ(test::count_differences(test::to_host(space, l_portable), l_out), 0) << "labels";
        }
        for (index_t y = 1; y <= th; ++y)
          for (index_t x = 1; x <= tw; ++x) {
            index_t const gy = ty + y - 1, gx = tx + x - 1;
            EXPECT_LE(k_out(y, x), keys(gy, gx)) << "a key rose";
            changed = changed || k_out(y, x) != keys(gy, gx) || l_out(y, x) != labels(gy, gx);
            keys(gy, gx) = k_out(y, x);
            labels(gy, gx) = l_out(y, x);
          }
      }
    if (!changed) return round;
  }
}

TYPED_TEST(WatershedOnBackend, TilesWithRingsEqualTheFlood) {
  TypeParam space;
  std::mt19937_64 rng(77);
  index_t most_rounds = 0;
  auto check = [&](auto const& relief, char const* type, int kind) {
    using T = typename std::decay_t<decltype(relief)>::value_type;
    index_t const w = relief.width(), h = relief.height();
    HostImage<Label> markers("markers", w, h);
    for (index_t y = 0; y < h; ++y)
      for (index_t x = 0; x < w; ++x) markers(y, x) = rng() % 150 == 0 ? Label(1 + rng() % 12) : 0;
    auto const mask = test::random_mask(w, h, 0.9, 5);
    for (int connectivity : {4, 8})
      for (bool with_mask : {false, true}) {
        HostImage<std::uint8_t> const m = with_mask ? mask : HostImage<std::uint8_t>();
        HostImage<Label> expected("expected", w, h);
        watershed_flood(HostImage<T const>(relief), HostImage<Label const>(markers), expected,
                        WatershedParams{connectivity}, HostImage<std::uint8_t const>(m));
        for (auto [tw, th] : {std::pair<index_t, index_t>{7, 5}, {16, 16}, {40, 9}})
          for (Path path : {Path::portable, Path::automatic}) {
            HostImage<Label> labels("labels", w, h);
            index_t const rounds = tiled_watershed(space, relief, markers, m, connectivity, tw, th, labels, path);
            most_rounds = std::max(most_rounds, rounds);
            EXPECT_EQ(test::count_differences(labels, expected), 0)
                << type << " kind " << kind << " connectivity " << connectivity << (with_mask ? " masked" : "")
                << " tiles " << tw << "x" << th << " path " << to_string(path) << " after " << rounds << " rounds";
          }
      }
  };
  for (int kind = 0; kind < 5; ++kind) {
    check(plateau_relief<std::uint8_t>(kind, 61, 47, rng), "u8", kind);
    check(plateau_relief<std::uint16_t>(kind, 61, 47, rng), "u16", kind);
    check(plateau_relief<float>(kind, 61, 47, rng), "float", kind);
  }
  EXPECT_GT(most_rounds, 2) << "the floods cross tile edges: some case needs several rounds";
  std::printf("watershed tiles: at most %lld rounds\n", (long long)most_rounds);
}

}  // namespace
}  // namespace gigaseg
