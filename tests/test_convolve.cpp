// Correlation with an arbitrary float kernel on every backend, direct and FFT, against
// cv::filter2D (CV_32F, default anchor, BORDER_REPLICATE) and against each other: odd and even
// kernel sides, kernels larger than the image, 1xN and Nx1 images, pitched rois.
#include "gigaseg/algorithms/convolve.hpp"
#include "tests/backends.hpp"
#include "tests/device_helpers.hpp"
#include "tests/generators.hpp"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

namespace gigaseg {
namespace {

template <class ExecSpace>
class Convolve : public ::testing::Test {};
GIGASEG_BACKEND_TEST_SUITE(Convolve);

ConvolutionKernel random_kernel(int w, int h, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  ConvolutionKernel k{w, h, {}};
  for (int i = 0; i < w * h; ++i) k.weights.push_back(u(rng));
  return k;
}

float tolerance(ConvolutionKernel const& k) {  // 1e-3 of the kernel's L1 norm times 255 (CLI.md)
  float l1 = 0;
  for (float w : k.weights) l1 += std::abs(w);
  return 1e-3f * l1 * 255.0f;
}

float max_difference(HostImage<float> const& a, HostImage<float> const& b) {
  float worst = 0;
  for (index_t y = 0; y < a.height(); ++y)
    for (index_t x = 0; x < a.width(); ++x) worst = std::max(worst, std::abs(a(y, x) - b(y, x)));
  return worst;
}

TYPED_TEST(Convolve, DirectAndFftMatchFilter2DAndEachOther) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  auto const big = test::noise_u8(611, 53, 9);
  std::vector<HostImage<std::uint8_t>> images{test::noise_u8(1, 1, 1),   test::noise_u8(5, 3, 2),
                                              test::noise_u8(1, 40, 3),  test::noise_u8(40, 1, 4),
                                              test::noise_u8(37, 29, 5), big.roi(3, 5, 601, 45)};
  std::vector<ConvolutionKernel> kernels{random_kernel(3, 3, 1), random_kernel(4, 5, 2), random_kernel(7, 1, 3),
                                         random_kernel(1, 6, 4), random_kernel(9, 9, 5), random_kernel(21, 17, 6)};
  for (auto const& image : images)
    for (auto const& kernel : kernels) {
      cv::Mat expected;
      cv::Mat const k(kernel.height, kernel.width, CV_32F, const_cast<float*>(kernel.weights.data()));
      cv::filter2D(test::as_mat(image), expected, CV_32F, k, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
      auto const reference = test::from_mat<float>(expected);
      HostImage<float> results[2];
      int i = 0;
      for (ConvolveMethod method : {ConvolveMethod::direct, ConvolveMethod::fft}) {
        ImageView<float, M> out("out", image.width(), image.height());
        convolve(space, ImageView<std::uint8_t const, M>(test::to_space(space, image)), out, kernel, method);
        results[i] = test::to_host(space, out);
        EXPECT_LE(max_difference(results[i], reference), tolerance(kernel))
            << image.width() << "x" << image.height() << " kernel " << kernel.width << "x" << kernel.height
            << " method " << i;
        ++i;
      }
      EXPECT_LE(max_difference(results[0], results[1]), tolerance(kernel));
    }
}

TEST(Convolve, ReadsKernelTextAndRejectsBadFiles) {
  std::string const path = ::testing::TempDir() + "gigaseg_kernel.txt";
  {
    std::ofstream f(path);
    f << "# a comment\n1 2, 3\n\n4\t5 6\r\n";
  }
  auto const k = read_kernel_text(path);
  EXPECT_EQ(k.width, 3);
  EXPECT_EQ(k.height, 2);
  EXPECT_EQ(k.weights, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  {
    std::ofstream f(path);
    f << "1 2\n3\n";
  }
  EXPECT_THROW(read_kernel_text(path), Error);
  {
    std::ofstream f(path);
    f << "1 x\n";
  }
  EXPECT_THROW(read_kernel_text(path), Error);
  std::remove(path.c_str());
  EXPECT_THROW(read_kernel_text(path), Error);
  EXPECT_EQ(fft_friendly_size(4111), 4116);  // 2^2 3 7^3
  EXPECT_EQ(fft_friendly_size(1), 1);
  EXPECT_EQ(fft_friendly_size(11), 12);
}

}  // namespace
}  // namespace gigaseg
