// Distance transform and watershed (issue 6) on a synthetic cell image (discs of radius 6..30
// covering about half the image, foreground 255 on 0):
//  - exact EDT: GPU at 20000^2 and 4096^2, host (OpenMP) at 4096^2 against OpenCV's precise
//    distanceTransform (DIST_L2, DIST_MASK_PRECISE) in the same run (host builds); NPP's and
//    CuPy's EDT are measured by perf/peers in the same device job;
//  - watershed of the relief 255 - min(255, 8 distance) from one marker per disc centre inside the
//    discs, against cv::watershed on the same relief (as BGR) and markers.
#include "algorithms/distance.hpp"
#include "algorithms/watershed.hpp"
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

struct CellsCase {
  HostImage<std::uint8_t> mask, relief;
  HostImage<Label> markers;
};

// The cells image, its watershed relief and one marker per disc centre (inside the discs).
CellsCase cells_case(index_t side) {
  CellsCase c{cells_image(side), {}, {}};
  Kokkos::DefaultHostExecutionSpace host;
  ImageView<float, Kokkos::HostSpace> distance("perf::distance", side, side);
  distance_transform(host, ImageView<std::uint8_t const, Kokkos::HostSpace>(c.mask), distance);
  c.relief = HostImage<std::uint8_t>("perf::relief", side, side);
  c.markers = HostImage<Label>("perf::markers", side, side);
  for (index_t y = 0; y < side; ++y)
    for (index_t x = 0; x < side; ++x) {
      c.relief(y, x) = std::uint8_t(255 - std::min(255.0f, 8.0f * distance(y, x)));
      c.markers(y, x) = 0;
    }
  std::mt19937_64 rng(std::uint64_t(side) * 7 + 1);  // the centres cells_image drew
  std::uniform_int_distribution<index_t> position(0, side - 1);
  std::uniform_int_distribution<int> radius(6, 30);
  double covered = 0;
  Label next = 1;
  while (covered < 0.5 * double(side) * double(side)) {
    index_t const cy = position(rng), cx = position(rng);
    int const r = radius(rng);
    c.markers(cy, cx) = next++;
    covered += 3.14159 * r * r;
  }
  return c;
}

template <class Space>
void BM_Watershed(benchmark::State& state) {
  Space space;
  using Memory = typename Space::memory_space;
  auto const c = cells_case(state.range(0));
  auto const relief = clone<Memory>(space, c.relief, "perf::relief");
  auto const markers = clone<Memory>(space, c.markers, "perf::markers");
  auto const mask = clone<Memory>(space, c.mask, "perf::mask");
  ImageView<Label, Memory> out("perf::out", relief.width(), relief.height());
  SpaceTimer<Space> timer(space);
  run_timed(state, 10.0 * double(relief.pixel_count()), [&] {
    return timer.milliseconds([&] {
      watershed(space, ImageView<std::uint8_t const, Memory>(relief), ImageView<Label const, Memory>(markers), out,
                WatershedParams{8}, ImageView<std::uint8_t const, Memory>(mask));
    });
  });
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
BENCHMARK_TEMPLATE(BM_Watershed, Kokkos::Cuda)->Arg(4096)->Apply(configure);
#endif
BENCHMARK_TEMPLATE(BM_DistanceTransform, Host)->Arg(4096)->Apply(configure);
BENCHMARK_TEMPLATE(BM_Watershed, Host)->Arg(4096)->Apply(configure);

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

void BM_OpenCVWatershed(benchmark::State& state) {
  auto c = cells_case(state.range(0));
  cv::Mat const relief(int(c.relief.height()), int(c.relief.width()), CV_8UC1, c.relief.data(), std::size_t(c.relief.pitch_bytes()));
  cv::Mat bgr;
  cv::cvtColor(relief, bgr, cv::COLOR_GRAY2BGR);
  cv::Mat markers0(relief.rows, relief.cols, CV_32SC1);
  for (int y = 0; y < relief.rows; ++y)
    for (int x = 0; x < relief.cols; ++x) markers0.at<int>(y, x) = int(c.markers(y, x));
  run_timed(state, 10.0 * double(c.relief.pixel_count()), [&] {
    cv::Mat markers = markers0.clone();  // cv::watershed writes into its markers
    auto const start = std::chrono::steady_clock::now();
    cv::watershed(bgr, markers);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  });
}
BENCHMARK(BM_OpenCVWatershed)->Arg(4096)->Apply(configure);
#endif

}  // namespace
}  // namespace gigaseg::perf
