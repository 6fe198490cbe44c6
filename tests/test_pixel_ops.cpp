// Pixel and global operations on every backend and path: histograms against exact serial counts,
// thresholds, Otsu, local mean, colour and type conversion against OpenCV.
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/histogram.hpp"
#include "gigaseg/algorithms/otsu.hpp"
#include "gigaseg/algorithms/threshold.hpp"
#include "tests/backends.hpp"
#include "tests/device_helpers.hpp"
#include "tests/generators.hpp"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace gigaseg {
namespace {

template <class ExecSpace>
class PixelOps : public ::testing::Test {};
GIGASEG_BACKEND_TEST_SUITE(PixelOps);

std::vector<std::pair<index_t, index_t>> const sizes = {{1, 1}, {1, 300}, {300, 1}, {17, 13}, {129, 67}, {1000, 37}};

// Paths to test on this backend: portable always, tuned where it exists.
template <class Space>
std::vector<Path> paths() {
  std::vector<Path> result{Path::portable};
  if (histogram_path<Space>() == Path::tuned) result.push_back(Path::tuned);
  return result;
}

std::vector<std::uint64_t> serial_histogram(HostImage<std::uint8_t> const& image) {
  std::vector<std::uint64_t> counts(256, 0);
  for (index_t y = 0; y < image.height(); ++y)
    for (index_t x = 0; x < image.width(); ++x) ++counts[image(y, x)];
  return counts;
}

template <class Space, class T>
std::vector<std::uint64_t> run_histogram(Space const& space, ImageView<T, typename Space::memory_space> const& image,
                                         Path path, BinRange const* range = nullptr) {
  Counts<typename Space::memory_space> counts("test::counts", range ? range->bins : 256);
  Kokkos::deep_copy(counts, 12345);  // poison: every bin must be written
  ImageView<T const, typename Space::memory_space> const view(image);
  if constexpr (std::is_same<T, std::uint8_t>::value) {
    if (range == nullptr) {
      histogram(space, view, counts, HistogramParams{path});
    } else {
      histogram(space, view, counts, *range, HistogramParams{path});
    }
  } else {
    histogram(space, view, counts, *range, HistogramParams{path});
  }
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
  return std::vector<std::uint64_t>(host.data(), host.data() + host.extent(0));
}

TYPED_TEST(PixelOps, Histogram8BitIsExactOnEveryPath) {
  TypeParam space;
  for (Path path : paths<TypeParam>())
    for (auto [w, h] : sizes) {
      SCOPED_TRACE(std::string(to_string(path)) + " " + std::to_string(w) + "x" + std::to_string(h));
      auto const noise = test::noise_u8(w, h, std::uint64_t(w * 7 + h));
      EXPECT_EQ(run_histogram(space, test::to_space(space, noise), path), serial_histogram(noise));
      // One value everywhere: the worst case for privatised atomics.
      HostImage<std::uint8_t> flat("flat", w, h);
      for (index_t y = 0; y < h; ++y)
        for (index_t x = 0; x < w; ++x) flat(y, x) = 255;
      EXPECT_EQ(run_histogram(space, test::to_space(space, flat), path), serial_histogram(flat));
      // Uniform stretches of varying length between noise, and rows whose two 8-byte halves of a
      // 16-byte step are equal but not uniform (the host path's run shortcut must not take those).
      HostImage<std::uint8_t> mixed("mixed", w, h);
      for (index_t y = 0; y < h; ++y)
        for (index_t x = 0; x < w; ++x)
          mixed(y, x) = y % 3 == 0               ? std::uint8_t(x % 8)
                        : (x / (5 + y % 23)) % 2 ? noise(y, x)
                                                 : std::uint8_t(40 + y % 7);
      EXPECT_EQ(run_histogram(space, test::to_space(space, mixed), path), serial_histogram(mixed));
    }
}

TYPED_TEST(PixelOps, Histogram8BitOnRois) {
  TypeParam space;
  auto const noise = test::noise_u8(301, 45, 5);
  auto device = test::to_space(space, noise);
  for (Path path : paths<TypeParam>())
    for (index_t x0 : {0, 3, 16, 17}) {  // 3 and 17: rows not 16-byte aligned, tuned paths fall back
      auto roi = device.roi(x0, 2, 301 - x0 - 5, 40);
      auto expected = serial_histogram(test::to_host(space, roi));
      EXPECT_EQ(run_histogram(space, roi, path), expected) << to_string(path) << " x0=" << x0;
    }
}

TYPED_TEST(PixelOps, BinnedHistograms) {
  TypeParam space;
  auto const u16 = test::noise_u16(257, 31, 6);
  BinRange const coarse{256, 0.0, 65536.0};  // bin = v >> 8 exactly
  std::vector<std::uint64_t> expected(256, 0);
  for (index_t y = 0; y < 31; ++y)
    for (index_t x = 0; x < 257; ++x) ++expected[u16(y, x) >> 8];
  EXPECT_EQ(run_histogram(space, test::to_space(space, u16), Path::portable, &coarse), expected);

  auto floats = test::noise_f32(123, 45, 7);  // uniform in [-1000, 1000)
  floats(0, 0) = std::numeric_limits<float>::quiet_NaN();
  floats(0, 1) = 600.0f;   // exactly hi: last bin
  floats(0, 2) = 600.5f;   // above hi: not counted
  floats(0, 3) = -500.0f;  // exactly lo: first bin
  BinRange const range{100, -500.0, 600.0};
  std::vector<std::uint64_t> reference(100, 0);
  for (index_t y = 0; y < 45; ++y)
    for (index_t x = 0; x < 123; ++x) {
      double const v = floats(y, x);
      if (!(v >= -500.0 && v <= 600.0)) continue;
      ++reference[std::min<std::size_t>(99, std::size_t((v + 500.0) * 100.0 / 1100.0))];
    }
  auto const got = run_histogram(space, test::to_space(space, floats), Path::portable, &range);
  EXPECT_EQ(got, reference);
  EXPECT_GE(got[99], 1u);
  EXPECT_GE(got[0], 1u);
  Counts<typename TypeParam::memory_space> too_small("small", 10);
  auto const device = test::to_space(space, floats);
  EXPECT_THROW(histogram(space, ImageView<float const, typename TypeParam::memory_space>(device), too_small, range),
               Error);
}

TYPED_TEST(PixelOps, ThresholdMatchesOpenCV) {
  TypeParam space;
  for (auto [w, h] : sizes) {
    auto const noise = test::noise_u8(w, h, std::uint64_t(w + 3 * h));
    auto const device = test::to_space(space, noise);
    for (double level : {-1.0, 0.0, 100.0, 127.5, 254.0, 255.0}) {
      ImageView<std::uint8_t, typename TypeParam::memory_space> mask("mask", w, h);
      threshold(space, ImageView<std::uint8_t const, typename TypeParam::memory_space>(device), mask, level);
      cv::Mat expected;
      cv::threshold(test::as_mat(noise), expected, level, 255, cv::THRESH_BINARY);
      EXPECT_EQ(test::count_differences(test::to_host(space, mask), test::from_mat<std::uint8_t>(expected)), 0)
          << w << "x" << h << " T=" << level;
    }
  }
  // 16-bit and float: pixel > level, against the obvious loop.
  auto const u16 = test::noise_u16(77, 19, 8);
  auto const f32 = test::noise_f32(77, 19, 9);
  ImageView<std::uint8_t, typename TypeParam::memory_space> mask16("m16", 77, 19), mask32("m32", 77, 19);
  auto const d16 = test::to_space(space, u16);
  auto const d32 = test::to_space(space, f32);
  threshold(space, ImageView<std::uint16_t const, typename TypeParam::memory_space>(d16), mask16, 30000.5);
  threshold(space, ImageView<float const, typename TypeParam::memory_space>(d32), mask32, -12.25);
  auto const h16 = test::to_host(space, mask16), h32 = test::to_host(space, mask32);
  for (index_t y = 0; y < 19; ++y)
    for (index_t x = 0; x < 77; ++x) {
      ASSERT_EQ(h16(y, x), u16(y, x) > 30000.5 ? 255 : 0);
      ASSERT_EQ(h32(y, x), f32(y, x) > -12.25f ? 255 : 0);
    }
}

TYPED_TEST(PixelOps, ThresholdOnPitchedRois) {
  TypeParam space;
  auto const noise = test::noise_u8(203, 30, 10);
  auto const device = test::to_space(space, noise);
  ImageView<std::uint8_t, typename TypeParam::memory_space> canvas("canvas", 250, 40);
  Kokkos::deep_copy(space, canvas.storage(), 7);
  auto in_roi = device.roi(5, 3, 190, 25);
  auto out_roi = canvas.roi(33, 9, 190, 25);
  threshold(space, ImageView<std::uint8_t const, typename TypeParam::memory_space>(in_roi), out_roi, 99.0);
  auto const host = test::to_host(space, canvas);
  for (index_t y = 0; y < 40; ++y)
    for (index_t x = 0; x < 250; ++x) {
      bool const inside = x >= 33 && x < 223 && y >= 9 && y < 34;
      int const expected = inside ? (noise(y - 9 + 3, x - 33 + 5) > 99 ? 255 : 0) : 7;
      ASSERT_EQ(host(y, x), expected) << x << "," << y;
    }
}

HostImage<std::uint8_t> bimodal(index_t w, index_t h, std::uint64_t seed) {
  HostImage<std::uint8_t> image("bimodal", w, h);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> dark(60, 15), bright(180, 20);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) {
      double const v = ((x / 7 + y / 5) % 3 == 0) ? bright(rng) : dark(rng);
      image(y, x) = std::uint8_t(std::clamp(v, 0.0, 255.0));
    }
  return image;
}

