// Local filters against their peers, in one program run:
//  GPU (20000 x 20000 8-bit noise): median 3x3/5x5 (tuned and portable), Sobel magnitude, erosion
//  3x3 (tuned and portable) and 31x31 rectangles, Gaussian; cudaMemcpy device-to-device of the
//  same image as the bandwidth reference. NPP's median and CuPy's filters are measured by
//  perf/peers/npp_filters.cu and perf/peers/cupy_filters.py in the same device job.
//  Host (OpenMP, 4096 x 4096): the same operations against OpenCV's medianBlur, erode, Sobel +
//  magnitude and GaussianBlur when built with OpenCV (host builds).
//
//   bench_filters --benchmark_out=filters.json --benchmark_out_format=json
#include "gigaseg/algorithms/convolve.hpp"
#include "gigaseg/algorithms/filters.hpp"
#include "gigaseg/algorithms/morphology.hpp"
#include "gigaseg/core/transfer.hpp"
#include "perf/timer.hpp"

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <cstring>
#include <map>
#include <random>
#include <vector>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime_api.h>
#if GIGASEG_HAVE_CUDA_KERNELS
#include "gigaseg/backends/cuda/filters_cuda.hpp"
#endif
#endif
#ifdef GIGASEG_BENCH_OPENCV
#include <opencv2/imgproc.hpp>
#endif

