// Exact Euclidean distance transform on every backend against brute force (the exact definition
// scipy.ndimage.distance_transform_edt computes): random masks of several densities, a single
// zero pixel, columns and rows without zero pixels, 1xN and Nx1, pitched rois; the squared
// distances must be equal, the float distances the correctly rounded square roots, and each
// `nearest` index the documented one among the zero pixels at exactly that squared distance: the
// leftmost column, then the upper row. Every path on every backend.
#include "gigaseg/algorithms/distance.hpp"
#include "tests/backends.hpp"
#include "tests/device_helpers.hpp"
#include "tests/generators.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <limits>
#include <vector>

namespace gigaseg {
namespace {

template <class ExecSpace>
class Distance : public ::testing::Test {};
GIGASEG_BACKEND_TEST_SUITE(Distance);

template <class Space>
std::vector<Path> distance_paths() {
  std::vector<Path> paths{Path::portable};
  if (distance_path<Space>(Path::automatic) == Path::tuned) paths.push_back(Path::tuned);
  return paths;
}

// The squared distance from every pixel to the nearest zero pixel, by trying them all; `site`
// receives the tie rule's choice among the nearest (leftmost column, then upper row).
HostImage<std::int64_t> brute_force(HostImage<std::uint8_t> const& image, HostImage<index_t>* site = nullptr) {
  std::vector<std::pair<index_t, index_t>> zeros;
  for (index_t y = 0; y < image.height(); ++y)
    for (index_t x = 0; x < image.width(); ++x)
      if (image(y, x) == 0) zeros.emplace_back(y, x);
  HostImage<std::int64_t> out("brute", image.width(), image.height());
  for (index_t y = 0; y < image.height(); ++y)
    for (index_t x = 0; x < image.width(); ++x) {
      std::int64_t best = std::numeric_limits<std::int64_t>::max();
      index_t by = 0, bx = 0;
      for (auto const& [zy, zx] : zeros) {
        std::int64_t const d = (y - zy) * (y - zy) + (x - zx) * (x - zx);
        if (d < best || (d == best && (zx < bx || (zx == bx && zy < by)))) best = d, by = zy, bx = zx;
      }
      out(y, x) = best;
      if (site) (*site)(y, x) = by * image.width() + bx;
    }
  return out;
}

std::vector<HostImage<std::uint8_t>> cases() {
  std::vector<HostImage<std::uint8_t>> images;
  for (double density : {0.5, 0.9, 0.99})
    images.push_back(test::random_mask(67, 45, density, std::uint64_t(density * 100)));
  HostImage<std::uint8_t> single("single", 40, 31);  // one zero pixel: distances across the image
  for (index_t y = 0; y < 31; ++y)
    for (index_t x = 0; x < 40; ++x) single(y, x) = 1;
  single(7, 29) = 0;
  images.push_back(single);
  HostImage<std::uint8_t> stripes("stripes", 33, 20);  // zero pixels in two columns only
  for (index_t y = 0; y < 20; ++y)
    for (index_t x = 0; x < 33; ++x) stripes(y, x) = (x == 3 || x == 30) && y % 7 == 2 ? 0 : 200;
  images.push_back(stripes);
  images.push_back(test::random_mask(1, 50, 0.8, 5));
  images.push_back(test::random_mask(50, 1, 0.8, 6));
  images.push_back(test::random_mask(1, 1, 0.0, 7));
  auto const big = test::random_mask(90, 70, 0.97, 8);
  images.push_back(big.roi(3, 5, 81, 61));
  images.push_back(test::checkerboard(20, 16, 3));
  // Rows whose pixels lie more than 512 columns from their nearest zero pixel: the CUDA search
  // hands those rows to the envelope pass.
  HostImage<std::uint8_t> wide("wide", 1300, 6);
  for (index_t y = 0; y < 6; ++y)
    for (index_t x = 0; x < 1300; ++x)
      wide(y, x) = (x == 2 && y == 1) || (x == 1297 && y == 5) || (y == 4 && x == 650) ? 0 : 9;
  images.push_back(wide);
  // Columns of several 64-row segments (the CUDA column pass), and a row long enough for 64-bit
  // squares in the CUDA search (width + height > 46340).
  images.push_back(test::random_mask(3, 300, 0.97, 14));
  images.push_back(test::random_mask(46400, 1, 0.999, 13));
  return images;
}

TYPED_TEST(Distance, EqualsBruteForceWithSquaredAndNearest) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  for (auto const& image : cases()) {
    HostImage<index_t> site("site", image.width(), image.height());
    auto const expected = brute_force(image, &site);
    for (Path path : distance_paths<TypeParam>()) {
      SCOPED_TRACE(to_string(path));
      ImageView<float, M> distance("distance", image.width(), image.height());
      DistanceOutputs<M> extra{ImageView<std::int64_t, M>("squared", image.width(), image.height()),
                               ImageView<index_t, M>("nearest", image.width(), image.height())};
      distance_transform(space, ImageView<std::uint8_t const, M>(test::to_space(space, image)), distance, extra,
                         DistanceParams{path});
      auto const d = test::to_host(space, distance);
      auto const squared = test::to_host(space, extra.squared);
      auto const nearest = test::to_host(space, extra.nearest);
      for (index_t y = 0; y < image.height(); ++y)
        for (index_t x = 0; x < image.width(); ++x) {
          std::int64_t const e = expected(y, x);
          ASSERT_EQ(squared(y, x), e) << image.width() << "x" << image.height() << " at " << y << "," << x;
          ASSERT_EQ(d(y, x), float(std::sqrt(double(e)))) << " at " << y << "," << x;
          index_t const n = nearest(y, x), ny = n / image.width(), nx = n % image.width();
          ASSERT_TRUE(n >= 0 && ny < image.height()) << " at " << y << "," << x;
          ASSERT_EQ(image(ny, nx), 0) << "nearest of " << y << "," << x << " is not a zero pixel";
          ASSERT_EQ((y - ny) * (y - ny) + (x - nx) * (x - nx), e)
              << "nearest of " << y << "," << x << " is not nearest";
          ASSERT_EQ(n, site(y, x)) << "nearest of " << y << "," << x << " breaks the tie rule";
        }
    }
  }
}

// Every case cut into bands of whole rows (1, 2, 7 and 16 rows, the last band shorter), each band
// transformed on its own with the nearest zero pixels above and below it as carries: every output
// of every band equal to the brute force over the whole image, `nearest` included. A band with no
// zero pixel of its own takes its distances from the carries alone.
TYPED_TEST(Distance, BandsOfRowsEqualTheWholeImage) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  using Carry = Kokkos::View<std::int32_t*, M>;
  for (auto const& image : cases()) {
    index_t const w = image.width(), h = image.height();
    HostImage<index_t> site("site", w, h);
    auto const expected = brute_force(image, &site);
    for (index_t rows : {index_t(1), index_t(2), index_t(7), index_t(16)}) {
      for (index_t y0 = 0; y0 < h; y0 += rows) {
        index_t const bh = std::min(rows, h - y0);
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " band at " + std::to_string(y0));
        Carry above("above", std::size_t(w)), below("below", std::size_t(w));
        auto above_host = Kokkos::create_mirror_view(above), below_host = Kokkos::create_mirror_view(below);
        for (index_t x = 0; x < w; ++x) {
          above_host(x) = below_host(x) = -1;
          for (index_t y = 0; y < y0; ++y)
            if (image(y, x) == 0) above_host(x) = std::int32_t(y);
          for (index_t y = h - 1; y >= y0 + bh; --y)
            if (image(y, x) == 0) below_host(x) = std::int32_t(y);
        }
        Kokkos::deep_copy(above, above_host);
        Kokkos::deep_copy(below, below_host);
        DistanceBand<M> const band{y0, h, above, below};
        ImageView<float, M> distance("distance", w, bh);
        DistanceOutputs<M> extra{ImageView<std::int64_t, M>("squared", w, bh), ImageView<index_t, M>("nearest", w, bh)};
        distance_transform_band(space, ImageView<std::uint8_t const, M>(test::to_space(space, image.roi(0, y0, w, bh))),
                                band, distance, extra);
        auto const d = test::to_host(space, distance);
        auto const squared = test::to_host(space, extra.squared);
        auto const nearest = test::to_host(space, extra.nearest);
        for (index_t y = 0; y < bh; ++y)
          for (index_t x = 0; x < w; ++x) {
            std::int64_t const e = expected(y0 + y, x);
            ASSERT_EQ(squared(y, x), e) << " at " << y0 + y << "," << x;
            ASSERT_EQ(d(y, x), float(std::sqrt(double(e)))) << " at " << y0 + y << "," << x;
            ASSERT_EQ(nearest(y, x), site(y0 + y, x)) << " at " << y0 + y << "," << x;
          }
      }
    }
  }
  // Carries of the wrong length, a band outside its image, and no zero pixel anywhere.
  auto const all_set = test::random_mask(12, 9, 1.0, 12);
  auto const in = test::to_space(space, all_set);
  ImageView<float, M> d("d", 12, 9);
  Carry none("none", 12), short_carry("short", 11);
  Kokkos::deep_copy(none, -1);
  EXPECT_THROW(
      distance_transform_band(space, ImageView<std::uint8_t const, M>(in), DistanceBand<M>{0, 9, none, none}, d),
      Error);
  EXPECT_THROW(
      distance_transform_band(space, ImageView<std::uint8_t const, M>(in), DistanceBand<M>{0, 9, short_carry, none}, d),
      Error);
  EXPECT_THROW(
      distance_transform_band(space, ImageView<std::uint8_t const, M>(in), DistanceBand<M>{4, 12, none, none}, d),
      Error);
  Carry one_above("one_above", 12);
  Kokkos::deep_copy(one_above, -1);
  Kokkos::deep_copy(Kokkos::subview(one_above, 5), 2);  // a zero pixel at row 2, column 5, above the band
  distance_transform_band(space, ImageView<std::uint8_t const, M>(in), DistanceBand<M>{3, 12, one_above, none}, d);
  auto const from_carry = test::to_host(space, d);
  EXPECT_EQ(from_carry(0, 5), 1.0f);                           // row 3, one row below the zero pixel
  EXPECT_EQ(from_carry(8, 0), float(std::sqrt(81.0 + 25.0)));  // row 11, column 0
}