TYPED_TEST(PixelOps, OtsuMatchesOpenCVAndIsDeterministic) {
  TypeParam space;
  std::vector<HostImage<std::uint8_t>> images = {bimodal(333, 211, 1), bimodal(1, 500, 2), test::noise_u8(64, 64, 3),
                                                 test::checkerboard(31, 17), test::random_mask(50, 40, 0.3, 4)};
  HostImage<std::uint8_t> flat("flat", 20, 10);
  for (index_t y = 0; y < 10; ++y)
    for (index_t x = 0; x < 20; ++x) flat(y, x) = 77;
  images.push_back(flat);
  for (auto const& image : images) {
    cv::Mat ignored;
    int const expected = int(cv::threshold(test::as_mat(image), ignored, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU));
    auto const device = test::to_space(space, image);
    for (Path path : paths<TypeParam>())
      for (int run = 0; run < 3; ++run)
        EXPECT_EQ(otsu_threshold(space, ImageView<std::uint8_t const, typename TypeParam::memory_space>(device),
                                 HistogramParams{path}),
                  expected)
            << image.width() << "x" << image.height() << " " << to_string(path);
  }
  // The degenerate case: one value everywhere has no between-class variance, T = 0 (OpenCV too).
  EXPECT_EQ(otsu_threshold(
                space, ImageView<std::uint8_t const, typename TypeParam::memory_space>(test::to_space(space, flat))),
            0);
}

