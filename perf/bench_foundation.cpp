// The baseline: the simplest Kokkos threshold kernel (one byte per thread, a linear
// index split into row and column) against a device-to-device cudaMemcpy of the same bytes, and
// the crossover at which the GPU, transfers included, beats the host backend for the same work:
// the measurement behind default_small_image_pixels (core/context.hpp).
//
//   bench_foundation --benchmark_out=foundation.json --benchmark_out_format=json
//   python3 perf/report.py foundation.json
//
// Each benchmark runs once per repetition after one warm-up run; repetitions give the median.
#include "gigaseg/core/image.hpp"
#include "gigaseg/core/transfer.hpp"
#include "gigaseg/core/runtime.hpp"
#include "perf/timer.hpp"

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace gigaseg::perf {
namespace {

template <class ExecSpace>
void threshold_naive(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> in,
                     ImageView<std::uint8_t, typename ExecSpace::memory_space> out, std::uint8_t level) {
  index_t const w = in.width();
  Kokkos::parallel_for(
      "perf::threshold_naive", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, in.pixel_count()),
      KOKKOS_LAMBDA(index_t i) {
        index_t const y = i / w, x = i % w;
        out(y, x) = in(y, x) > level ? 255 : 0;
      });
}

// A sensible kernel for the crossover: rows on the host (the inner loop vectorises), a 2-D range
// on the GPU. Comparing the naive kernel on the host would flatter the GPU.
template <class ExecSpace>
void threshold_rows(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> in,
                    ImageView<std::uint8_t, typename ExecSpace::memory_space> out, std::uint8_t level) {
  if constexpr (Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) {
    Kokkos::parallel_for("perf::threshold_rows",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, in.height()),
                         [=](index_t y) {
                           std::uint8_t const* src = in.row(y);
                           std::uint8_t* dst = out.row(y);
                           for (index_t x = 0; x < in.width(); ++x) dst[x] = src[x] > level ? 255 : 0;
                         });
  } else {
    Kokkos::parallel_for(
        "perf::threshold_rows",
        Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>, Kokkos::IndexType<index_t>>(space, {0, 0},
                                                                                      {in.height(), in.width()}),
        KOKKOS_LAMBDA(index_t y, index_t x) { out(y, x) = in(y, x) > level ? 255 : 0; });
  }
}

template <class ExecSpace>
void fill_ramp(ExecSpace const& space, ImageView<std::uint8_t, typename ExecSpace::memory_space> image) {
  Kokkos::parallel_for(
      "perf::fill",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>, Kokkos::IndexType<index_t>>(space, {0, 0},
                                                                                    {image.height(), image.width()}),
      KOKKOS_LAMBDA(index_t y, index_t x) { image(y, x) = std::uint8_t((x * 7 + y * 13) ^ (x >> 3)); });
}

template <class ExecSpace>
struct Images {
  using Memory = typename ExecSpace::memory_space;
  ImageView<std::uint8_t, Memory> in, out;
  explicit Images(ExecSpace const& space, index_t side) : in("perf::in", side, side), out("perf::out", side, side) {
    fill_ramp(space, in);
    space.fence();
  }
};

template <class ExecSpace>
void BM_ThresholdNaive(benchmark::State& state) {
  ExecSpace space;
  Images<ExecSpace> images(space, state.range(0));
  SpaceTimer<ExecSpace> timer(space);
  double const bytes = 2.0 * double(images.in.pixel_count());
  run_timed(state, bytes,
            [&] { return timer.milliseconds([&] { threshold_naive(space, images.in, images.out, 128); }); });
}

#ifdef KOKKOS_ENABLE_CUDA
void BM_CudaMemcpyDeviceToDevice(benchmark::State& state) {
  Kokkos::Cuda space;
  Images<Kokkos::Cuda> images(space, state.range(0));
  SpaceTimer<Kokkos::Cuda> timer(space);
  // The same bytes the threshold reads and writes: the whole pitched buffer, rows and padding.
  std::size_t const bytes = std::size_t(images.in.pitch_bytes() * images.in.height());
  run_timed(state, 2.0 * double(images.in.pixel_count()), [&] {
    return timer.milliseconds([&] {
      cudaMemcpyAsync(images.out.data(), images.in.data(), bytes, cudaMemcpyDeviceToDevice, space.cuda_stream());
    });
  });
}

// Upload from pinned memory, threshold, download: what `auto` would pay for a small image.
void BM_ThresholdCudaEndToEnd(benchmark::State& state) {
  Kokkos::Cuda space;
  index_t const side = state.range(0);
  ImageView<std::uint8_t, Kokkos::CudaHostPinnedSpace> host_in("perf::pinned_in", side, side),
      host_out("perf::pinned_out", side, side);
  for (index_t y = 0; y < side; ++y)
    for (index_t x = 0; x < side; ++x) host_in(y, x) = std::uint8_t(x ^ y);
  ImageView<std::uint8_t, Kokkos::CudaSpace> in("perf::in", side, side), out("perf::out", side, side);
  SpaceTimer<Kokkos::Cuda> timer(space);
  run_timed(state, 2.0 * double(side * side), [&] {
    return timer.milliseconds([&] {
      copy(space, in, host_in);
      threshold_rows(space, in, out, 128);
      copy(space, host_out, out);
    });
  });
}
#endif

void BM_ThresholdHost(benchmark::State& state) {
  Kokkos::DefaultHostExecutionSpace space;
  Images<Kokkos::DefaultHostExecutionSpace> images(space, state.range(0));
  SpaceTimer<Kokkos::DefaultHostExecutionSpace> timer(space);
  run_timed(state, 2.0 * double(images.in.pixel_count()),
            [&] { return timer.milliseconds([&] { threshold_rows(space, images.in, images.out, 128); }); });
}

#ifdef KOKKOS_ENABLE_CUDA
BENCHMARK(BM_ThresholdNaive<Kokkos::Cuda>)->Arg(8192)->Arg(20000)->Apply(configure);
BENCHMARK(BM_CudaMemcpyDeviceToDevice)->Arg(8192)->Arg(20000)->Apply(configure);
BENCHMARK(BM_ThresholdCudaEndToEnd)->RangeMultiplier(2)->Range(32, 4096)->Apply(configure);
#endif
BENCHMARK(BM_ThresholdHost)->RangeMultiplier(2)->Range(32, 4096)->Apply(configure);

}  // namespace
}  // namespace gigaseg::perf
