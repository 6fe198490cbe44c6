#pragma once
// Timing of device work for benchmarks: CUDA events on the instance's stream when the space is
// Kokkos::Cuda (no host-side launch gaps in the figure), a fence and a steady clock otherwise.
#include <Kokkos_Core.hpp>

#include <benchmark/benchmark.h>

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

// Every benchmark: one run per repetition, 25 repetitions, medians reported.
constexpr int repetitions = 25;
inline void configure(benchmark::internal::Benchmark* b) {
  b->UseManualTime()
      ->Iterations(1)
      ->Repetitions(repetitions)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMillisecond);
}

// One warm-up call, then one timed call per iteration; `work` returns milliseconds. `bytes` per
// call gives the TB/s counter.
template <class Work>
void run_timed(benchmark::State& state, double bytes, Work&& work) {
  work();
  for (auto _ : state) state.SetIterationTime(work() / 1e3);
  state.counters["TB/s"] = benchmark::Counter(bytes / 1e12, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace gigaseg::perf