TYPED_TEST(PixelOps, OtsuOn16BitAndFloat) {
  TypeParam space;
  auto const eight = bimodal(123, 77, 5);
  HostImage<std::uint16_t> wide("wide", 123, 77);
  HostImage<float> real("real", 123, 77);
  for (index_t y = 0; y < 77; ++y)
    for (index_t x = 0; x < 123; ++x) {
      wide(y, x) = std::uint16_t(eight(y, x) * 257);
      real(y, x) = float(eight(y, x)) * 0.5f - 10.0f;
    }
  // Reference: the same criterion on a serially computed 256-bin histogram over [min, max].
  auto reference = [](auto const& image) {
    double lo = 1e300, hi = -1e300;
    for (index_t y = 0; y < image.height(); ++y)
      for (index_t x = 0; x < image.width(); ++x)
        lo = std::min(lo, double(image(y, x))), hi = std::max(hi, double(image(y, x)));
    std::vector<std::uint64_t> counts(256, 0);
    for (index_t y = 0; y < image.height(); ++y)
      for (index_t x = 0; x < image.width(); ++x)
        ++counts[std::min<std::size_t>(255, std::size_t((double(image(y, x)) - lo) * 256.0 / (hi - lo)))];
    return lo + (otsu_bin(counts.data(), 256) + 1) * (hi - lo) / 256.0;
  };
  using M = typename TypeParam::memory_space;
  double const t16 = otsu_threshold(space, ImageView<std::uint16_t const, M>(test::to_space(space, wide)));
  double const t32 = otsu_threshold(space, ImageView<float const, M>(test::to_space(space, real)));
  EXPECT_DOUBLE_EQ(t16, reference(wide));
  EXPECT_DOUBLE_EQ(t32, reference(real));
  // The 8-bit threshold scaled to 16 bits separates the same classes on this well-separated image.
  int const t8 = otsu_threshold(space, ImageView<std::uint8_t const, M>(test::to_space(space, eight)));
  EXPECT_NEAR(t16 / 257.0, t8 + 0.5, 1.5);
  HostImage<float> flat("flat", 3, 3);
  for (index_t y = 0; y < 3; ++y)
    for (index_t x = 0; x < 3; ++x) flat(y, x) = 2.5f;
  EXPECT_EQ(otsu_threshold(space, ImageView<float const, M>(test::to_space(space, flat))), 2.5);
}

