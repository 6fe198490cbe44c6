// Morphology on every backend against cv::morphologyEx with cv::getStructuringElement (default
// anchor, one iteration, OpenCV's default border): every operation and shape, odd sizes up to
// larger than the image (van Herk rectangles up to 193), odd image sizes, 1xN, Nx1, several tiles,
// pitched rois aligned and not, portable and tuned paths.
#include "gigaseg/algorithms/morphology.hpp"
#include "tests/backends.hpp"
#include "tests/device_helpers.hpp"
#include "tests/generators.hpp"

#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
#include "gigaseg/backends/cuda/filters_cuda.hpp"
#endif

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <vector>

namespace gigaseg {
namespace {

template <class ExecSpace>
class Morphology : public ::testing::Test {};
GIGASEG_BACKEND_TEST_SUITE(Morphology);

int opencv_op(MorphOp op) {
  switch (op) {
    case MorphOp::erode: return cv::MORPH_ERODE;
    case MorphOp::dilate: return cv::MORPH_DILATE;
    case MorphOp::open: return cv::MORPH_OPEN;
    case MorphOp::close: return cv::MORPH_CLOSE;
    case MorphOp::gradient: return cv::MORPH_GRADIENT;
  }
  return -1;
}

int opencv_shape(StructuringShape shape) {
  return shape == StructuringShape::rect    ? cv::MORPH_RECT
         : shape == StructuringShape::cross ? cv::MORPH_CROSS
                                            : cv::MORPH_ELLIPSE;
}

TEST(StructuringElement, EqualsOpenCVs) {
  for (StructuringShape shape : {StructuringShape::rect, StructuringShape::cross, StructuringShape::ellipse})
    for (int size : {1, 3, 5, 7, 9, 11, 15, 21, 31}) {
      auto const element = structuring_element(shape, size);
      cv::Mat const expected = cv::getStructuringElement(opencv_shape(shape), cv::Size(size, size));
      for (int i = 0; i < size; ++i)
        for (int j = 0; j < size; ++j) {
          int const offset = j - size / 2;
          bool const ours = offset >= element.first[std::size_t(i)] && offset <= element.last[std::size_t(i)];
          ASSERT_EQ(ours, expected.at<std::uint8_t>(i, j) != 0)
              << "shape " << int(shape) << " size " << size << " at " << i << "," << j;
        }
    }
  EXPECT_THROW(structuring_element(StructuringShape::rect, 4), Error);
  EXPECT_THROW(structuring_element(StructuringShape::rect, 0), Error);
}

TYPED_TEST(Morphology, MatchesOpenCVMorphologyEx) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  auto const big = test::noise_u8(80, 61, 3);
  auto const wide = test::noise_u8(611, 53, 8);
  std::vector<HostImage<std::uint8_t>> images{
      test::noise_u8(1, 1, 1),    test::noise_u8(5, 3, 2),           test::noise_u8(1, 40, 4),
      test::noise_u8(40, 1, 5),   test::random_mask(37, 29, 0.4, 6), big.roi(3, 5, 61, 47),
      test::noise_u8(300, 70, 7), wide.roi(4, 1, 597, 50),           test::noise_u8(2100, 12, 9)};
  std::vector<Path> paths{Path::portable};
  if (morphology_path<TypeParam>() == Path::tuned) paths.push_back(Path::tuned);
  for (auto const& image : images)
    for (MorphOp op : {MorphOp::erode, MorphOp::dilate, MorphOp::open, MorphOp::close, MorphOp::gradient})
      for (StructuringShape shape : {StructuringShape::rect, StructuringShape::cross, StructuringShape::ellipse})
        for (int size : {1, 3, 5, 7, 9, 15, 31, 41, 45, 97, 99, 191, 193, 257})
          for (Path path : paths) {
            // Wide rectangles: van Herk; the CUDA column pass's word pairs end at 97 and its limit is
            // 191, the host's 255.
            if (size > 15 && shape != StructuringShape::rect) continue;
            ImageView<std::uint8_t, M> out("out", image.width(), image.height());
            morphology(space, ImageView<std::uint8_t const, M>(test::to_space(space, image)), out,
                       MorphParams{op, shape, size, path});
            cv::Mat expected;
            cv::morphologyEx(test::as_mat(image), expected, opencv_op(op),
                             cv::getStructuringElement(opencv_shape(shape), cv::Size(size, size)));
            ASSERT_EQ(test::count_differences(test::to_host(space, out), test::from_mat<std::uint8_t>(expected)), 0)
                << image.width() << "x" << image.height() << " op " << int(op) << " shape " << int(shape) << " size "
                << size << " path " << to_string(path);
          }
}

// A structuring element far larger than the image runs as its effective size, and gives what
// OpenCV gives with an element just past the image's reach (41 on a 13 x 9 image, 45 on 17 x 11)
// for every shape: a size of 2^31 - 1 costs no more than the image.
TYPED_TEST(Morphology, HugeElementsEqualOpenCVsJustPastTheImage) {
  TypeParam space;
  using M = typename TypeParam::memory_space;
  EXPECT_EQ(effective_structuring_size(3, 13, 9), 3);
  EXPECT_EQ(effective_structuring_size(35, 13, 9), 35);
  EXPECT_EQ(effective_structuring_size(2147483647, 13, 9), 2 * (16 + 1) + 1);  // ceil(hypot(13, 9)) = 16
  EXPECT_THROW(effective_structuring_size(2147483646, 13, 9), Error);
  for (auto const& [image, reach] :
       {std::pair{test::noise_u8(13, 9, 21), 41}, std::pair{test::random_mask(17, 11, 0.5, 22), 45}})
    for (MorphOp op : {MorphOp::erode, MorphOp::dilate, MorphOp::open, MorphOp::close, MorphOp::gradient})
      for (StructuringShape shape : {StructuringShape::rect, StructuringShape::cross, StructuringShape::ellipse}) {
        ImageView<std::uint8_t, M> out("out", image.width(), image.height());
        morphology(space, ImageView<std::uint8_t const, M>(test::to_space(space, image)), out,
                   MorphParams{op, shape, 2147483647, Path::automatic});
        cv::Mat expected;
        cv::morphologyEx(test::as_mat(image), expected, opencv_op(op),
                         cv::getStructuringElement(opencv_shape(shape), cv::Size(reach, reach)));
        ASSERT_EQ(test::count_differences(test::to_host(space, out), test::from_mat<std::uint8_t>(expected)), 0)
            << image.width() << "x" << image.height() << " op " << int(op) << " shape " << int(shape);
      }
}

TYPED_TEST(Morphology, RejectsEvenSizesAndMismatchedImages) {
  using M = typename TypeParam::memory_space;
  ImageView<std::uint8_t, M> a("a", 8, 8), b("b", 7, 8);
  EXPECT_THROW(morphology(TypeParam(), ImageView<std::uint8_t const, M>(a), a,
                          MorphParams{MorphOp::erode, StructuringShape::rect, 4}),
               Error);
  EXPECT_THROW(morphology(TypeParam(), ImageView<std::uint8_t const, M>(a), b, MorphParams{}), Error);
}

#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
// The CUDA wide-rectangle kernels by name, each against cv::erode / cv::dilate: the fused kernel
// and the two separable passes, every chain length from one strip up (chain boundaries, the
// re-read rows above a chain), tiles of 3 rows, 8 and a whole strip, bands ending inside a word, device rois 4-byte but
// not 16-byte aligned (no vector stores), images narrower or shorter than the rectangle.
TEST(MorphologyCuda, FusedAndSeparableRectanglesMatchOpenCV) {
  Kokkos::Cuda space;
  using M = Kokkos::CudaSpace;
  auto const tall = test::noise_u8(1033, 701, 11);
  auto const wide = test::noise_u8(2100, 12, 12);
  auto const narrow = test::noise_u8(37, 400, 13);
  auto const tiny = test::noise_u8(5, 3, 14);
  for (auto const* host : {&tall, &wide, &narrow, &tiny})
    for (bool roi : {false, true}) {
      if (roi && host->width() < 16) continue;
      auto const device_full = test::to_space(space, *host);
      // A roi starting 4 bytes in: rows 4-byte aligned, not 16.
      auto const device = roi ? device_full.roi(4, 1, host->width() - 7, host->height() - 1) : device_full;
      auto const source = roi ? host->roi(4, 1, host->width() - 7, host->height() - 1) : *host;
      for (int size : {3, 9, 15, 31, 33, 47, 49, 63})
        for (bool minimum : {true, false}) {
          cv::Mat expected;
          auto const element = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(size, size));
          if (minimum)
            cv::erode(test::as_mat(source), expected, element);
          else
            cv::dilate(test::as_mat(source), expected, element);
          auto const want = test::from_mat<std::uint8_t>(expected);
          for (auto passes : {tuned::RectPasses::fused, tuned::RectPasses::separable})
            for (int chain : {0, 1, 2, 3, 7})
              for (int rows : {0, 3, size}) {  // rows a tile: the default, a tile ending inside a strip, whole strips
                if (passes == tuned::RectPasses::separable && (chain != 0 || rows != 0)) continue;  // fused only
                ImageView<std::uint8_t, M> out("out", device.width(), device.height());
                ASSERT_TRUE(tuned::rect_min_max_u8(space, ImageView<std::uint8_t const, M>(device), out, size, minimum,
                                                   passes, chain, rows));
                ASSERT_EQ(test::count_differences(test::to_host(space, out), want), 0)
                    << device.width() << "x" << device.height() << " roi " << roi << " size " << size << " min "
                    << minimum << " passes " << int(passes) << " chain " << chain << " rows " << rows;
              }
        }
    }
  // Out of range: the caller takes another path.
  ImageView<std::uint8_t, M> a("a", 64, 64), b("b", 64, 64);
  EXPECT_FALSE(
      tuned::rect_min_max_u8(space, ImageView<std::uint8_t const, M>(a), b, 65, true, tuned::RectPasses::fused));
  EXPECT_FALSE(
      tuned::rect_min_max_u8(space, ImageView<std::uint8_t const, M>(a), b, 193, true, tuned::RectPasses::separable));
}
#endif

}  // namespace
}  // namespace gigaseg
