// Connected-component labelling and region statistics, with the peers of the same run.
//  GPU: 20000 x 20000 masks, 8-connectivity, canonical labels included: a random mask (each
//  pixel foreground with probability 1/2) and a blob mask (24-pixel cells, each foreground with
//  probability 1/2); both from integer hashes that perf/peers/cupy_label.py and
//  perf/peers/npp_label.cu reproduce bit for bit, so the peers label the same pixels. Tuned and
//  portable paths; statistics of every component; one 50000 x 45000 blob mask (2.25e9 pixels,
//  past 2^31) with the device memory it took.
//  Host (OpenMP): a 4096 x 4096 mask of an IHC-like tissue image (gray, Otsu, tissue = darker than
//  T) against OpenCV connectedComponents and connectedComponentsWithStats (host builds).
//
//   bench_label --benchmark_out=label.json --benchmark_out_format=json
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/otsu.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
// detail::region_sums (the device pass alone) is not a library entry: this unit instantiates it,
// with the backends' tuned passes.
#include "gigaseg/algorithms/detail/region_stats_impl.hpp"
#include "gigaseg/backends/cuda/region_stats_cuda.hpp"
#include "gigaseg/backends/openmp/region_stats_openmp.hpp"
#include "gigaseg/core/transfer.hpp"
#include "perf/timer.hpp"
#include "tests/stain_image.hpp"

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime_api.h>
#endif
#ifdef GIGASEG_BENCH_OPENCV
#include <opencv2/imgproc.hpp>
#endif