TYPED_TEST(PixelOps, LocalMeanMatchesOpenCV) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  for (auto [w, h] : std::vector<std::pair<index_t, index_t>>{{1, 1}, {5, 3}, {1, 90}, {90, 1}, {131, 77}})
    for (int block : {3, 5, 11, 17, 31})
      for (double c : {2.0, -3.0, 0.5, 0.0}) {
        auto const image = bimodal(w, h, std::uint64_t(w * block));
        ImageView<std::uint8_t, M> mask("mask", w, h);
        threshold_local_mean(space, ImageView<std::uint8_t const, M>(test::to_space(space, image)), mask,
                             LocalMeanParams{block, c});
        cv::Mat expected;
        cv::adaptiveThreshold(test::as_mat(image), expected, 255, cv::ADAPTIVE_THRESH_MEAN_C, cv::THRESH_BINARY, block,
                              c);
        ASSERT_EQ(test::count_differences(test::to_host(space, mask), test::from_mat<std::uint8_t>(expected)), 0)
            << w << "x" << h << " B=" << block << " C=" << c;
      }
  ImageView<std::uint8_t, M> small("small", 4, 4);
  EXPECT_THROW(threshold_local_mean(space, ImageView<std::uint8_t const, M>(small), small, LocalMeanParams{4, 1.0}),
               Error);
}

