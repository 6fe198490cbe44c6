// FFTW transforms for convolve()'s FFT method on the host execution spaces.
#include "gigaseg/backends/openmp/convolve_openmp.hpp"

#include "gigaseg/core/error.hpp"

#include <fftw3.h>

#include <mutex>

namespace gigaseg::tuned {
namespace {

// FFTW's planner is not thread-safe; execution of distinct plans is.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

// Plans made from here on use `threads` threads (FFTW's OpenMP threads; call under the planner's
// lock).
void threads_for_plans(int threads) {
  static bool const once = [] {
#ifdef _OPENMP
    fftwf_init_threads();
    return true;
#else
    return false;
#endif
  }();
  (void)once;
#ifdef _OPENMP
  fftwf_plan_with_nthreads(threads < 1 ? 1 : threads);
#else
  (void)threads;
#endif
}

template <class Make>
void run_plan(int threads, Make&& make) {
  fftwf_plan plan;
  {
    std::lock_guard<std::mutex> lock(planner_mutex());
    threads_for_plans(threads);
    plan = make();
  }
  GIGASEG_REQUIRE(plan != nullptr, ErrorKind::resource, "convolve", "FFTW could not plan the transform");
  fftwf_execute(plan);
  std::lock_guard<std::mutex> lock(planner_mutex());
  fftwf_destroy_plan(plan);
}

template <class ExecSpace>
bool host_fft(ExecSpace const& space, FftDirection direction, float* real, detail::FftComplex* spectrum, long ny,
              long nx) {
  space.fence();
  auto* const complex = reinterpret_cast<fftwf_complex*>(spectrum);
  int const threads = space.concurrency();
  if (direction == FftDirection::forward)
    run_plan(threads, [&] { return fftwf_plan_dft_r2c_2d(int(ny), int(nx), real, complex, FFTW_ESTIMATE); });
  else  // FFTW's c2r transforms overwrite their input, which is a scratch spectrum here.
    run_plan(threads, [&] { return fftwf_plan_dft_c2r_2d(int(ny), int(nx), complex, real, FFTW_ESTIMATE); });
  return true;
}

}  // namespace

bool fft(Kokkos::OpenMP const& space, FftDirection direction, float* real, detail::FftComplex* spectrum, long ny,
         long nx) {
  return host_fft(space, direction, real, spectrum, ny, nx);
}

#ifdef KOKKOS_ENABLE_SERIAL
bool fft(Kokkos::Serial const& space, FftDirection direction, float* real, detail::FftComplex* spectrum, long ny,
         long nx) {
  return host_fft(space, direction, real, spectrum, ny, nx);
}
#endif

}  // namespace gigaseg::tuned
