// cuFFT transforms for algorithms/detail/convolve_impl.hpp, enqueued on the instance's stream.
#include "algorithms/convolve.hpp"
#include "backends/cuda/cuda_check.hpp"

#include <cufft.h>

#include <string>

namespace gigaseg::detail {
namespace {

void check(cufftResult result, char const* what) {
  if (result == CUFFT_ALLOC_FAILED)
    GIGASEG_THROW(ErrorKind::resource, "convolve", std::string(what) + ": out of device memory for the FFT");
  GIGASEG_REQUIRE(result == CUFFT_SUCCESS, ErrorKind::resource, "convolve",
                  std::string(what) + " failed (cuFFT error " + std::to_string(int(result)) + ")");
}

template <class Exec>
void run(Kokkos::Cuda const& space, long ny, long nx, cufftType type, Exec&& exec) {
  cufftHandle plan;
  check(cufftPlan2d(&plan, int(ny), int(nx), type), "cufftPlan2d");
  cufftResult result = cufftSetStream(plan, space.cuda_stream());
  if (result == CUFFT_SUCCESS) result = exec(plan);
  cufftDestroy(plan);  // waits for nothing: the work stays ordered on the stream
  check(result, "cuFFT transform");
}

}  // namespace

void fft_forward(Kokkos::Cuda const& space, float* real, FftComplex* spectrum, long ny, long nx) {
  run(space, ny, nx, CUFFT_R2C, [&](cufftHandle plan) { return cufftExecR2C(plan, real, reinterpret_cast<cufftComplex*>(spectrum)); });
}

void fft_inverse(Kokkos::Cuda const& space, FftComplex* spectrum, float* real, long ny, long nx) {
  run(space, ny, nx, CUFFT_C2R, [&](cufftHandle plan) { return cufftExecC2R(plan, reinterpret_cast<cufftComplex*>(spectrum), real); });
}

}  // namespace gigaseg::detail