TYPED_TEST(PixelOps, ConversionsMatchOpenCV) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  for (auto [w, h] : sizes) {
    auto const rgb = test::noise_rgb8(w, h, std::uint64_t(w * h + 1));
    ImageView<std::uint8_t, M> gray("gray", w, h);
    rgb_to_gray(space, ImageView<Rgb8 const, M>(test::to_space(space, rgb)), gray);
    cv::Mat expected;
    cv::cvtColor(test::as_mat(rgb), expected, cv::COLOR_RGB2GRAY);
    EXPECT_EQ(test::count_differences(test::to_host(space, gray), test::from_mat<std::uint8_t>(expected)), 0);
  }
  auto const u8 = test::noise_u8(45, 21, 11);
  ImageView<std::uint16_t, M> u16("u16", 45, 21);
  convert(space, ImageView<std::uint8_t const, M>(test::to_space(space, u8)), u16, ConvertParams{257.0, 0.0});
  cv::Mat expected16;
  test::as_mat(u8).convertTo(expected16, CV_16U, 257.0);
  EXPECT_EQ(test::count_differences(test::to_host(space, u16), test::from_mat<std::uint16_t>(expected16)), 0);

  HostImage<float> f("f", 12, 1);
  float const values[12] = {0.5f, 1.5f, 2.5f, -0.5f, -7.0f, 254.5f, 255.5f, 300.0f, 3.49f, 3.51f, 100.0f, 0.0f};
  for (int i = 0; i < 12; ++i) f(0, i) = values[i];
  ImageView<std::uint8_t, M> bytes("bytes", 12, 1);
  convert(space, ImageView<float const, M>(test::to_space(space, f)), bytes);
  cv::Mat expected8;
  test::as_mat(f).convertTo(expected8, CV_8U);
  EXPECT_EQ(test::count_differences(test::to_host(space, bytes), test::from_mat<std::uint8_t>(expected8)), 0);
  ImageView<float, M> back("back", 45, 21);
  convert(space, ImageView<std::uint16_t const, M>(u16), back, ConvertParams{1.0 / 257.0, 0.0});
  auto const host_back = test::to_host(space, back);
  for (index_t y = 0; y < 21; ++y)
    for (index_t x = 0; x < 45; ++x) ASSERT_FLOAT_EQ(host_back(y, x), float(u8(y, x)));
}

// A mask as one bit a pixel and back: the bits are the nonzero pixels (checked one by one against
// the host), the words past the last column hold zeros, and unpacking gives 0 and the value, also
// for widths that are not multiples of 32 and for a pitched roi.
TYPED_TEST(PixelOps, MasksPackToBitsAndBack) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  for (auto [w, h] : {std::pair<index_t, index_t>{1, 1}, {31, 3}, {32, 2}, {33, 5}, {100, 7}, {257, 9}}) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    auto const noise = test::noise_u16(w + 3, h + 2, std::uint64_t(w * h));
    HostImage<std::uint16_t> values("values", w + 3, h + 2);
    for (index_t y = 0; y < h + 2; ++y)
      for (index_t x = 0; x < w + 3; ++x) values(y, x) = noise(y, x) % 3 == 0 ? 0 : noise(y, x);
    auto const on_space = test::to_space(space, values);
    ImageView<std::uint16_t const, M> const roi = ImageView<std::uint16_t const, M>(on_space).roi(2, 1, w, h);
    ImageView<std::uint32_t, M> bits("bits", packed_mask_width(w), h);
    pack_mask(space, roi, bits);
    HostImage<std::uint32_t> const packed = test::to_host(space, bits);
    for (index_t y = 0; y < h; ++y)
      for (index_t x = 0; x < packed_mask_width(w) * 32; ++x) {
        bool const bit = (packed(y, x / 32) >> (x % 32)) & 1u;
        ASSERT_EQ(bit, x < w && values(y + 1, x + 2) != 0) << x << "," << y;
      }
    ImageView<std::uint8_t, M> mask("mask", w, h);
    unpack_mask(space, ImageView<std::uint32_t const, M>(bits), mask, 7);
    HostImage<std::uint8_t> const unpacked = test::to_host(space, mask);
    for (index_t y = 0; y < h; ++y)
      for (index_t x = 0; x < w; ++x) ASSERT_EQ(unpacked(y, x), values(y + 1, x + 2) != 0 ? 7 : 0) << x << "," << y;
  }
  ImageView<std::uint32_t, M> wrong("wrong", 2, 1);
  EXPECT_THROW(pack_mask(space, ImageView<std::uint8_t const, M>(ImageView<std::uint8_t, M>("m", 65, 1)), wrong),
               Error);
}

}  // namespace
}  // namespace gigaseg
