// Exact distance transform (issue 6) on a synthetic cell image (discs of radius 6..30 covering
// about half the image, foreground 255 on 0): GPU at 20000^2 and 4096^2, host (OpenMP) at 4096^2
// against OpenCV's precise distanceTransform (DIST_L2, DIST_MASK_PRECISE) in the same run (host
// builds). NPP's and CuPy's EDT are measured by perf/peers in the same device job.
#include "algorithms/distance.hpp"
#include "core/transfer.hpp"
#include "perf/timer.hpp"

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <random>

#ifdef GIGASEG_BENCH_OPENCV
#include <opencv2/imgproc.hpp>
#endif

namespace gigaseg::perf {
namespace {

// Discs at random centres until about `coverage` of the image is foreground (approximately:
// overlaps are counted twice), deterministic for a side.
HostImage<std::uint8_t> cells_image(index_t side, double coverage = 0.5) {
  HostImage<std::uint8_t> host("perf::cells", side, side);
  for (index_t y = 0; y < side; ++y)
    for (index_t x = 0; x < side; ++x) host(y, x) = 0;
  std::mt19937_64 rng(std::uint64_t(side) * 7 + 1);
  std::uniform_int_distribution<index_t> position(0, side - 1);
  std::uniform_int_distribution<int> radius(6, 30);
  double covered = 0;
  while (covered < coverage * double(side) * double(side)) {
    index_t const cy = position(rng), cx = position(rng);
    int const r = radius(rng);
    for (index_t y = std::max<index_t>(0, cy - r); y <= std::min<index_t>(side - 1, cy + r); ++y)
      for (index_t x = std::max<index_t>(0, cx - r); x <= std::min<index_t>(side - 1, cx + r); ++x)
        if ((y - cy) * (y - cy) + (x - cx) * (x - cx) <= index_t(r) * r) host(y, x) = 255;
    covered += 3.14159 * r * r;
  }
  return host;
}

template <class Space>
void BM_DistanceTransform(benchmark::State& state) {
  Space space;
  using Memory = typename Space::memory_space;
  auto const host = cells_image(state.range(0));
  ImageView<std::uint8_t, Memory> in("perf::in", host.width(), host.height());
  copy(Kokkos::DefaultHostExecutionSpace(), in, host);
  Kokkos::fence();
  ImageView<float, Memory> out("perf::out", in.width(), in.height());
  SpaceTimer<Space> timer(space);
  run_timed(state, 5.0 * double(in.pixel_count()), [&] {
    return timer.milliseconds([&] { distance_transform(space, ImageView<std::uint8_t const, Memory>(in), out); });
  });
}

using Host = Kokkos::DefaultHostExecutionSpace;

#ifdef KOKKOS_ENABLE_CUDA
BENCHMARK_TEMPLATE(BM_DistanceTransform, Kokkos::Cuda)->Arg(20000)->Arg(4096)->Apply(configure);
#endif
BENCHMARK_TEMPLATE(BM_DistanceTransform, Host)->Arg(4096)->Apply(configure);

#ifdef GIGASEG_BENCH_OPENCV
void BM_OpenCVDistanceTransformPrecise(benchmark::State& state) {
  auto host = cells_image(state.range(0));
  cv::Mat const in(int(host.height()), int(host.width()), CV_8UC1, host.data(), std::size_t(host.pitch_bytes()));
  cv::Mat out;
  run_timed(state, 5.0 * double(host.pixel_count()), [&] {
    auto const start = std::chrono::steady_clock::now();
    cv::distanceTransform(in, out, cv::DIST_L2, cv::DIST_MASK_PRECISE, CV_32F);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  });
}
BENCHMARK(BM_OpenCVDistanceTransformPrecise)->Arg(4096)->Apply(configure);
#endif

}  // namespace
}  // namespace gigaseg::perf
