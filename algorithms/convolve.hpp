#pragma once
// 2-D correlation of an 8-bit image with an arbitrary float kernel:
//   out(y, x) = sum_{i, j} k(i, j) * in(y + i - kh/2, x + j - kw/2),  BORDER_REPLICATE,
// float output: cv::filter2D(in, out, CV_32F, k) with the default anchor and BORDER_REPLICATE.
//
//  - direct: one tiled team-scratch pass (detail/stencil.hpp), kh * kw multiply-adds per pixel;
//  - fft: the replicate-padded image and the flipped kernel are transformed at sizes the FFT likes
//    (products of 2, 3, 5, 7), multiplied and transformed back: FFTW (single precision, as many
//    threads as the execution space has) on host backends (backends/openmp/convolve_openmp.cpp),
//    cuFFT on CUDA (backends/cuda/fft_cuda.cpp). The padding, product and crop are portable Kokkos.
//  - automatic: direct while kh * kw is below the backend's crossover (measured, docs/
//    performance.md), FFT from there on; direct on an execution space without an FFT.
//
// Defined in the library (algorithms/detail/convolve_impl.hpp) for every enabled execution space
// (backends/instantiate/convolve.cpp).
#include "gigaseg/algorithms/convolve_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace gigaseg {

enum class ConvolveMethod { automatic, direct, fft };

struct ConvolutionKernel {
  int width = 0, height = 0;
  std::vector<float> weights;  // row-major, height x width
};

// Reads a kernel from a text file: one row per line, numbers separated by spaces, tabs or commas;
// blank lines and lines starting with '#' are skipped. Every row must have the same count.
ConvolutionKernel read_kernel_text(std::string const& path);

// The method convolve() uses for this kernel on ExecSpace.
template <class ExecSpace>
ConvolveMethod convolve_method(ConvolutionKernel const& kernel, ConvolveMethod requested);

template <class ExecSpace>
void convolve(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
              ImageView<float, typename ExecSpace::memory_space> const& out, ConvolutionKernel const& kernel,
              ConvolveMethod method = ConvolveMethod::automatic);

// The smallest n' >= n whose only prime factors are 2, 3, 5 and 7.
long fft_friendly_size(long n);

}  // namespace gigaseg
