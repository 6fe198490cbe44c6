#pragma once
// Tuned CUDA local filters for 8-bit images (see filters_cuda.cpp).
#include "core/image.hpp"

#include <cstdint>

namespace gigaseg::tuned {

// 3x3 or 5x5 median, border replicate. Returns false, doing nothing, when its precondition fails
// (row starts and pitches of both images 4-byte aligned); the caller then takes the portable path.
bool median_u8(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
               ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, int size);

// Erosion (minimum) or dilation (maximum) over a size x size rectangle, size 3, 5 or 7, with
// OpenCV's morphology border (pixels outside the image take no part). Same precondition.
bool rect_min_max_u8(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                     ImageView<std::uint8_t, Kokkos::CudaSpace> const& out, int size, bool minimum);

}  // namespace gigaseg::tuned
