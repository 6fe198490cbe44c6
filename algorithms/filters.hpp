#pragma once
// Local filters: median, Gaussian, box, Sobel.
//
//  - median(): 3x3 and 5x5 medians of 8-bit, 16-bit and float images, border replicate, identical
//    to cv::medianBlur. Each window's columns are sorted, then a min/max network selects the median
//    from the sorted columns (detail/median_networks.hpp, generated and checked exhaustively).
//  - gaussian(): separable Gaussian blur of an 8-bit image with OpenCV's kernel (size from sigma as
//    cv::GaussianBlur chooses it), BORDER_REFLECT_101, with the kernel quantised to 1/256 as
//    OpenCV's fixed-point 8-bit path does: the float passes are then exact and equal OpenCV's.
//  - box_filter(): normalised K x K mean of an 8-bit image (cv::blur), BORDER_REFLECT_101.
//  - sobel_magnitude(): sqrt(gx^2 + gy^2) as float, gx and gy as cv::Sobel 3x3, BORDER_REFLECT_101.
//
// Paths (algorithms/path.hpp): portable = tiled Kokkos team-scratch passes (detail/stencil.hpp,
// detail/filters_portable.hpp) on every backend; tuned = CUDA kernels for 8-bit medians and Sobel
// (backends/cuda/filters_cuda.cpp), and host row loops for medians of every type, Sobel and the
// Gaussian on OpenMP (backends/openmp/filters_openmp.cpp). Every path gives identical results.
//
// Defined in the library (algorithms/detail/filters_impl.hpp) for every enabled execution space
// and the pixel types below (backends/instantiate/filters.cpp).
#include "gigaseg/algorithms/filters_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace gigaseg {

// out = median of the size x size window (size 3 or 5). T: std::uint8_t, std::uint16_t, float.
template <class ExecSpace, class T>
void median(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& in,
            ImageView<T, typename ExecSpace::memory_space> const& out, int size, FilterParams const& params = {});

// The path median() takes on ExecSpace for T.
template <class ExecSpace, class T>
Path median_path(FilterParams const& params = {});

// The kernel size gaussian() uses and the kernel's weights (cv::getGaussianKernel for sigma > 0,
// quantised to multiples of 1/256 as OpenCV's 8-bit path does).
int gaussian_ksize(GaussianParams const& params);
std::vector<float> gaussian_weights(int ksize, double sigma);

template <class ExecSpace>
void gaussian(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
              ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, GaussianParams const& params);

template <class ExecSpace>
void box_filter(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, int size);

// The path sobel_magnitude() takes on ExecSpace.
template <class ExecSpace>
Path sobel_path(FilterParams const& params = {});

template <class ExecSpace>
void sobel_magnitude(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                     ImageView<float, typename ExecSpace::memory_space> const& out, FilterParams const& params = {});

// A non-const input image, the same call.
template <class ExecSpace, class T, if_mutable<T> = 0>
void median(ExecSpace const& space, ImageView<T, typename ExecSpace::memory_space> const& in,
            ImageView<T, typename ExecSpace::memory_space> const& out, int size, FilterParams const& params = {}) {
  median(space, ImageView<T const, typename ExecSpace::memory_space>(in), out, size, params);
}

}  // namespace gigaseg
