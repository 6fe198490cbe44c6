// Median, Gaussian, box and Sobel on every backend and path against OpenCV: odd sizes, images
// smaller than the window, 1xN and Nx1, images of several tiles (interior and border tiles),
// pitched rois (4-byte aligned and not, which sends the tuned CUDA kernels back to the portable
// path).
#include "gigaseg/algorithms/filters.hpp"
#include "tests/backends.hpp"
#include "tests/device_helpers.hpp"
#include "tests/generators.hpp"

#include <gtest/gtest.h>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <vector>

namespace gigaseg {
namespace {

template <class ExecSpace>
class Filters : public ::testing::Test {};
GIGASEG_BACKEND_TEST_SUITE(Filters);

template <class T>
HostImage<T> noise(index_t w, index_t h, std::uint64_t seed) {
  if constexpr (std::is_same<T, std::uint8_t>::value)
    return test::noise_u8(w, h, seed);
  else if constexpr (std::is_same<T, std::uint16_t>::value)
    return test::noise_u16(w, h, seed);
  else
    return test::noise_f32(w, h, seed);
}

// Images that exercise every border position: tiny, thin, odd, several tiles, pitched rois.
template <class T>
std::vector<HostImage<T>> shapes() {
  auto const big = noise<T>(611, 53, 9);
  return {noise<T>(1, 1, 1),   noise<T>(2, 3, 2),    noise<T>(5, 3, 3),      noise<T>(1, 40, 4),    noise<T>(40, 1, 5),
          noise<T>(37, 29, 6), noise<T>(300, 70, 7), big.roi(3, 5, 601, 45), big.roi(4, 1, 520, 50)};
}

template <class Space, class T>
std::vector<Path> median_paths() {
  std::vector<Path> paths{Path::portable};
  if (median_path<Space, T>() == Path::tuned) paths.push_back(Path::tuned);
  return paths;
}

template <class Space, class T>
void check_median() {
  Space space;
  using M = typename Space::memory_space;
  for (auto const& image : shapes<T>())
    for (int size : {3, 5})
      for (Path path : median_paths<Space, T>()) {
        ImageView<T, M> out("out", image.width(), image.height());
        median(space, ImageView<T const, M>(test::to_space(space, image)), out, size, FilterParams{path});
        cv::Mat expected;
        cv::medianBlur(test::as_mat(image), expected, size);
        ASSERT_EQ(test::count_differences(test::to_host(space, out), test::from_mat<T>(expected)), 0)
            << image.width() << "x" << image.height() << " size " << size << " path " << to_string(path);
      }
}

TYPED_TEST(Filters, MedianOf8BitImagesEqualsOpenCV) { check_median<TypeParam, std::uint8_t>(); }
TYPED_TEST(Filters, MedianOf16BitImagesEqualsOpenCV) { check_median<TypeParam, std::uint16_t>(); }
TYPED_TEST(Filters, MedianOfFloatImagesEqualsOpenCV) { check_median<TypeParam, float>(); }

TYPED_TEST(Filters, MedianOfAdversarialPlateaus) {
  // Large flat areas, steps and isolated extremes: ties everywhere in the networks.
  TypeParam space;
  using M = typename TypeParam::memory_space;
  HostImage<std::uint8_t> image("steps", 257, 67);
  for (index_t y = 0; y < image.height(); ++y)
    for (index_t x = 0; x < image.width(); ++x)
      image(y, x) = std::uint8_t((x / 7 + y / 5) % 3 == 0 ? 0 : (x * 31 + y * 17) % 11 == 0 ? 255 : 128);
  for (int size : {3, 5})
    for (Path path : median_paths<TypeParam, std::uint8_t>()) {
      ImageView<std::uint8_t, M> out("out", image.width(), image.height());
      median(space, ImageView<std::uint8_t const, M>(test::to_space(space, image)), out, size, FilterParams{path});
      cv::Mat expected;
      cv::medianBlur(test::as_mat(image), expected, size);
      EXPECT_EQ(test::count_differences(test::to_host(space, out), test::from_mat<std::uint8_t>(expected)), 0) << size;
    }
}

// Largest absolute difference between two 8-bit images.
int max_difference(HostImage<std::uint8_t> const& a, HostImage<std::uint8_t> const& b) {
  int worst = 0;
  for (index_t y = 0; y < a.height(); ++y)
    for (index_t x = 0; x < a.width(); ++x) worst = std::max(worst, std::abs(int(a(y, x)) - int(b(y, x))));
  return worst;
}

TYPED_TEST(Filters, GaussianEqualsOpenCVsFixedPointResult) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  for (auto const& image : shapes<std::uint8_t>())
    for (GaussianParams params :
         {GaussianParams{0.8, 0}, GaussianParams{1.5, 0}, GaussianParams{3.0, 0}, GaussianParams{2.0, 5}}) {
      ImageView<std::uint8_t, M> out("out", image.width(), image.height());
      gaussian(space, ImageView<std::uint8_t const, M>(test::to_space(space, image)), out, params);
      cv::Mat expected;
      cv::GaussianBlur(test::as_mat(image), expected, cv::Size(params.ksize, params.ksize), params.sigma, params.sigma,
                       cv::BORDER_REFLECT_101);
      EXPECT_EQ(max_difference(test::to_host(space, out), test::from_mat<std::uint8_t>(expected)), 0)
          << image.width() << "x" << image.height() << " sigma " << params.sigma << " ksize " << params.ksize;
    }
}

TEST(Filters, GaussianKernelSizeAsOpenCV) {
  EXPECT_EQ(gaussian_ksize({1.0, 0}), 7);
  EXPECT_EQ(gaussian_ksize({0.8, 0}), 7);  // cvRound(5.8) | 1
  EXPECT_EQ(gaussian_ksize({0.5, 0}), 5);
  EXPECT_EQ(gaussian_ksize({2.0, 9}), 9);
  EXPECT_THROW(gaussian_ksize({0.0, 0}), Error);
  EXPECT_THROW(gaussian_ksize({1.0, 4}), Error);
  auto const w = gaussian_weights(7, 1.3);
  cv::Mat const expected = cv::getGaussianKernel(7, 1.3, CV_64F);
  float sum = 0;
  for (int i = 0; i < 7; ++i) {
    EXPECT_NEAR(w[std::size_t(i)], expected.at<double>(i), 2.0 / 256);  // quantised to 1/256, error diffused
    EXPECT_EQ(w[std::size_t(i)] * 256, std::nearbyint(w[std::size_t(i)] * 256));
    sum += w[std::size_t(i)];
  }
  EXPECT_EQ(sum, 1.0f);
}

TYPED_TEST(Filters, BoxFilterWithinOneGreyLevelOfOpenCV) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  for (auto const& image : shapes<std::uint8_t>())
    for (int size : {1, 3, 5, 11}) {
      ImageView<std::uint8_t, M> out("out", image.width(), image.height());
      box_filter(space, ImageView<std::uint8_t const, M>(test::to_space(space, image)), out, size);
      cv::Mat expected;
      cv::blur(test::as_mat(image), expected, cv::Size(size, size), cv::Point(-1, -1), cv::BORDER_REFLECT_101);
      EXPECT_LE(max_difference(test::to_host(space, out), test::from_mat<std::uint8_t>(expected)), 1)
          << image.width() << "x" << image.height() << " size " << size;
    }
}

