// K-means: the same seed gives the same labels and centres on every backend (compared with the
// host backend bit for bit); quality against OpenCV's kmeans (best of 5, k-means++); Lab features
// against cv::cvtColor; labels ordered by centre luminance.
#include "algorithms/kmeans.hpp"
#include "tests/backends.hpp"
#include "tests/device_helpers.hpp"
#include "tests/generators.hpp"
#include "tests/stain_image.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace gigaseg {
namespace {

template <class ExecSpace>
class KMeansOnBackend : public ::testing::Test {};
GIGASEG_BACKEND_TEST_SUITE(KMeansOnBackend);

template <class Space>
std::pair<KMeansResult, HostImage<std::uint8_t>> run(Space const& space, HostImage<Rgb8> const& image, KMeansParams const& p) {
  using M = typename Space::memory_space;
  auto device = test::to_space(space, image);
  ImageView<std::uint8_t, M> labels("labels", image.width(), image.height());
  auto const result = kmeans(space, ImageView<Rgb8 const, M>(device), labels, p);
  return {result, test::to_host(space, labels)};
}

TYPED_TEST(KMeansOnBackend, SameSeedSameResultAsTheHostBackend) {
  auto const image = test::stain_image(203, 97, 1);
  for (FeatureSpace fs : {FeatureSpace::rgb, FeatureSpace::lab, FeatureSpace::gray})
    for (int k : {1, 3, 8, 40}) {
      KMeansParams p;
      p.k = k;
      p.space = fs;
      p.seed = 42;
      auto const [reference, reference_labels] = run(Kokkos::DefaultHostExecutionSpace(), image, p);
      for (int repeat = 0; repeat < 2; ++repeat) {
        auto const [result, labels] = run(TypeParam(), image, p);
        EXPECT_EQ(test::count_differences(labels, reference_labels), 0) << "k=" << k << " space=" << int(fs);
        EXPECT_EQ(result.centres, reference.centres);
        EXPECT_EQ(result.inertia, reference.inertia);
        EXPECT_EQ(result.iterations, reference.iterations);
      }
      for (std::size_t c = 1; c < reference.centres.size(); ++c) {  // ascending luminance
        auto lum = [&](auto const& v) { return fs == FeatureSpace::rgb ? 0.299 * v[0] + 0.587 * v[1] + 0.114 * v[2] : v[0]; };
        EXPECT_LE(lum(reference.centres[c - 1]), lum(reference.centres[c]));
      }
      index_t bad = 0;
      for (index_t y = 0; y < reference_labels.height(); ++y)
        for (index_t x = 0; x < reference_labels.width(); ++x) bad += reference_labels(y, x) >= k;
      EXPECT_EQ(bad, 0);
    }
}

TYPED_TEST(KMeansOnBackend, RecoversSeparatedColours) {
  HostImage<Rgb8> image("four", 64, 48);
  Rgb8 const colours[4] = {{10, 10, 10}, {250, 20, 20}, {20, 250, 20}, {240, 240, 240}};
  for (index_t y = 0; y < 48; ++y)
    for (index_t x = 0; x < 64; ++x) image(y, x) = colours[(x / 16 + y / 12) % 4];
  KMeansParams p;
  p.k = 4;
  auto const [result, labels] = run(TypeParam(), image, p);
  // Luminance order: black, red, green, white.
  int const expected_label[4] = {0, 1, 2, 3};
  for (index_t y = 0; y < 48; ++y)
    for (index_t x = 0; x < 64; ++x) ASSERT_EQ(labels(y, x), expected_label[(x / 16 + y / 12) % 4]);
  EXPECT_EQ(result.inertia, 0.0);
  EXPECT_EQ(result.centres[1][0], 250.0);
}

TYPED_TEST(KMeansOnBackend, RejectsBadParameters) {
  using M = typename TypeParam::memory_space;
  ImageView<Rgb8, M> image("i", 4, 4);
  ImageView<std::uint8_t, M> labels("l", 4, 4);
  KMeansParams p;
  p.k = 65;
  EXPECT_THROW(kmeans(TypeParam(), ImageView<Rgb8 const, M>(image), labels, p), Error);
  p.k = 0;
  EXPECT_THROW(kmeans(TypeParam(), ImageView<Rgb8 const, M>(image), labels, p), Error);
}

TEST(KMeans, InertiaWithinOnePercentOfOpenCV) {
  auto const image = test::stain_image(256, 256, 7);
  cv::Mat samples(int(image.pixel_count()), 3, CV_32F);
  for (index_t y = 0; y < 256; ++y)
    for (index_t x = 0; x < 256; ++x) {
      Rgb8 const p = image(y, x);
      float* row = samples.ptr<float>(int(y * 256 + x));
      row[0] = p.r, row[1] = p.g, row[2] = p.b;
    }
  for (int k : {4, 8}) {
    cv::setRNGSeed(1);
    cv::Mat best_labels, centres;
    double const opencv = cv::kmeans(samples, k, best_labels,
                                     cv::TermCriteria(cv::TermCriteria::EPS + cv::TermCriteria::COUNT, 100, 0.01), 5,
                                     cv::KMEANS_PP_CENTERS, centres);
    KMeansParams p;
    p.k = k;
    p.iterations = 100;
    p.tolerance = 0.01;
    p.seed = 3;
    auto const [ours, labels] = run(Kokkos::DefaultHostExecutionSpace(), image, p);
    std::printf("k=%d inertia: gigaseg %.1f, OpenCV best of 5 %.1f, ratio %.4f\n", k, ours.inertia, opencv, ours.inertia / opencv);
    EXPECT_LE(ours.inertia, opencv * 1.01) << "k=" << k << " ours " << ours.inertia << " OpenCV " << opencv;
  }
}

TEST(KMeans, LabFeaturesMatchOpenCV8BitLab) {
  auto const rgb = test::noise_rgb8(64, 64, 5);
  cv::Mat lab;
  cv::cvtColor(test::as_mat(rgb), lab, cv::COLOR_RGB2Lab);
  auto tables_vector = detail::lab_tables();
  Kokkos::View<int*, Kokkos::HostSpace> tables("tables", tables_vector.size());
  std::copy(tables_vector.begin(), tables_vector.end(), tables.data());
  detail::FeatureMap<Kokkos::HostSpace> const features{FeatureSpace::lab, tables, detail::lab_matrix()};
  int worst = 0;
  for (index_t y = 0; y < 64; ++y)
    for (index_t x = 0; x < 64; ++x) {
      int f[3];
      features(rgb(y, x), f);
      cv::Vec3b const expected = lab.at<cv::Vec3b>(int(y), int(x));
      for (int i = 0; i < 3; ++i) worst = std::max(worst, std::abs(f[i] - int(expected[i])));
    }
  EXPECT_LE(worst, 2);  // OpenCV's own 8-bit Lab is an integer approximation too
}

}  // namespace
}  // namespace gigaseg
