#pragma once
// FFTW transforms for convolve()'s FFT method on the host execution spaces (see
// convolve_openmp.cpp): single precision, planned with as many threads as the execution space has
// (Kokkos::Serial: one).
#include "gigaseg/algorithms/convolve_types.hpp"

#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_OPENMP
namespace gigaseg {
namespace tuned {

// Forward: real (ny x nx) -> spectrum (ny x (nx / 2 + 1)); inverse: spectrum -> real, overwriting
// the spectrum; unnormalised, row-major. Fences `space` first and runs to completion; true.
bool fft(Kokkos::OpenMP const& space, FftDirection direction, float* real, detail::FftComplex* spectrum, long ny,
         long nx);
#ifdef KOKKOS_ENABLE_SERIAL
bool fft(Kokkos::Serial const& space, FftDirection direction, float* real, detail::FftComplex* spectrum, long ny,
         long nx);
#endif

}  // namespace tuned

GIGASEG_DECLARE_TUNED(FftAlgorithm, Kokkos::OpenMP, tuned::fft);
#ifdef KOKKOS_ENABLE_SERIAL
GIGASEG_DECLARE_TUNED(FftAlgorithm, Kokkos::Serial, tuned::fft);
#endif

}  // namespace gigaseg
#endif
