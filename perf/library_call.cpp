// The library's own time for the operations the command line times as `compute`, on the host
// backend, in one process: perf/cli_compute.py sets them beside the command's `compute` stage.
//
//   library_call OPERATION IMAGE RUNS [THREADS]
//
// OPERATION: threshold (Otsu, then the mask), label (8-connected), median (5 x 5), edt (exact
// Euclidean distance transform), nuclei (segment_image with the nuclei pipeline). IMAGE is read
// and made 8-bit gray once, before the runs, as the command does before its compute stage. The
// first run allocates its output, as the command does; the others reuse it (the nuclei pipeline
// allocates its own every run). Prints one JSON line: the seconds of each run.
#include "gigaseg/algorithms/distance.hpp"
#include "gigaseg/algorithms/filters.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/otsu.hpp"
#include "gigaseg/algorithms/threshold.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/runtime.hpp"
#include "gigaseg/engine/on_backend.hpp"
#include "gigaseg/engine/segment.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Runs `call(fresh)` `runs` times: fresh is true on the first run only.
template <class Call>
std::vector<double> time_runs(int runs, Call&& call) {
  std::vector<double> seconds;
  for (int r = 0; r < runs; ++r) {
    auto const start = Clock::now();
    call(r == 0);
    seconds.push_back(since(start));
  }
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: library_call threshold|label|median|edt|nuclei IMAGE RUNS [THREADS]\n");
    return 2;
  }
  using namespace gigaseg;
  std::string const operation = argv[1], path = argv[2];
  int const runs = std::atoi(argv[3]);
  RuntimeOptions options;
  if (argc > 4) options.threads = std::atoi(argv[4]);
  Runtime runtime(options);
  {
    using Space = Kokkos::DefaultHostExecutionSpace;
    using Memory = Space::memory_space;
    Space const space;
    AnyHostImage const image = read_image(path);
    ImageView<std::uint8_t, Memory> const gray8 = gray8_on(space, image, path);
    ImageView<std::uint8_t const, Memory> const in(gray8);
    index_t const w = in.width(), h = in.height();
    std::vector<double> seconds;
    if (operation == "threshold") {
      ImageView<std::uint8_t, Memory> out;
      seconds = time_runs(runs, [&](bool fresh) {
        if (fresh) out = ImageView<std::uint8_t, Memory>("mask", w, h);
        threshold(space, in, out, double(otsu_threshold(space, in, HistogramParams{})));
        space.fence();
      });
    } else if (operation == "label") {
      ImageView<Label, Memory> out;
      seconds = time_runs(runs, [&](bool fresh) {
        if (fresh) out = ImageView<Label, Memory>("labels", w, h);
        (void)label(space, in, out, LabelParams{});
        space.fence();
      });
    } else if (operation == "median") {
      ImageView<std::uint8_t, Memory> out;
      seconds = time_runs(runs, [&](bool fresh) {
        if (fresh) out = ImageView<std::uint8_t, Memory>("median", w, h);
        median(space, in, out, 5);
        space.fence();
      });
    } else if (operation == "edt") {
      ImageView<float, Memory> out;
      seconds = time_runs(runs, [&](bool fresh) {
        if (fresh) out = ImageView<float, Memory>("distance", w, h);
        distance_transform(space, in, out);
        space.fence();
      });
    } else if (operation == "nuclei") {
      ContextOptions context_options;
      context_options.backend = Backend::openmp;
      ExecutionContext const context(context_options);
      AnyHostImage const gray = HostImage<std::uint8_t>(gray8);
      seconds = time_runs(runs, [&](bool) { (void)segment_image(context, NucleiParams{}, gray, path); });
    } else {
      std::fprintf(stderr, "library_call: unknown operation '%s'\n", operation.c_str());
      return 2;
    }
    std::printf("{\"operation\": \"%s\", \"width\": %lld, \"height\": %lld, \"seconds\": [", operation.c_str(),
                static_cast<long long>(w), static_cast<long long>(h));
    for (std::size_t r = 0; r < seconds.size(); ++r) std::printf("%s%.6f", r == 0 ? "" : ", ", seconds[r]);
    std::printf("]}\n");
  }
  return 0;
}
