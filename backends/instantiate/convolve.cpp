// The library's instances of algorithms/convolve.hpp: convolve() and convolve_method() for every
// enabled execution space, the FFT method running the backends' transforms (FFTW on host spaces,
// cuFFT on CUDA).
#include "gigaseg/algorithms/detail/convolve_impl.hpp"
#include "gigaseg/backends/cuda/fft_cuda.hpp"
#include "gigaseg/backends/instantiate/spaces.hpp"
#include "gigaseg/backends/openmp/convolve_openmp.hpp"

namespace gigaseg {

#define GIGASEG_CONVOLVE_SPACE(SPACE)                                                                      \
  template void convolve<SPACE>(SPACE const&, ImageView<std::uint8_t const, GIGASEG_MEMORY(SPACE)> const&, \
                                ImageView<float, GIGASEG_MEMORY(SPACE)> const&, ConvolutionKernel const&,  \
                                ConvolveMethod);                                                           \
  template ConvolveMethod convolve_method<SPACE>(ConvolutionKernel const&, ConvolveMethod);
GIGASEG_FOR_EACH_SPACE(GIGASEG_CONVOLVE_SPACE)

}  // namespace gigaseg
