#pragma once
// Tuned host local filters for the OpenMP backend (see filters_openmp.cpp): medians, Sobel
// magnitude and morphology written as whole-row loops that the compiler turns into SIMD code, each
// thread sliding down a band of rows with the rows it needs in small cache-resident buffers.
// Results are identical to the portable paths.
#include "gigaseg/algorithms/filters_types.hpp"
#include "gigaseg/algorithms/morphology_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

#ifdef KOKKOS_ENABLE_OPENMP
namespace gigaseg {
namespace tuned {

// 3x3 or 5x5 median, border replicate (cv::medianBlur). False for other sizes.
bool median(Kokkos::OpenMP const& space, ImageView<std::uint8_t const, Kokkos::HostSpace> const& in,
            ImageView<std::uint8_t, Kokkos::HostSpace> const& out, int size);
bool median(Kokkos::OpenMP const& space, ImageView<std::uint16_t const, Kokkos::HostSpace> const& in,
            ImageView<std::uint16_t, Kokkos::HostSpace> const& out, int size);
bool median(Kokkos::OpenMP const& space, ImageView<float const, Kokkos::HostSpace> const& in,
            ImageView<float, Kokkos::HostSpace> const& out, int size);

// Erosion (minimum) or dilation (maximum) over an element given by its row spans: row i of
// `first.size()` (odd) rows covers columns first[i] .. last[i] around the centre (none when
// first[i] > last[i]); pixels outside the image take no part. A rectangle (every row the same
// symmetric span) runs separably, from 5 on by van Herk/Gil-Werman across rows. False, doing
// nothing, for rectangles wider than 255 (the portable van Herk passes take those).
bool min_max(Kokkos::OpenMP const& space, ImageView<std::uint8_t const, Kokkos::HostSpace> const& in,
             ImageView<std::uint8_t, Kokkos::HostSpace> const& out, std::vector<int> const& first,
             std::vector<int> const& last, bool minimum);

// sqrt(gx^2 + gy^2) with cv::Sobel's 3x3 gx and gy, BORDER_REFLECT_101.
bool sobel_magnitude(Kokkos::OpenMP const& space, ImageView<std::uint8_t const, Kokkos::HostSpace> const& in,
                     ImageView<float, Kokkos::HostSpace> const& out);

// Separable Gaussian of an 8-bit image with weights that are multiples of 1/256 summing to 1
// (gaussian_weights()), BORDER_REFLECT_101, half-up rounding: in integers (16-bit row sums, 32-bit
// column sums), equal to the portable float passes, which are exact for such weights. False for
// other weights.
bool gaussian(Kokkos::OpenMP const& space, ImageView<std::uint8_t const, Kokkos::HostSpace> const& in,
              ImageView<std::uint8_t, Kokkos::HostSpace> const& out, std::vector<float> const& weights);

// One erosion or dilation of morphology() with the whole element: min_max() over its row spans.
inline bool erode_or_dilate(Kokkos::OpenMP const& space, ImageView<std::uint8_t const, Kokkos::HostSpace> const& in,
                            ImageView<std::uint8_t, Kokkos::HostSpace> const& out, StructuringShape shape, int size,
                            bool minimum) {
  StructuringElement const element = structuring_element(shape, size);
  return min_max(space, in, out, element.first, element.last, minimum);
}

}  // namespace tuned

GIGASEG_DECLARE_TUNED(MedianAlgorithm<std::uint8_t>, Kokkos::OpenMP, tuned::median);
GIGASEG_DECLARE_TUNED(MedianAlgorithm<std::uint16_t>, Kokkos::OpenMP, tuned::median);
GIGASEG_DECLARE_TUNED(MedianAlgorithm<float>, Kokkos::OpenMP, tuned::median);
GIGASEG_DECLARE_TUNED(GaussianAlgorithm, Kokkos::OpenMP, tuned::gaussian);
GIGASEG_DECLARE_TUNED(SobelAlgorithm, Kokkos::OpenMP, tuned::sobel_magnitude);
GIGASEG_DECLARE_TUNED(MorphologyAlgorithm, Kokkos::OpenMP, tuned::erode_or_dilate);

}  // namespace gigaseg
#endif
