#pragma once
// The tags of algorithms/convolve.hpp and the types its backends' Fourier transforms share with
// the implementation, in a header of their own so that the backends (backends/openmp/convolve_openmp.hpp,
// backends/cuda/fft_cuda.hpp) can declare their transforms without the implementation.
#include "gigaseg/algorithms/path.hpp"

#include <Kokkos_Complex.hpp>

namespace gigaseg {

// The tag of convolve() (no tuned path of its own: its FFT method runs the backends' transforms).
struct ConvolveAlgorithm {
  static constexpr char const* name = "convolve";
};

// The tag of convolve()'s Fourier transforms in TunedAvailable / Tuned (algorithms/path.hpp). There
// is no portable transform: the FFT method exists on an execution space iff it has a tuned one
// (FFTW on host spaces, cuFFT on CUDA). run(space, direction, real, spectrum, ny, nx) -> bool
// transforms ny x nx row-major arrays (unnormalised): forward real -> spectrum (ny x (nx / 2 + 1)),
// inverse spectrum -> real (the spectrum is overwritten); enqueued on `space` or fenced on return.
struct FftAlgorithm {
  static constexpr char const* name = "fft";
};

enum class FftDirection { forward, inverse };

namespace detail {
using FftComplex = Kokkos::complex<float>;
}  // namespace detail

}  // namespace gigaseg
