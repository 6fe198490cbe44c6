// Where the GPU starts to win, per operation family (launch and copy costs against host work): one
// representative operation of each family on square images of growing size, on the host backend
// (all its threads) and on CUDA with the costs the command line pays there: the upload from
// pageable host memory, the output's allocation, the download. The host side pays the output's
// allocation too. Median of N runs after two warm-ups, wall clock around fenced work.
//
//   point    threshold at 128          (8-bit in, 8-bit out)
//   filter   3x3 median                (8-bit in, 8-bit out)
//   label    8-connected labelling     (8-bit mask in, 32-bit labels out)
//   distance exact EDT                 (8-bit mask in, float out)
//   pipeline the `cells` pipeline      (8-bit tissue in, 32-bit labels out)
//
// Prints a table per family and the crossover: the smallest measured size from which the GPU is
// faster at every larger measured size. core/context.cpp's default_small_image_pixels holds
// these values (docs/performance.md, "small-image thresholds"). With GIGASEG_CROSSOVER_JSON=FILE
// the figures are also written to FILE.
#include "gigaseg/algorithms/distance.hpp"
#include "gigaseg/algorithms/filters.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/pipelines/cells.hpp"
#include "gigaseg/algorithms/pipelines/synthetic.hpp"
#include "gigaseg/algorithms/threshold.hpp"
#include "gigaseg/core/context.hpp"
#include "gigaseg/core/runtime.hpp"
#include "gigaseg/core/transfer.hpp"

#include <Kokkos_Core.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace gigaseg::perf {
namespace {

template <class Work>
double median_ms(int runs, Work&& work) {
  std::vector<double> times;
  for (int r = 0; r < runs + 2; ++r) {
    Kokkos::fence();
    auto const start = std::chrono::steady_clock::now();
    work();
    Kokkos::fence();
    double const ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (r >= 2) times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// The family's operation on `space`, from the host image `input` to a host result, paying what
// the command line pays on that backend.
template <class Space>
void run_family(OpFamily family, Space const& space, HostImage<std::uint8_t> const& input) {
  using Memory = typename Space::memory_space;
  constexpr bool on_host = std::is_same<Memory, Kokkos::HostSpace>::value;
  ImageView<std::uint8_t, Memory> in;
  if constexpr (on_host)
    in = input;
  else
    in = clone<Memory>(space, input, "perf::in");
  ImageView<std::uint8_t const, Memory> const src(in);
  auto back = [&](auto const& out) {
    if constexpr (!on_host) (void)clone<Kokkos::HostSpace>(space, out, "perf::out");
  };
  switch (family) {
    case OpFamily::point: {
      ImageView<std::uint8_t, Memory> out("perf::out", in.width(), in.height());
      threshold(space, src, out, 128.0);
      back(out);
      break;
    }
    case OpFamily::filter: {
      ImageView<std::uint8_t, Memory> out("perf::out", in.width(), in.height());
      median(space, src, out, 3);
      back(out);
      break;
    }
    case OpFamily::label: {
      ImageView<Label, Memory> out("perf::out", in.width(), in.height());
      label(space, src, out, LabelParams{});
      back(out);
      break;
    }
    case OpFamily::distance: {
      ImageView<float, Memory> out("perf::out", in.width(), in.height());
      distance_transform(space, src, out);
      back(out);
      break;
    }
    case OpFamily::pipeline: {
      ImageView<Label, Memory> out("perf::out", in.width(), in.height());
      segment_cells(space, src, out);
      back(out);
      break;
    }
  }
  space.fence();
}

int main_body() {
  std::vector<index_t> const sides = {128, 256, 362, 512, 724, 1024, 1448, 2048, 4096};
  nlohmann::json report = nlohmann::json::object();
  Kokkos::DefaultHostExecutionSpace const host;
#ifdef KOKKOS_ENABLE_CUDA
  Kokkos::Cuda const device;
#endif
  report["host_threads"] = host.concurrency();
  std::printf("host: %s, %d threads\n", Kokkos::DefaultHostExecutionSpace::name(), host.concurrency());
  // Inputs: the demo's synthetic tissue, and its foreground mask for label and distance.
  std::vector<HostImage<std::uint8_t>> tissue, mask;
  for (index_t side : sides) {
    SyntheticParams params;
    params.width = params.height = side;
    tissue.push_back(synthetic_tissue(params).image);
    HostImage<std::uint8_t> m("perf::mask", side, side);
    threshold(host, ImageView<std::uint8_t const, Kokkos::HostSpace>(tissue.back()), m, 100.0);
    host.fence();
    for (index_t x = 0; x < side; ++x) m(0, x) = 0;  // the EDT needs a background pixel
    mask.push_back(m);
  }
  for (int f = 0; f < op_family_count; ++f) {
    OpFamily const family = OpFamily(f);
    bool const masked = family == OpFamily::label || family == OpFamily::distance;
    std::printf("\n%s\n%10s %12s %12s %8s\n", to_string(family), "pixels", "host ms", "gpu ms", "gpu/host");
    nlohmann::json rows = nlohmann::json::array();
    index_t crossover = -1;
    for (std::size_t s = 0; s < sides.size(); ++s) {
      auto const& input = masked ? mask[s] : tissue[s];
      index_t const pixels = sides[s] * sides[s];
      int const runs = pixels <= (index_t(1) << 20) ? 15 : family == OpFamily::pipeline ? 5 : 9;
      double const host_ms = median_ms(runs, [&] { run_family(family, host, input); });
      double gpu_ms = -1;
#ifdef KOKKOS_ENABLE_CUDA
      gpu_ms = median_ms(runs, [&] { run_family(family, device, input); });
#endif
      std::printf("%10lld %12.4f %12.4f %8.3f\n", (long long)pixels, host_ms, gpu_ms, gpu_ms / host_ms);
      std::fflush(stdout);
      rows.push_back(
          {{"side", sides[s]}, {"pixels", pixels}, {"host_ms", host_ms}, {"gpu_ms", gpu_ms}, {"runs", runs}});
      bool const gpu_wins = gpu_ms >= 0 && gpu_ms < host_ms;
      if (!gpu_wins)
        crossover = -1;
      else if (crossover < 0)
        crossover = pixels;
    }
    std::printf("crossover (%s): %s\n", to_string(family),
                crossover < 0 ? "none in the measured range" : (std::to_string(crossover) + " pixels").c_str());
    report[to_string(family)] = {{"rows", rows}, {"crossover_pixels", crossover}};
  }
  if (char const* path = std::getenv("GIGASEG_CROSSOVER_JSON")) std::ofstream(path) << report.dump(2) << "\n";
  return 0;
}

}  // namespace
}  // namespace gigaseg::perf

int main() {
  gigaseg::Runtime runtime;
  return gigaseg::perf::main_body();
}