TYPED_TEST(Distance, OptionalOutputsAndErrors) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  auto const image = test::random_mask(30, 20, 0.9, 11);
  auto const in = test::to_space(space, image);
  auto const all_set = test::random_mask(12, 9, 1.0, 12);  // no zero pixel: no distance
  for (Path path : distance_paths<TypeParam>()) {
    ImageView<float, M> with("with", 30, 20), without("without", 30, 20);
    distance_transform(space, ImageView<std::uint8_t const, M>(in), without, {}, DistanceParams{path});  // no extras
    distance_transform(space, ImageView<std::uint8_t const, M>(in), with,
                       DistanceOutputs<M>{ImageView<std::int64_t, M>("squared", 30, 20), {}}, DistanceParams{path});
    EXPECT_EQ(test::count_differences(test::to_host(space, with), test::to_host(space, without)), 0);
    ImageView<float, M> d("d", 12, 9);
    EXPECT_THROW(distance_transform(space, ImageView<std::uint8_t const, M>(test::to_space(space, all_set)), d, {},
                                    DistanceParams{path}),
                 Error);
  }
  ImageView<float, M> wrong("wrong", 11, 9);
  EXPECT_THROW(distance_transform(space, ImageView<std::uint8_t const, M>(test::to_space(space, all_set)), wrong),
               Error);
}

}  // namespace
}  // namespace gigaseg