TYPED_TEST(Filters, SobelMagnitudeWithinOneThousandthOfOpenCV) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  std::vector<Path> paths{Path::portable};
  if (sobel_path<TypeParam>() == Path::tuned) paths.push_back(Path::tuned);
  auto shapes_and_wide = shapes<std::uint8_t>();
  shapes_and_wide.push_back(test::noise_u8(1030, 37, 11));  // several blocks of threads on CUDA
  for (auto const& image : shapes_and_wide) {
    ImageView<float, M> out("out", image.width(), image.height());
    ImageView<float, M> portable("portable", image.width(), image.height());
    auto const in = test::to_space(space, image);
    sobel_magnitude(space, ImageView<std::uint8_t const, M>(in), portable, FilterParams{Path::portable});
    auto const reference = test::to_host(space, portable);
    for (Path path : paths) {
      sobel_magnitude(space, ImageView<std::uint8_t const, M>(in), out, FilterParams{path});
      // Every path computes the same float operations: identical results.
      ASSERT_EQ(test::count_differences(test::to_host(space, out), reference), 0)
          << image.width() << "x" << image.height() << " path " << to_string(path);
      cv::Mat gx, gy, expected;
      cv::Sobel(test::as_mat(image), gx, CV_32F, 1, 0, 3, 1, 0, cv::BORDER_REFLECT_101);
      cv::Sobel(test::as_mat(image), gy, CV_32F, 0, 1, 3, 1, 0, cv::BORDER_REFLECT_101);
      cv::magnitude(gx, gy, expected);
      auto const ours = test::to_host(space, out);
      auto const theirs = test::from_mat<float>(expected);
      float worst = 0;
      for (index_t y = 0; y < ours.height(); ++y)
        for (index_t x = 0; x < ours.width(); ++x) worst = std::max(worst, std::abs(ours(y, x) - theirs(y, x)));
      EXPECT_LE(worst, 1e-3f) << image.width() << "x" << image.height() << " path " << to_string(path);
    }
  }
}

TYPED_TEST(Filters, RejectBadSizesAndMismatchedImages) {
  using M = typename TypeParam::memory_space;
  ImageView<std::uint8_t, M> a("a", 8, 8), b("b", 7, 8);
  ImageView<std::uint8_t const, M> const ca(a);
  EXPECT_THROW(median(TypeParam(), ca, a, 7), Error);
  EXPECT_THROW(median(TypeParam(), ca, b, 3), Error);
  EXPECT_THROW(box_filter(TypeParam(), ca, a, 4), Error);
  EXPECT_THROW(gaussian(TypeParam(), ca, b, GaussianParams{}), Error);
  ImageView<float, M> f("f", 7, 8);
  EXPECT_THROW(sobel_magnitude(TypeParam(), ca, f), Error);
  if (median_path<TypeParam, std::uint8_t>() != Path::tuned) {
    EXPECT_THROW(median(TypeParam(), ca, a, 3, FilterParams{Path::tuned}), Error);
  }
}

}  // namespace
}  // namespace gigaseg
