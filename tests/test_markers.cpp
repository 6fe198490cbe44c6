// Markers and the post-watershed merge (algorithms/markers.hpp) on every backend: h-maxima
// markers equal to a serial reference (reconstruction by repeated dilation, plateaus by flood
// fill) on distance maps of random blobs, the minimum separation inside and across components,
// background markers against brute-force distances, and region merging on hand-made label images.
#include "gigaseg/algorithms/distance.hpp"
#include "gigaseg/algorithms/markers.hpp"
#include "tests/backends.hpp"
#include "tests/device_helpers.hpp"
#include "tests/generators.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace gigaseg {
namespace {

template <class ExecSpace>
class Markers : public ::testing::Test {};
GIGASEG_BACKEND_TEST_SUITE(Markers);

template <class T>
HostImage<T> zeros(index_t width, index_t height) {
  HostImage<T> image("zeros", width, height);
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) image(y, x) = T(0);
  return image;
}

// Discs of random centres and radii: touching clusters of "cells".
HostImage<std::uint8_t> blobs(index_t width, index_t height, int count, std::uint64_t seed) {
  auto image = zeros<std::uint8_t>(width, height);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < count; ++i) {
    double const cx = double(rng() % std::uint64_t(width)), cy = double(rng() % std::uint64_t(height));
    double const r = 3.0 + double(rng() % 8);
    for (index_t y = 0; y < height; ++y)
      for (index_t x = 0; x < width; ++x)
        if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) image(y, x) = 255;
  }
  return image;
}

// Serial reference: markers = connected plateaus of the reconstruction with no higher neighbour,
// numbered in raster order.
HostImage<Label> reference_markers(HostImage<float> const& d, float h, bool eight) {
  index_t const w = d.width(), hgt = d.height();
  HostImage<float> rec("rec", w, hgt);
  for (index_t y = 0; y < hgt; ++y)
    for (index_t x = 0; x < w; ++x) rec(y, x) = d(y, x) > 0 ? d(y, x) - h : std::numeric_limits<float>::lowest();
  auto neighbours = [&](index_t y, index_t x, auto const& f) {
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        if ((dy == 0 && dx == 0) || (!eight && dy != 0 && dx != 0)) continue;
        index_t const ny = y + dy, nx = x + dx;
        if (ny >= 0 && ny < hgt && nx >= 0 && nx < w && d(ny, nx) > 0) f(ny, nx);
      }
  };
  for (bool changed = true; changed;) {  // Jacobi dilations under D until stable
    changed = false;
    HostImage<float> next("next", w, hgt);
    for (index_t y = 0; y < hgt; ++y)
      for (index_t x = 0; x < w; ++x) {
        float v = rec(y, x);
        if (d(y, x) > 0)
          neighbours(y, x, [&](index_t ny, index_t nx) { v = std::max(v, std::min(rec(ny, nx), d(y, x))); });
        next(y, x) = v;
        changed = changed || v != rec(y, x);
      }
    rec = next;
  }
  auto out = zeros<Label>(w, hgt);
  auto seen = zeros<std::uint8_t>(w, hgt);
  Label next_label = 0;
  for (index_t y = 0; y < hgt; ++y)
    for (index_t x = 0; x < w; ++x) {
      if (d(y, x) <= 0 || seen(y, x)) continue;
      std::vector<std::pair<index_t, index_t>> plateau{{y, x}}, stack{{y, x}};
      seen(y, x) = 1;
      bool maximum = true;
      while (!stack.empty()) {
        index_t const py = stack.back().first, px = stack.back().second;
        stack.pop_back();
        neighbours(py, px, [&](index_t ny, index_t nx) {
          if (rec(ny, nx) > rec(py, px)) maximum = false;
          if (rec(ny, nx) == rec(py, px) && !seen(ny, nx)) {
            seen(ny, nx) = 1;
            stack.emplace_back(ny, nx);
            plateau.emplace_back(ny, nx);
          }
        });
      }
      if (!maximum) continue;
      ++next_label;
      for (auto const& [py, px] : plateau) out(py, px) = next_label;
    }
  // Raster order of first pixels: the scan above meets each plateau at its first pixel.
  return out;
}

