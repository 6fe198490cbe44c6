// Distance transform and watershed on a synthetic cell image (discs of radius 6..30
// covering about half the image, foreground 255 on 0):
//  - exact EDT: GPU at 20000^2 and 4096^2, host (OpenMP) at 4096^2 against OpenCV's precise
//    distanceTransform (DIST_L2, DIST_MASK_PRECISE) in the same run (host builds); NPP's and
//    CuPy's EDT are measured by perf/peers in the same device job;
//  - watershed of the relief 255 - min(255, 8 distance) from one marker per disc centre inside the
//    discs, against cv::watershed on the same relief (as BGR) and markers;
//  - the `cells` pipeline (algorithms/pipelines/cells.hpp) end to end on a 4096^2 synthetic tissue
//    image (pipelines/synthetic.hpp), device-resident, with each stage's median as a counter;
//    on the host against the equivalent OpenCV calls (medianBlur, Otsu threshold, opening, precise
//    distance transform, peaks of the distance as markers, cv::watershed).
// With GIGASEG_PEER_INPUTS=DIR the EDT benchmark writes its input masks to DIR/cells_<side>.u8
// (raw rows), which perf/peers/npp_distance.cu and cupy_distance.py then time on the same data.
#include "gigaseg/algorithms/distance.hpp"
#include "gigaseg/algorithms/pipelines/cells.hpp"
#include "gigaseg/algorithms/pipelines/synthetic.hpp"
#include "gigaseg/algorithms/watershed.hpp"
#include "gigaseg/core/transfer.hpp"
#include "perf/timer.hpp"

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

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

void write_peer_input(HostImage<std::uint8_t> const& image) {
  char const* dir = std::getenv("GIGASEG_PEER_INPUTS");
  if (!dir) return;
  std::string const path = std::string(dir) + "/cells_" + std::to_string(image.width()) + ".u8";
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    for (index_t y = 0; y < image.height(); ++y) std::fwrite(image.row(y), 1, std::size_t(image.width()), f);
    std::fclose(f);
  }
}

template <class Space>
void BM_DistanceTransform(benchmark::State& state) {
  Space space;
  using Memory = typename Space::memory_space;
  auto const host = cells_image(state.range(0));
  write_peer_input(host);
  Path const path = state.range(1) ? Path::portable : Path::automatic;
  ImageView<std::uint8_t, Memory> in("perf::in", host.width(), host.height());
  copy(Kokkos::DefaultHostExecutionSpace(), in, host);
  Kokkos::fence();
  ImageView<float, Memory> out("perf::out", in.width(), in.height());
  SpaceTimer<Space> timer(space);
  run_timed(state, 5.0 * double(in.pixel_count()), [&] {
    return timer.milliseconds(
        [&] { distance_transform(space, ImageView<std::uint8_t const, Memory>(in), out, {}, DistanceParams{path}); });
  });
}

// The synthetic tissue image of `gigaseg demo`, seed 1.
HostImage<std::uint8_t> tissue_image(index_t side) {
  SyntheticParams params;
  params.width = params.height = side;
  return synthetic_tissue(params).image;
}

template <class Space>
void BM_CellsPipeline(benchmark::State& state) {
  Space space;
  using Memory = typename Space::memory_space;
  auto const host = tissue_image(state.range(0));
  auto const gray = clone<Memory>(space, host, "perf::tissue");
  ImageView<Label, Memory> labels("perf::labels", gray.width(), gray.height());
  SpaceTimer<Space> timer(space);
  CellsResult result;
  run_timed(state, double(gray.pixel_count()) * 5.0, [&] {
    return timer.milliseconds(
        [&] { result = segment_cells(space, ImageView<std::uint8_t const, Memory>(gray), labels); });
  });
  for (auto const& [stage, ms] : result.timings_ms) state.counters[stage + "_ms"] = ms;
  state.counters["regions"] = double(result.components);
}

using Host = Kokkos::DefaultHostExecutionSpace;

// Args: side, portable (1) or automatic (0) path.
#ifdef KOKKOS_ENABLE_CUDA
BENCHMARK_TEMPLATE(BM_DistanceTransform, Kokkos::Cuda)
    ->Args({20000, 0})
    ->Args({4096, 0})
    ->Args({4096, 1})
    ->Apply(configure);
BENCHMARK_TEMPLATE(BM_Watershed, Kokkos::Cuda)->Arg(4096)->Apply(configure);
BENCHMARK_TEMPLATE(BM_CellsPipeline, Kokkos::Cuda)->Arg(4096)->Apply(configure);
#endif
BENCHMARK_TEMPLATE(BM_DistanceTransform, Host)->Args({4096, 0})->Apply(configure);
BENCHMARK_TEMPLATE(BM_Watershed, Host)->Arg(4096)->Apply(configure);
BENCHMARK_TEMPLATE(BM_CellsPipeline, Host)->Arg(4096)->Apply(configure);

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
  cv::Mat const relief(int(c.relief.height()), int(c.relief.width()), CV_8UC1, c.relief.data(),
                       std::size_t(c.relief.pitch_bytes()));
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

// The cells pipeline with OpenCV's calls, as its watershed tutorial composes them: medianBlur,
// Otsu (cells dark: THRESH_BINARY_INV), opening, precise distance transform, markers = components
// of the distance's local maxima (equal to its 3x3 dilation, > 0), sure background = the opened
// mask dilated 3 times, cv::watershed on the image as BGR.
void BM_OpenCVCellsPipeline(benchmark::State& state) {
  auto host = tissue_image(state.range(0));
  cv::Mat const gray(int(host.height()), int(host.width()), CV_8UC1, host.data(), std::size_t(host.pitch_bytes()));
  cv::Mat const kernel = cv::getStructuringElement(cv::MORPH_RECT, {3, 3});
  int regions = 0;
  run_timed(state, double(host.pixel_count()) * 5.0, [&] {
    auto const start = std::chrono::steady_clock::now();
    cv::Mat smooth, mask, opened, distance, dilated, peaks, markers, background, bgr;
    cv::medianBlur(gray, smooth, 3);
    cv::threshold(smooth, mask, 0, 255, cv::THRESH_BINARY_INV | cv::THRESH_OTSU);
    cv::morphologyEx(mask, opened, cv::MORPH_OPEN, kernel);
    cv::distanceTransform(opened, distance, cv::DIST_L2, cv::DIST_MASK_PRECISE, CV_32F);
    cv::dilate(distance, dilated, kernel);
    cv::compare(distance, dilated, peaks, cv::CMP_GE);
    peaks.setTo(0, opened == 0);
    regions = cv::connectedComponents(peaks, markers, 8, CV_32S);
    cv::dilate(opened, background, kernel, {-1, -1}, 3);
    markers += 1;  // 1 = sure background
    markers.setTo(0, background != 0 & peaks == 0);
    cv::cvtColor(gray, bgr, cv::COLOR_GRAY2BGR);
    cv::watershed(bgr, markers);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  });
  state.counters["regions"] = double(regions - 1);
}
BENCHMARK(BM_OpenCVCellsPipeline)->Arg(4096)->Apply(configure);
#endif

}  // namespace
}  // namespace gigaseg::perf
