#pragma once
// Tuned CUDA local filters for 8-bit images (see filters_cuda.cpp).
#include "gigaseg/algorithms/filters_types.hpp"
#include "gigaseg/algorithms/morphology_types.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/gigaseg_config.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
namespace gigaseg {
namespace tuned {

// 3x3 or 5x5 median, border replicate. Returns false, doing nothing, when its precondition fails
// (row starts and pitches of both images 4-byte aligned); the caller then takes the portable path.
bool median(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
            ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, int size);

// Erosion (minimum) or dilation (maximum) over a size x size rectangle with OpenCV's morphology
// border (pixels outside the image take no part). Sizes 3, 5 and 7 in one register-window pass;
// the others as a van Herk/Gil-Werman column pass and a doubling row pass: 23 .. 63 fused in one
// kernel (the column extrema stay in shared memory), 9 .. 21 and 65 .. 191 in two kernels. Same
// precondition; false for other sizes.
bool rect_min_max_u8(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                     ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, int size, bool minimum);

// The wide-rectangle kernels by name, for tests and benchmarks: fused (odd sizes 3 .. 63) or
// separable (3 .. 191). Fused only: `chain` strips of `size` rows a block (0: chosen from the
// image's size), `rows` output rows a tile (0: the default, 16).
enum class RectPasses { automatic, fused, separable };
bool rect_min_max_u8(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                     ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, int size, bool minimum, RectPasses passes,
                     int chain = 0, int rows = 0);

// sqrt(gx^2 + gy^2) with cv::Sobel's 3x3 gx and gy, BORDER_REFLECT_101. False, doing nothing, when
// the input's rows are not 4-byte aligned.
bool sobel_magnitude(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                     ImageView<float, Kokkos::CudaSpace> const& out);

// One erosion or dilation of morphology() with the whole element: rect_min_max_u8() for rectangles
// wider than 1; false (the portable passes) for other elements.
inline bool erode_or_dilate(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                            ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, StructuringShape shape, int size,
                            bool minimum) {
  return shape == StructuringShape::rect && size > 1 && rect_min_max_u8(space, in, out, size, minimum);
}

}  // namespace tuned

GIGASEG_DECLARE_TUNED(MedianAlgorithm<std::uint8_t>, Kokkos::Cuda, tuned::median);
GIGASEG_DECLARE_TUNED(SobelAlgorithm, Kokkos::Cuda, tuned::sobel_magnitude);
GIGASEG_DECLARE_TUNED(MorphologyAlgorithm, Kokkos::Cuda, tuned::erode_or_dilate);

}  // namespace gigaseg
#endif
