// Pixel and global operations against their peers, in one program run:
//  GPU (20000 x 20000 8-bit): threshold and 256-bin histogram (tuned and portable paths, on noise
//  and on a flat white image, the tissue-scan background) against cudaMemcpy device-to-device and
//  CUB DeviceHistogram::HistogramEven; Otsu end to end (histogram, counts to the host, T).
//  Host (OpenMP): threshold and histogram against std::memcpy of the same bytes, Otsu against
//  OpenCV's THRESH_OTSU when built with OpenCV (host builds).
//
//   bench_pixel_ops --benchmark_out=pixel_ops.json --benchmark_out_format=json
#include "gigaseg/algorithms/histogram.hpp"
#include "gigaseg/algorithms/kmeans.hpp"
#include "tests/stain_image.hpp"
#include "gigaseg/algorithms/otsu.hpp"
#include "gigaseg/algorithms/threshold.hpp"
#include "gigaseg/core/runtime.hpp"
#include "gigaseg/core/transfer.hpp"
#include "perf/timer.hpp"

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <vector>

#ifdef KOKKOS_ENABLE_CUDA
// BM_KMeansPass times the pass itself (an internal of the library), on CUDA only.
#include "gigaseg/algorithms/detail/kmeans_impl.hpp"
#include "gigaseg/backends/cuda/kmeans_cuda.hpp"

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime_api.h>
#endif
#ifdef GIGASEG_BENCH_OPENCV
#include <opencv2/imgproc.hpp>
#endif