namespace gigaseg::perf {
namespace {

HostImage<std::uint8_t> noise_image(index_t side) {
  HostImage<std::uint8_t> host("perf::host", side, side);
  std::mt19937_64 rng(side);
  for (index_t y = 0; y < side; ++y)
    for (index_t x = 0; x < side; x += 8) {
      auto const v = rng();
      std::memcpy(host.row(y) + x, &v, std::size_t(std::min<index_t>(8, side - x)));
    }
  return host;
}

template <class Memory>
ImageView<std::uint8_t, Memory> make_image(index_t side) {
  // Google Benchmark calls a benchmark once a repetition: the noise is drawn once a side (kept as
  // plain bytes: a Kokkos allocation must not outlive Kokkos::finalize).
  static std::map<index_t, std::vector<std::uint8_t>> drawn;
  if (drawn.find(side) == drawn.end()) {
    auto const fresh = noise_image(side);
    std::vector<std::uint8_t> bytes(std::size_t(side * side));
    for (index_t y = 0; y < side; ++y) std::memcpy(bytes.data() + y * side, fresh.row(y), std::size_t(side));
    drawn.emplace(side, std::move(bytes));
  }
  auto const host = HostImage<std::uint8_t>::wrap(drawn.at(side).data(), side, side, side);
  ImageView<std::uint8_t, Memory> image("perf::image", side, side);
  Kokkos::DefaultHostExecutionSpace host_space;
  copy(host_space, image, host);
  Kokkos::fence();
  return image;
}

template <class Space>
using In = ImageView<std::uint8_t const, typename Space::memory_space>;

// Arguments: side, window size, path (0 portable, 1 automatic).
template <class Space>
void BM_Median(benchmark::State& state) {
  Space space;
  auto in = make_image<typename Space::memory_space>(state.range(0));
  ImageView<std::uint8_t, typename Space::memory_space> out("perf::out", in.width(), in.height());
  FilterParams const params{state.range(2) ? Path::automatic : Path::portable};
  SpaceTimer<Space> timer(space);
  run_timed(state, 2.0 * double(in.pixel_count()), [&] {
    return timer.milliseconds([&] { median(space, In<Space>(in), out, int(state.range(1)), params); });
  });
}

// Arguments: side, path (0 portable, 1 automatic).
template <class Space>
void BM_SobelMagnitude(benchmark::State& state) {
  Space space;
  auto in = make_image<typename Space::memory_space>(state.range(0));
  ImageView<float, typename Space::memory_space> out("perf::out", in.width(), in.height());
  FilterParams const params{state.range(1) ? Path::automatic : Path::portable};
  SpaceTimer<Space> timer(space);
  run_timed(state, 5.0 * double(in.pixel_count()),
            [&] { return timer.milliseconds([&] { sobel_magnitude(space, In<Space>(in), out, params); }); });
}

// Arguments: side, rectangle size, path (0 portable, 1 automatic).
template <class Space>
void BM_Erode(benchmark::State& state) {
  Space space;
  auto in = make_image<typename Space::memory_space>(state.range(0));
  ImageView<std::uint8_t, typename Space::memory_space> out("perf::out", in.width(), in.height());
  MorphParams const params{MorphOp::erode, StructuringShape::rect, int(state.range(1)),
                           state.range(2) ? Path::automatic : Path::portable};
  SpaceTimer<Space> timer(space);
  run_timed(state, 2.0 * double(in.pixel_count()),
            [&] { return timer.milliseconds([&] { morphology(space, In<Space>(in), out, params); }); });
}

template <class Space>
void BM_Gaussian(benchmark::State& state) {
  Space space;
  auto in = make_image<typename Space::memory_space>(state.range(0));
  ImageView<std::uint8_t, typename Space::memory_space> out("perf::out", in.width(), in.height());
  SpaceTimer<Space> timer(space);
  run_timed(state, 2.0 * double(in.pixel_count()), [&] {
    return timer.milliseconds([&] {
      gaussian(space, In<Space>(in), out, GaussianParams{double(state.range(1)) / 10.0, 0});
    });
  });
}

// Arguments: side, kernel side, method (1 direct, 2 fft): the crossover between the two.
template <class Space>
void BM_Convolve(benchmark::State& state) {
  Space space;
  auto in = make_image<typename Space::memory_space>(state.range(0));
  ImageView<float, typename Space::memory_space> out("perf::out", in.width(), in.height());
  int const k = int(state.range(1));
  ConvolutionKernel const kernel{k, k, std::vector<float>(std::size_t(k) * std::size_t(k), 1.0f / float(k * k))};
  auto const method = state.range(2) == 1 ? ConvolveMethod::direct : ConvolveMethod::fft;
  SpaceTimer<Space> timer(space);
  run_timed(state, 5.0 * double(in.pixel_count()),
            [&] { return timer.milliseconds([&] { convolve(space, In<Space>(in), out, kernel, method); }); });
}

#ifdef KOKKOS_ENABLE_CUDA
void BM_CudaMemcpyDeviceToDevice(benchmark::State& state) {
  Kokkos::Cuda space;
  auto in = make_image<Kokkos::CudaSpace>(state.range(0));
  ImageView<std::uint8_t, Kokkos::CudaSpace> out("perf::out", in.width(), in.height());
  std::size_t const bytes = std::size_t(in.pitch_bytes() * in.height());
  SpaceTimer<Kokkos::Cuda> timer(space);
  run_timed(state, 2.0 * double(in.pixel_count()), [&] {
    return timer.milliseconds(
        [&] { cudaMemcpyAsync(out.data(), in.data(), bytes, cudaMemcpyDeviceToDevice, space.cuda_stream()); });
  });
}
BENCHMARK(BM_CudaMemcpyDeviceToDevice)->Arg(20000)->Apply(configure);
#if GIGASEG_HAVE_CUDA_KERNELS
// Arguments: side, rectangle size, passes (1 fused, 2 separable), chain (0: automatic), rows a
// tile (0: automatic): the wide rectangle kernels by name, for the choice between them and the
// fused kernel's shape.
void BM_ErodePasses(benchmark::State& state) {
  Kokkos::Cuda space;
  auto in = make_image<Kokkos::CudaSpace>(state.range(0));
  ImageView<std::uint8_t, Kokkos::CudaSpace> out("perf::out", in.width(), in.height());
  auto const passes = state.range(2) == 1 ? tuned::RectPasses::fused : tuned::RectPasses::separable;
  SpaceTimer<Kokkos::Cuda> timer(space);
  run_timed(state, 2.0 * double(in.pixel_count()), [&] {
    return timer.milliseconds([&] {
      if (!tuned::rect_min_max_u8(space, In<Kokkos::Cuda>(in), out, int(state.range(1)), true, passes,
                                  int(state.range(3)), int(state.range(4))))
        state.SkipWithError("size out of range for these passes");
    });
  });
}
BENCHMARK(BM_ErodePasses)
    ->ArgsProduct({{20000}, {31}, {1}, {0}, {0, 4, 16, 31}})
    ->Args({20000, 31, 1, 12, 0})
    ->ArgsProduct({{20000}, {15, 47, 63}, {1}, {0}, {0}})
    ->ArgsProduct({{20000}, {15, 31, 47, 63}, {2}, {0}, {0}})
    ->Apply(configure);
#endif
BENCHMARK_TEMPLATE(BM_Median, Kokkos::Cuda)
    ->Args({20000, 3, 1})
    ->Args({20000, 5, 1})
    ->Args({20000, 3, 0})
    ->Args({20000, 5, 0})
    ->Apply(configure);
BENCHMARK_TEMPLATE(BM_SobelMagnitude, Kokkos::Cuda)->Args({20000, 1})->Args({20000, 0})->Apply(configure);
BENCHMARK_TEMPLATE(BM_Erode, Kokkos::Cuda)
    ->Args({20000, 3, 1})
    ->Args({20000, 3, 0})
    ->Args({20000, 7, 1})
    ->Args({20000, 7, 0})
    ->Args({20000, 9, 1})
    ->Args({20000, 15, 1})
    ->Args({20000, 31, 1})
    ->Args({20000, 63, 1})
    ->Args({20000, 127, 1})
    ->Args({20000, 31, 0})
    ->Apply(configure);
BENCHMARK_TEMPLATE(BM_Gaussian, Kokkos::Cuda)->Args({20000, 20})->Apply(configure);
BENCHMARK_TEMPLATE(BM_Convolve, Kokkos::Cuda)
    ->ArgsProduct({{8192}, {5, 9, 15, 21, 25, 31, 41}, {1, 2}})
    ->Apply(configure);
#endif

using Host = Kokkos::DefaultHostExecutionSpace;
BENCHMARK_TEMPLATE(BM_Median, Host)
    ->Args({4096, 3, 1})
    ->Args({4096, 5, 1})
    ->Args({4096, 3, 0})
    ->Args({4096, 5, 0})
    ->Apply(configure);
BENCHMARK_TEMPLATE(BM_SobelMagnitude, Host)->Args({4096, 1})->Args({4096, 0})->Apply(configure);
BENCHMARK_TEMPLATE(BM_Erode, Host)
    ->Args({4096, 3, 1})
    ->Args({4096, 7, 1})
    ->Args({4096, 31, 1})
    ->Args({4096, 41, 1})
    ->Args({4096, 7, 0})
    ->Apply(configure);
BENCHMARK_TEMPLATE(BM_Gaussian, Host)->Args({4096, 20})->Apply(configure);
BENCHMARK_TEMPLATE(BM_Convolve, Host)->ArgsProduct({{2048}, {5, 9, 15, 21, 31}, {1, 2}})->Apply(configure);

#ifdef GIGASEG_BENCH_OPENCV
template <class Call>
void opencv_timed(benchmark::State& state, Call&& call) {
  run_timed(state, 2.0 * double(state.range(0) * state.range(0)), [&] {
    auto const start = std::chrono::steady_clock::now();
    call();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  });
}

void BM_OpenCVMedianBlur(benchmark::State& state) {
  auto const host = noise_image(state.range(0));
  cv::Mat const in(int(host.height()), int(host.width()), CV_8UC1, host.data(), std::size_t(host.pitch_bytes()));
  cv::Mat out;
  opencv_timed(state, [&] { cv::medianBlur(in, out, int(state.range(1))); });
}
void BM_OpenCVSobelMagnitude(benchmark::State& state) {
  auto const host = noise_image(state.range(0));
  cv::Mat const in(int(host.height()), int(host.width()), CV_8UC1, host.data(), std::size_t(host.pitch_bytes()));
  cv::Mat gx, gy, out;
  opencv_timed(state, [&] {
    cv::Sobel(in, gx, CV_32F, 1, 0, 3, 1, 0, cv::BORDER_REFLECT_101);
    cv::Sobel(in, gy, CV_32F, 0, 1, 3, 1, 0, cv::BORDER_REFLECT_101);
    cv::magnitude(gx, gy, out);
  });
}
void BM_OpenCVErode(benchmark::State& state) {
  auto const host = noise_image(state.range(0));
  cv::Mat const in(int(host.height()), int(host.width()), CV_8UC1, host.data(), std::size_t(host.pitch_bytes()));
  cv::Mat out;
  int const k = int(state.range(1));
  cv::Mat const element = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(k, k));
  opencv_timed(state, [&] { cv::erode(in, out, element); });
}
void BM_OpenCVGaussianBlur(benchmark::State& state) {
  auto const host = noise_image(state.range(0));
  cv::Mat const in(int(host.height()), int(host.width()), CV_8UC1, host.data(), std::size_t(host.pitch_bytes()));
  cv::Mat out;
  double const sigma = double(state.range(1)) / 10.0;
  opencv_timed(state, [&] { cv::GaussianBlur(in, out, cv::Size(0, 0), sigma, sigma, cv::BORDER_REFLECT_101); });
}
BENCHMARK(BM_OpenCVMedianBlur)->Args({4096, 3})->Args({4096, 5})->Apply(configure);
BENCHMARK(BM_OpenCVSobelMagnitude)->Arg(4096)->Apply(configure);
BENCHMARK(BM_OpenCVErode)->Args({4096, 3})->Args({4096, 7})->Args({4096, 31})->Args({4096, 41})->Apply(configure);
BENCHMARK(BM_OpenCVGaussianBlur)->Args({4096, 20})->Apply(configure);
#endif

}  // namespace
}  // namespace gigaseg::perf
