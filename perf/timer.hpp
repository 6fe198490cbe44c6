#pragma once
// Timing of device work for benchmarks: CUDA events on the instance's stream when the space is
// Kokkos::Cuda (no host-side launch gaps in the figure), a fence and a steady clock otherwise.
#include <Kokkos_Core.hpp>

#include <chrono>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace gigaseg::perf {

template <class ExecSpace>
class SpaceTimer {
 public:
  explicit SpaceTimer(ExecSpace const& space) : space_(space) {}
  template <class Work>
  double milliseconds(Work&& work) {
    space_.fence();
    auto const start = std::chrono::steady_clock::now();
    work();
    space_.fence();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  ExecSpace space_;
};

#ifdef KOKKOS_ENABLE_CUDA
template <>
class SpaceTimer<Kokkos::Cuda> {
 public:
  explicit SpaceTimer(Kokkos::Cuda const& space) : space_(space) {
    cudaEventCreate(&start_);
    cudaEventCreate(&stop_);
  }
  ~SpaceTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  template <class Work>
  double milliseconds(Work&& work) {
    cudaEventRecord(start_, space_.cuda_stream());
    work();
    cudaEventRecord(stop_, space_.cuda_stream());
    cudaEventSynchronize(stop_);
    float ms = 0;
    cudaEventElapsedTime(&ms, start_, stop_);
    return ms;
  }

 private:
  Kokkos::Cuda space_;
  cudaEvent_t start_{}, stop_{};
};
#endif

}  // namespace gigaseg::perf