template <class Space>
HostImage<float> distance_of(Space const& space, HostImage<std::uint8_t> const& mask) {
  using M = typename Space::memory_space;
  ImageView<float, M> d("d", mask.width(), mask.height());
  distance_transform(space, ImageView<std::uint8_t const, M>(test::to_space(space, mask)), d);
  return test::to_host(space, d);
}

TYPED_TEST(Markers, HMaximaEqualTheSerialReference) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  int cases = 0;
  for (std::uint64_t seed : {1, 2, 3})
    for (float h : {0.5f, 1.0f, 2.5f})
      for (int connectivity : {4, 8}) {
        auto const mask = blobs(83, 61, 14, seed);
        auto const d = distance_of(space, mask);
        auto const expected = reference_markers(d, h, connectivity == 8);
        ImageView<Label, M> markers("markers", 83, 61);
        MarkerParams params;
        params.h = h;
        params.connectivity = connectivity;
        index_t const n = distance_markers(space, ImageView<float const, M>(test::to_space(space, d)), markers, params);
        auto const got = test::to_host(space, markers);
        Label most = 0;
        for (index_t y = 0; y < 61; ++y)
          for (index_t x = 0; x < 83; ++x) {
            ASSERT_EQ(got(y, x), expected(y, x)) << "seed " << seed << " h " << h << " at " << y << "," << x;
            most = std::max(most, expected(y, x));
          }
        EXPECT_EQ(n, index_t(most));
        EXPECT_GT(n, 1);
        ++cases;
      }
  EXPECT_EQ(cases, 18);
}

TYPED_TEST(Markers, TwoTouchingDiscsGiveTwoMarkersAndRipplesNone) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  HostImage<std::uint8_t> mask("mask", 60, 30);
  for (index_t y = 0; y < 30; ++y)
    for (index_t x = 0; x < 60; ++x)
      mask(y, x) =
          (x - 18) * (x - 18) + (y - 15) * (y - 15) <= 121 || (x - 38) * (x - 38) + (y - 15) * (y - 15) <= 121 ? 1 : 0;
  auto const d = distance_of(space, mask);
  ImageView<Label, M> markers("markers", 60, 30);
  MarkerParams params;
  params.h = 1.0f;
  EXPECT_EQ(distance_markers(space, ImageView<float const, M>(test::to_space(space, d)), markers, params), 2);
  auto const got = test::to_host(space, markers);
  EXPECT_EQ(got(15, 18), 1u);
  EXPECT_EQ(got(15, 38), 2u);
  // The neck between them is 2 x sqrt(121 - 100) ~ 9 pixels high (distance ~4.6 against ~11): an h
  // of 7 joins the two peaks into one marker; a larger one still keeps one per component.
  params.h = 7.0f;
  EXPECT_EQ(distance_markers(space, ImageView<float const, M>(test::to_space(space, d)), markers, params), 1);
  params.h = 100.0f;
  EXPECT_EQ(distance_markers(space, ImageView<float const, M>(test::to_space(space, d)), markers, params), 1);
}