namespace gigaseg::perf {
namespace {

// noise: uniform random bytes (the worst case for counting); white: one value (a scan's
// background); tissue: the BT.601 gray of the IHC-like test image (tests/stain_image.hpp).
enum Content { noise = 0, white = 1, tissue = 2 };

template <class Memory>
ImageView<std::uint8_t, Memory> make_image(index_t side, Content content) {
  HostImage<std::uint8_t> host("perf::host", side, side);
  std::mt19937_64 rng(side);
  for (index_t y = 0; y < side; ++y) {
    std::uint8_t* row = host.row(y);
    if (content == tissue) continue;  // filled below
    if (content == white) {
      std::memset(row, 255, std::size_t(side));
    } else {
      for (index_t x = 0; x < side; x += 8) {
        auto const v = rng();
        std::memcpy(row + x, &v, std::size_t(std::min<index_t>(8, side - x)));
      }
    }
  }
  if (content == tissue) {
    auto const rgb = test::stain_image(side, side, 3);
    for (index_t y = 0; y < side; ++y)
      for (index_t x = 0; x < side; ++x) host(y, x) = detail::luma_bt601(rgb(y, x));
  }
  ImageView<std::uint8_t, Memory> image("perf::image", side, side);
  Kokkos::DefaultHostExecutionSpace host_space;
  copy(host_space, image, host);
  Kokkos::fence();
  return image;
}

template <class Space>
void BM_Threshold(benchmark::State& state) {
  Space space;
  auto in = make_image<typename Space::memory_space>(state.range(0), noise);
  ImageView<std::uint8_t, typename Space::memory_space> out("perf::out", in.width(), in.height());
  SpaceTimer<Space> timer(space);
  run_timed(state, 2.0 * double(in.pixel_count()), [&] {
    return timer.milliseconds(
        [&] { threshold(space, ImageView<std::uint8_t const, typename Space::memory_space>(in), out, 128.0); });
  });
}

template <class Space>
void BM_Histogram(benchmark::State& state) {
  Space space;
  auto in = make_image<typename Space::memory_space>(state.range(0), Content(state.range(1)));
  Counts<typename Space::memory_space> counts("perf::counts", 256);
  HistogramParams const params{state.range(2) ? Path::tuned : Path::portable};
  SpaceTimer<Space> timer(space);
  run_timed(state, double(in.pixel_count()), [&] {
    return timer.milliseconds(
        [&] { histogram(space, ImageView<std::uint8_t const, typename Space::memory_space>(in), counts, params); });
  });
  char const* const names[] = {"noise ", "white ", "tissue "};
  state.SetLabel(std::string(names[state.range(1)]) + (state.range(2) ? "tuned" : "portable"));
}

template <class Space>
void BM_Otsu(benchmark::State& state) {
  Space space;
  auto in = make_image<typename Space::memory_space>(state.range(0), noise);
  SpaceTimer<Space> timer(space);
  int t = 0;
  run_timed(state, double(in.pixel_count()), [&] {
    return timer.milliseconds(
        [&] { t = otsu_threshold(space, ImageView<std::uint8_t const, typename Space::memory_space>(in)); });
  });
  benchmark::DoNotOptimize(t);
}

// K-means, K=8, exactly range(1) update steps (tolerance -1 never stops early) plus the final
// assignment, on an IHC-like 2048 x 2048 RGB image; k-means++ initialisation included. range(2):
// 1 tuned pass, 0 portable pass.
template <class Space>
void BM_KMeans(benchmark::State& state) {
  Space space;
  using Memory = typename Space::memory_space;
  auto const host = test::stain_image(state.range(0), state.range(0), 11);
  ImageView<Rgb8, Memory> image("perf::rgb", host.width(), host.height());
  copy(Kokkos::DefaultHostExecutionSpace(), image, host);
  Kokkos::fence();
  ImageView<std::uint8_t, Memory> labels("perf::labels", host.width(), host.height());
  KMeansParams params;
  params.k = 8;
  params.iterations = int(state.range(1));
  params.tolerance = -1;
  params.path = state.range(2) ? Path::tuned : Path::portable;
  state.SetLabel(to_string(params.path));
  SpaceTimer<Space> timer(space);
  run_timed(state, 3.0 * double(host.pixel_count()), [&] {
    return timer.milliseconds([&] { kmeans(space, ImageView<Rgb8 const, Memory>(image), labels, params); });
  });
}

#ifdef KOKKOS_ENABLE_CUDA
// One assignment + accumulation pass alone (K=8, RGB), range(1): 0 portable, 1 tuned. Separates the
// kernel from the initialisation and the update steps that BM_KMeans includes.
void BM_KMeansPass(benchmark::State& state) {
  Kokkos::Cuda space;
  using Memory = Kokkos::CudaSpace;
  auto const host = test::stain_image(state.range(0), state.range(0), 11);
  ImageView<Rgb8, Memory> image("perf::rgb", host.width(), host.height());
  copy(Kokkos::DefaultHostExecutionSpace(), image, host);
  Kokkos::fence();
  ImageView<std::uint8_t, Memory> labels("perf::labels", host.width(), host.height());
  int const k = 8;
  detail::KMeansState const layout{k};
  Kokkos::View<int*, Memory> centres("perf::centres", 4 * k);
  Kokkos::View<std::uint64_t*, Memory> kmeans_state("perf::state", std::size_t(layout.size()));
  Kokkos::parallel_for(
      "perf::centres", Kokkos::RangePolicy<Kokkos::Cuda>(space, 0, k), KOKKOS_LAMBDA(int c) {
        std::uint64_t norm = 0;
        for (int i = 0; i < 3; ++i) {
          centres(3 * c + i) = 256 * ((c * 3 + i) * 37 % 255);
          norm += std::uint64_t(centres(3 * c + i)) * std::uint64_t(centres(3 * c + i));
        }
        centres(3 * k + c) = c;
        kmeans_state(layout.norms() + c) = norm;
      });
  detail::FeatureMap const features{FeatureSpace::rgb, nullptr, detail::lab_matrix()};
  detail::KMeansPassArgs<Memory> const args{image, labels, features, centres.data(), kmeans_state.data(), k, false};
  Path const path = state.range(1) ? Path::tuned : Path::portable;
  state.SetLabel(to_string(path));
  SpaceTimer<Kokkos::Cuda> timer(space);
  run_timed(state, 3.0 * double(host.pixel_count()),
            [&] { return timer.milliseconds([&] { detail::kmeans_pass(space, args, nullptr, path); }); });
}
BENCHMARK(BM_KMeansPass)->Args({2048, 0})->Args({2048, 1})->Apply(configure);
BENCHMARK_TEMPLATE(BM_KMeans, Kokkos::Cuda)
    ->Args({2048, 10, 1})
    ->Args({2048, 1, 1})
    ->Args({2048, 10, 0})
    ->Apply(configure);

void BM_CudaMemcpyDeviceToDevice(benchmark::State& state) {
  Kokkos::Cuda space;
  auto in = make_image<Kokkos::CudaSpace>(state.range(0), noise);
  ImageView<std::uint8_t, Kokkos::CudaSpace> out("perf::out", in.width(), in.height());
  std::size_t const bytes = std::size_t(in.pitch_bytes() * in.height());
  SpaceTimer<Kokkos::Cuda> timer(space);
  run_timed(state, 2.0 * double(in.pixel_count()), [&] {
    return timer.milliseconds(
        [&] { cudaMemcpyAsync(out.data(), in.data(), bytes, cudaMemcpyDeviceToDevice, space.cuda_stream()); });
  });
}

void BM_CubHistogramEven(benchmark::State& state) {
  Kokkos::Cuda space;
  auto in = make_image<Kokkos::CudaSpace>(state.range(0), Content(state.range(1)));
  Kokkos::View<int*, Kokkos::CudaSpace> counts("perf::cub_counts", 256);
  std::size_t temp_bytes = 0;
  auto call = [&](void* temp) {
    return cub::DeviceHistogram::HistogramEven(temp, temp_bytes, in.data(), counts.data(), 257, 0, 256, int(in.width()),
                                               int(in.height()), std::size_t(in.pitch_bytes()), space.cuda_stream());
  };
  call(nullptr);
  Kokkos::View<unsigned char*, Kokkos::CudaSpace> temp("perf::cub_temp", temp_bytes);
  SpaceTimer<Kokkos::Cuda> timer(space);
  run_timed(state, double(in.pixel_count()), [&] { return timer.milliseconds([&] { call(temp.data()); }); });
  state.SetLabel(state.range(1) ? "white" : "noise");
}

BENCHMARK(BM_CudaMemcpyDeviceToDevice)->Arg(20000)->Apply(configure);
BENCHMARK_TEMPLATE(BM_Threshold, Kokkos::Cuda)->Arg(20000)->Apply(configure);
BENCHMARK_TEMPLATE(BM_Histogram, Kokkos::Cuda)
    ->Args({20000, noise, 1})
    ->Args({20000, white, 1})
    ->Args({20000, noise, 0})
    ->Args({20000, white, 0})
    ->Apply(configure);
BENCHMARK(BM_CubHistogramEven)->Args({20000, noise})->Args({20000, white})->Apply(configure);
BENCHMARK_TEMPLATE(BM_Otsu, Kokkos::Cuda)->Arg(20000)->Apply(configure);
#endif

void BM_HostMemcpy(benchmark::State& state) {
  auto in = make_image<Kokkos::HostSpace>(state.range(0), noise);
  ImageView<std::uint8_t, Kokkos::HostSpace> out("perf::out", in.width(), in.height());
  std::size_t const bytes = std::size_t(in.pitch_bytes() * in.height());
  Kokkos::DefaultHostExecutionSpace space;
  SpaceTimer<Kokkos::DefaultHostExecutionSpace> timer(space);
  // The peer for host bandwidth: one std::memcpy of the whole buffer per thread's share.
  int const threads = space.concurrency();
  run_timed(state, 2.0 * double(in.pixel_count()), [&] {
    return timer.milliseconds([&] {
      Kokkos::parallel_for(
          "perf::memcpy", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(space, 0, threads), [&](int t) {
            std::size_t const begin = bytes * std::size_t(t) / threads, end = bytes * std::size_t(t + 1) / threads;
            std::memcpy(out.storage().data() + begin, in.storage().data() + begin, end - begin);
          });
    });
  });
}

BENCHMARK(BM_HostMemcpy)->Arg(8192)->Apply(configure);
BENCHMARK_TEMPLATE(BM_Threshold, Kokkos::DefaultHostExecutionSpace)->Arg(8192)->Apply(configure);
BENCHMARK_TEMPLATE(BM_Histogram, Kokkos::DefaultHostExecutionSpace)
    ->Args({8192, noise, 1})
    ->Args({8192, white, 1})
    ->Args({8192, tissue, 1})
    ->Args({8192, noise, 0})
    ->Apply(configure);
BENCHMARK_TEMPLATE(BM_Otsu, Kokkos::DefaultHostExecutionSpace)->Arg(4096)->Apply(configure);
BENCHMARK_TEMPLATE(BM_KMeans, Kokkos::DefaultHostExecutionSpace)
    ->Args({2048, 10, 1})
    ->Iterations(1)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

#ifdef GIGASEG_BENCH_OPENCV
void BM_OpenCVOtsu(benchmark::State& state) {
  auto in = make_image<Kokkos::HostSpace>(state.range(0), noise);
  cv::Mat mat(int(in.height()), int(in.width()), CV_8UC1, in.data(), std::size_t(in.pitch_bytes())), out;
  Kokkos::DefaultHostExecutionSpace space;
  SpaceTimer<Kokkos::DefaultHostExecutionSpace> timer(space);
  run_timed(state, double(in.pixel_count()), [&] {
    return timer.milliseconds([&] { cv::threshold(mat, out, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU); });
  });
}
BENCHMARK(BM_OpenCVOtsu)->Arg(4096)->Apply(configure);

// OpenCV kmeans on the same image: K=8, 10 iterations, one attempt, k-means++ (float samples).
void BM_OpenCVKMeans(benchmark::State& state) {
  auto const host = test::stain_image(state.range(0), state.range(0), 11);
  cv::Mat samples(int(host.pixel_count()), 3, CV_32F), labels, centres;
  for (index_t y = 0; y < host.height(); ++y)
    for (index_t x = 0; x < host.width(); ++x) {
      float* row = samples.ptr<float>(int(y * host.width() + x));
      row[0] = host(y, x).r, row[1] = host(y, x).g, row[2] = host(y, x).b;
    }
  Kokkos::DefaultHostExecutionSpace space;
  SpaceTimer<Kokkos::DefaultHostExecutionSpace> timer(space);
  run_timed(state, 3.0 * double(host.pixel_count()), [&] {
    return timer.milliseconds([&] {
      cv::kmeans(samples, 8, labels, cv::TermCriteria(cv::TermCriteria::COUNT, 10, 0), 1, cv::KMEANS_PP_CENTERS,
                 centres);
    });
  });
}
BENCHMARK(BM_OpenCVKMeans)
    ->Arg(2048)
    ->Iterations(1)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
#endif

}  // namespace
}  // namespace gigaseg::perf
