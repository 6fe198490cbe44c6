// cuFFT transforms for convolve()'s FFT method, enqueued on the instance's stream.
#include "gigaseg/backends/cuda/fft_cuda.hpp"

#include "gigaseg/core/cuda/cuda_check.hpp"
#include "gigaseg/core/error.hpp"

#include <cufft.h>

#include <string>

namespace gigaseg::tuned {
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

bool fft(Kokkos::Cuda const& space, FftDirection direction, float* real, detail::FftComplex* spectrum, long ny,
         long nx) {
  auto* const complex = reinterpret_cast<cufftComplex*>(spectrum);
  if (direction == FftDirection::forward)
    run(space, ny, nx, CUFFT_R2C, [&](cufftHandle plan) { return cufftExecR2C(plan, real, complex); });
  else
    run(space, ny, nx, CUFFT_C2R, [&](cufftHandle plan) { return cufftExecC2R(plan, complex, real); });
  return true;
}

}  // namespace gigaseg::tuned