TYPED_TEST(Markers, MinimumSeparationWithinComponentsOnly) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  // A hand-made distance map: component A (x < 20) with peaks of heights 9 at (5, 5) and 8 at
  // (5, 9); component B (x > 20) with one peak of 7 at (5, 23), 14 pixels from the first.
  HostImage<float> d("d", 30, 11);
  for (index_t y = 0; y < 11; ++y)
    for (index_t x = 0; x < 30; ++x) d(y, x) = x == 20 ? 0.f : 1.f;
  d(5, 5) = 9.f;
  d(5, 9) = 8.f;
  d(5, 23) = 7.f;
  ImageView<Label, M> markers("markers", 30, 11);
  auto const in = ImageView<float const, M>(test::to_space(space, d));
  MarkerParams params;
  params.h = 0.5f;
  EXPECT_EQ(distance_markers(space, in, markers, params), 3);
  params.min_separation = 5.f;  // the peaks 4 apart: the lower one goes
  EXPECT_EQ(distance_markers(space, in, markers, params), 2);
  auto got = test::to_host(space, markers);
  EXPECT_EQ(got(5, 5), 1u);
  EXPECT_EQ(got(5, 9), 0u);
  EXPECT_EQ(got(5, 23), 2u);
  params.min_separation = 100.f;  // the other component's peak stays however far the limit
  EXPECT_EQ(distance_markers(space, in, markers, params), 2);
  got = test::to_host(space, markers);
  EXPECT_EQ(got(5, 23), 2u);
  params.h = -1.f;
  EXPECT_THROW(distance_markers(space, in, markers, params), Error);
}

TYPED_TEST(Markers, BackgroundMarkersAtDistance) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  auto const mask = blobs(50, 40, 4, 9);
  auto markers = test::to_space(space, zeros<Label>(50, 40));
  index_t const marked =
      background_markers(space, ImageView<std::uint8_t const, M>(test::to_space(space, mask)), markers, 4.5f, 77);
  auto const got = test::to_host(space, markers);
  index_t expected_marked = 0;
  for (index_t y = 0; y < 40; ++y)
    for (index_t x = 0; x < 50; ++x) {
      std::int64_t best = std::numeric_limits<std::int64_t>::max();
      for (index_t fy = 0; fy < 40; ++fy)
        for (index_t fx = 0; fx < 50; ++fx)
          if (mask(fy, fx)) best = std::min(best, (y - fy) * (y - fy) + (x - fx) * (x - fx));
      bool const far = mask(y, x) == 0 && double(best) >= 4.5 * 4.5;
      expected_marked += far;
      ASSERT_EQ(got(y, x), far ? 77u : 0u) << y << "," << x;
    }
  EXPECT_EQ(marked, expected_marked);
  EXPECT_GT(marked, 0);
  auto const empty = zeros<std::uint8_t>(5, 5);  // no foreground: nothing is marked
  EXPECT_EQ(background_markers(space, ImageView<std::uint8_t const, M>(test::to_space(space, empty)),
                               markers.roi(0, 0, 5, 5), 1.f, 3),
            0);
}

TYPED_TEST(Markers, SmallRegionsMergeIntoTheLongestBoundary) {
  TypeParam space;
  // Rows of a label image (0 = background):
  //   region 2 (2x2, small) shares 2 edges each with 6, 3 and 5; region 4 (2 pixels) touches
  //   nothing; region 1 (1 pixel) touches only region 6. Minimum area 5.
  char const* rows[] = {"1666666660",  //
                        "0666666660",  //
                        "3333225555",  //
                        "3333225555",  //
                        "3333005555",  //
                        "0000000000",  //
                        "0000000044"};
  HostImage<Label> labels("labels", 10, 7);
  for (index_t y = 0; y < 7; ++y)
    for (index_t x = 0; x < 10; ++x) labels(y, x) = Label(rows[y][x] - '0');
  auto device = test::to_space(space, labels);
  index_t const n = merge_small_regions(space, device, 6, 5);
  auto const got = test::to_host(space, device);
  // Smallest first: 1 joins 6; 4 is removed; 2's three equal boundaries: the smaller label, 3.
  // Renumbered by first pixel: 6+1 -> 1, 3+2 -> 2, 5 -> 3.
  ASSERT_EQ(n, 3);
  char const* expected[] = {"1111111110",  //
                            "0111111110",  //
                            "2222223333",  //
                            "2222223333",  //
                            "2222003333",  //
                            "0000000000",  //
                            "0000000000"};
  for (index_t y = 0; y < 7; ++y)
    for (index_t x = 0; x < 10; ++x) ASSERT_EQ(got(y, x), Label(expected[y][x] - '0')) << y << "," << x;
}

}  // namespace
}  // namespace gigaseg