namespace gigaseg::perf {
namespace {

enum Mask { random_mask = 0, blob_mask = 1 };

// The peers' formulas (32-bit unsigned arithmetic, wrapping).
inline std::uint8_t mask_pixel(Mask kind, std::uint32_t y, std::uint32_t x, std::uint32_t width) {
  std::uint32_t s;
  if (kind == random_mask) {
    s = (y * width + x) * 2654435761u;
    s ^= s >> 13;
    s *= 0x5bd1e995u;
    s ^= s >> 15;
  } else {
    s = (y / 24) * 7919u + (x / 24) * 104729u;
    s ^= s >> 13;
    s *= 2654435761u;
  }
  return (s >> 16) & 1u ? 255 : 0;
}

template <class Memory>
ImageView<std::uint8_t, Memory> make_mask(index_t width, index_t height, Mask kind) {
  HostImage<std::uint8_t> host("perf::mask_host", width, height);
  Kokkos::parallel_for("perf::mask",
                       Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<index_t>>(0, height),
                       [&](index_t y) {
                         std::uint8_t* row = host.row(y);
                         for (index_t x = 0; x < width; ++x)
                           row[x] = mask_pixel(kind, std::uint32_t(y), std::uint32_t(x), std::uint32_t(width));
                       });
  ImageView<std::uint8_t, Memory> image("perf::mask", width, height);
  copy(Kokkos::DefaultHostExecutionSpace(), image, host);
  Kokkos::fence();
  return image;
}

// Labels of a mask; range: side, mask kind, path (1 tuned, 0 portable).
template <class Space>
void BM_Label(benchmark::State& state) {
  Space space;
  using Memory = typename Space::memory_space;
  index_t const side = state.range(0);
  auto const mask = make_mask<Memory>(side, side, Mask(state.range(1)));
  ImageView<Label, Memory> labels("perf::labels", side, side);
  LabelParams params;
  params.path = state.range(2) ? Path::tuned : Path::portable;
  state.SetLabel(to_string(label_path<Space>(params.path)));
  SpaceTimer<Space> timer(space);
  index_t components = 0;
  run_timed(state, double(side * side) * 5.0, [&] {
    return timer.milliseconds(
        [&] { components = label(space, ImageView<std::uint8_t const, Memory>(mask), labels, params); });
  });
  state.counters["components"] = double(components);
}

// Statistics of every component of an already labelled mask (intensity: the mask itself);
// range(2): 1 the whole table on the host (region_stats), 0 the device pass alone (the
// accumulators on the device, as a pipeline that keeps working there uses them).
template <class Space>
void BM_RegionStats(benchmark::State& state) {
  Space space;
  using Memory = typename Space::memory_space;
  index_t const side = state.range(0);
  auto const mask = make_mask<Memory>(side, side, Mask(state.range(1)));
  ImageView<Label, Memory> labels("perf::labels", side, side);
  index_t const components = label(space, ImageView<std::uint8_t const, Memory>(mask), labels);
  SpaceTimer<Space> timer(space);
  run_timed(state, double(side * side) * 5.0, [&] {
    return timer.milliseconds([&] {
      if (state.range(2)) {
        auto const table = region_stats(space, ImageView<Label const, Memory>(labels), components,
                                        ImageView<std::uint8_t const, Memory>(mask));
        benchmark::DoNotOptimize(table.data());
      } else {
        auto const sums = detail::region_sums(space, ImageView<Label const, Memory>(labels), components,
                                              ImageView<std::uint8_t const, Memory>(mask), Path::automatic);
        benchmark::DoNotOptimize(sums.sums.data());
      }
    });
  });
  state.counters["components"] = double(components);
}

#ifdef KOKKOS_ENABLE_CUDA
BENCHMARK_TEMPLATE(BM_Label, Kokkos::Cuda)
    ->Args({20000, random_mask, 1})
    ->Args({20000, blob_mask, 1})
    ->Args({20000, random_mask, 0})
    ->Args({20000, blob_mask, 0})
    ->Args({4096, blob_mask, 1})
    ->Apply(configure);
BENCHMARK_TEMPLATE(BM_RegionStats, Kokkos::Cuda)
    ->Args({20000, random_mask, 0})
    ->Args({20000, blob_mask, 0})
    ->Args({20000, random_mask, 1})
    ->Args({20000, blob_mask, 1})
    ->Apply(configure);

// 50000 x 45000 = 2.25e9 pixels: past 2^31, with 32-bit union-find entries (the pitched slots stay
// below 2^32). Reports the device memory in use at the peak (input + labels + scratch).
void BM_LabelHuge(benchmark::State& state) {
  Kokkos::Cuda space;
  index_t const width = 50000, height = 45000;
  std::size_t free_before = 0, total = 0;
  cudaMemGetInfo(&free_before, &total);
  auto const mask = make_mask<Kokkos::CudaSpace>(width, height, blob_mask);
  ImageView<Label, Kokkos::CudaSpace> labels("perf::labels", width, height);
  SpaceTimer<Kokkos::Cuda> timer(space);
  index_t components = 0;
  std::size_t free_after = 0;
  run_timed(state, double(width * height) * 5.0, [&] {
    return timer.milliseconds([&] {
      components = label(space, ImageView<std::uint8_t const, Kokkos::CudaSpace>(mask), labels);
      cudaMemGetInfo(&free_after, &total);  // scratch is back in the pool, still counted as used
    });
  });
  state.counters["components"] = double(components);
  state.counters["device_GiB"] = double(free_before - free_after) / double(1ull << 30);
}
BENCHMARK(BM_LabelHuge)
    ->UseManualTime()
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMillisecond);
#endif

// The host peer image: a 4096 x 4096 IHC-like tissue image, gray, tissue where darker than Otsu.
HostImage<std::uint8_t> tissue_mask(index_t side) {
  auto const rgb = test::stain_image(side, side, 5);
  HostImage<std::uint8_t> gray("perf::gray", side, side);
  Kokkos::DefaultHostExecutionSpace space;
  rgb_to_gray(space, ImageView<Rgb8 const, Kokkos::HostSpace>(rgb), gray);
  int const t = otsu_threshold(space, ImageView<std::uint8_t const, Kokkos::HostSpace>(gray));
  HostImage<std::uint8_t> mask("perf::tissue_mask", side, side);
  for (index_t y = 0; y < side; ++y)
    for (index_t x = 0; x < side; ++x) mask(y, x) = gray(y, x) <= t ? 255 : 0;
  return mask;
}

// range: 1 with statistics.
void BM_LabelHost(benchmark::State& state) {
  Kokkos::DefaultHostExecutionSpace space;
  auto const mask = tissue_mask(state.range(0));
  HostImage<Label> labels("perf::labels", mask.width(), mask.height());
  SpaceTimer<Kokkos::DefaultHostExecutionSpace> timer(space);
  index_t components = 0;
  run_timed(state, double(mask.pixel_count()) * 5.0, [&] {
    return timer.milliseconds([&] {
      components = label(space, ImageView<std::uint8_t const, Kokkos::HostSpace>(mask), labels);
      if (state.range(1)) {
        auto const table = region_stats(space, ImageView<Label const, Kokkos::HostSpace>(labels), components,
                                        ImageView<std::uint8_t const, Kokkos::HostSpace>(mask));
        benchmark::DoNotOptimize(table.data());
      }
    });
  });
  state.counters["components"] = double(components);
}
BENCHMARK(BM_LabelHost)->Args({4096, 0})->Args({4096, 1})->Apply(configure);

#ifdef GIGASEG_BENCH_OPENCV
// OpenCV on the same mask; range(1): 1 with statistics. OpenCV's own default algorithm (Spaghetti
// for 8-connectivity) with its parallel implementation on the same threads.
void BM_OpenCVConnectedComponents(benchmark::State& state) {
  auto const mask = tissue_mask(state.range(0));
  cv::Mat const in(int(mask.height()), int(mask.width()), CV_8U, const_cast<std::uint8_t*>(mask.data()),
                   std::size_t(mask.pitch_bytes()));
  cv::Mat labels, stats, centroids;
  Kokkos::DefaultHostExecutionSpace space;
  SpaceTimer<Kokkos::DefaultHostExecutionSpace> timer(space);
  int components = 0;
  run_timed(state, double(mask.pixel_count()) * 5.0, [&] {
    return timer.milliseconds([&] {
      components = state.range(1) ? cv::connectedComponentsWithStats(in, labels, stats, centroids, 8, CV_32S)
                                  : cv::connectedComponents(in, labels, 8, CV_32S);
    });
  });
  state.counters["components"] = double(components - 1);
}
BENCHMARK(BM_OpenCVConnectedComponents)->Args({4096, 0})->Args({4096, 1})->Apply(configure);
#endif

}  // namespace
}  // namespace gigaseg::perf
