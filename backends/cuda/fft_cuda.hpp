#pragma once
// cuFFT transforms for convolve()'s FFT method on CUDA (see fft_cuda.cpp).
#include "gigaseg/algorithms/convolve_types.hpp"

#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_CUDA
namespace gigaseg {
namespace tuned {

// Forward: real (ny x nx) -> spectrum (ny x (nx / 2 + 1)); inverse: spectrum -> real; unnormalised,
// row-major, device memory; enqueued on the instance's stream. True (failures throw).
bool fft(Kokkos::Cuda const& space, FftDirection direction, float* real, detail::FftComplex* spectrum, long ny,
         long nx);

}  // namespace tuned

GIGASEG_DECLARE_TUNED(FftAlgorithm, Kokkos::Cuda, tuned::fft);

}  // namespace gigaseg
#endif
