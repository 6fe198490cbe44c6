// gigaseg demo [--size N] [--out DIR] [--seed S]: a synthetic tissue-like image (no input needed),
// the `cells` pipeline on it, the time of every stage, and files a person can look at:
// DIR/tissue.png (the input), DIR/labels.tif (the regions), DIR/overlay.png (boundaries in colour).
#include "gigaseg/algorithms/pipelines/cells.hpp"
#include "gigaseg/algorithms/pipelines/synthetic.hpp"
#include "apps/gigaseg/backend_dispatch.hpp"
#include "apps/gigaseg/label_output.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <system_error>

namespace gigaseg::cli {
namespace {

// The cells pipeline's peak memory a pixel on its backend, counted from the buffers alive at its
// watershed (algorithms/pipelines/cells.hpp and the stages it calls): input, median, mask,
// opening (1 byte each), distance (4), squared distance (8), markers (4), relief (2), the
// watershed's keys and parents (8 + 8), labels (4).
constexpr double cells_bytes_per_pixel = 42;

// Fails with a resource error (exit 4) naming --size before anything is generated when the
// pipeline cannot fit: a 100000 x 100000 demo needs about 390 GiB.
void check_demo_fits(Session& session, index_t side) {
  double const pixels = double(side) * double(side);
  double const gib = double(std::size_t(1) << 30);
  Backend const backend = session.context.resolve(side * side, OpFamily::pipeline);
  double const need = pixels * cells_bytes_per_pixel;
  auto fail = [&](std::string const& where, double available) {
    char text[256];
    std::snprintf(
        text, sizeof text,
        "a %lld x %lld demo needs about %.0f GiB (%.0f bytes a pixel) and %s has %.0f GiB; use a smaller --size",
        (long long)side, (long long)side, need / gib, cells_bytes_per_pixel, where.c_str(), available / gib);
    GIGASEG_THROW(ErrorKind::resource, "--size", text);
  };
#ifdef KOKKOS_ENABLE_CUDA
  if (backend == Backend::cuda) {
    int const ordinal = session.context.device().cuda_device();
    for (auto const& device : visible_devices())
      if (device.ordinal == ordinal && need > double(device.free_memory))
        fail("GPU " + std::to_string(ordinal) + " (" + device.name + ") free", double(device.free_memory));
    return;
  }
#endif
  (void)backend;
  double const host = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  if (host > 0 && need > host) fail("this host's memory", host);
}

}  // namespace

Command make_demo_command(CLI::App& parent) {
  struct Arguments {
    index_t size = 8192;
    std::string out = "gigaseg-demo";
    std::uint64_t seed = 1;
  };
  auto arguments = std::make_shared<Arguments>();
  Command command;
  command.name = "demo";
  command.app =
      parent.add_subcommand("demo", "synthetic tissue through the cells pipeline, with timings and an overlay");
  command.app->add_option("--size", arguments->size, "side of the square image, 64 .. 131072; default 8192")
      ->check(in_range(64, 131072));
  command.app->add_option("--out", arguments->out,
                          "folder for tissue.png, labels.tif, overlay.png; default gigaseg-demo");
  command.app->add_option("--seed", arguments->seed, "random seed of the image; default 1")->check(unsigned_64());
  command.run = [arguments](Session& session) {
    check_demo_fits(session, arguments->size);
    std::error_code error;
    std::filesystem::create_directories(arguments->out, error);
    GIGASEG_REQUIRE(!error && std::filesystem::is_directory(arguments->out), ErrorKind::input, arguments->out,
                    "cannot create the output folder" + (error ? ": " + error.message() : std::string()));
    std::string const dir = arguments->out + "/";
    SyntheticParams synthetic;
    synthetic.width = synthetic.height = arguments->size;
    synthetic.seed = arguments->seed;
    SyntheticTissue tissue;
    {
      StageTimer timer(session, "generate");
      tissue = synthetic_tissue(synthetic);
    }
    {
      StageTimer timer(session, "write_input");
      write_image(dir + "tissue.png", tissue.image);
    }
    CellsResult result;
    HostImage<Label> labels;
    {
      StageTimer timer(session, "compute");
      on_backend(session, tissue.image.pixel_count(), OpFamily::pipeline, [&](auto const& space) {
        using Memory = typename std::decay_t<decltype(space)>::memory_space;
        auto const start = std::chrono::steady_clock::now();
        auto const gray = upload(space, tissue.image);
        space.fence();
        session.timings_ms["upload"] =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        ImageView<Label, Memory> out("gigaseg::demo::labels", gray.width(), gray.height());
        result = segment_cells(space, ImageView<std::uint8_t const, Memory>(gray), out);
        auto const back = std::chrono::steady_clock::now();
        labels = download(space, out);
        session.timings_ms["download"] =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - back).count();
      });
    }
    for (auto const& [stage, ms] : result.timings_ms) session.timings_ms[stage] = ms;
    {
      StageTimer timer(session, "write");
      write_label_image(dir + "labels.tif", labels, result.components);
      write_overlay(dir + "overlay.png", AnyHostImage(tissue.image), labels);
    }
    auto& r = session.report;
    r["command"] = "demo";
    r["width"] = r["height"] = arguments->size;
    r["cells_drawn"] = tissue.cells.size();
    r["markers"] = result.markers;
    r["components"] = result.components;
    r["outputs"] = {dir + "tissue.png", dir + "labels.tif", dir + "overlay.png"};
    if (session.options.json || session.options.quiet) return;
    std::printf("gigaseg demo: %lld x %lld synthetic tissue, %zu cells drawn, %lld regions found (backend %s)\n",
                static_cast<long long>(arguments->size), static_cast<long long>(arguments->size), tissue.cells.size(),
                static_cast<long long>(result.components), r["backend"].get<std::string>().c_str());
    double pipeline = 0;
    for (char const* stage :
         {"median", "otsu", "threshold", "open", "edt", "markers", "relief", "watershed", "merge", "stats"}) {
      auto const it = result.timings_ms.find(stage);
      if (it == result.timings_ms.end()) continue;
      std::printf("  %-10s %10.2f ms\n", stage, it->second);
      pipeline += it->second;
    }
    std::printf("  %-10s %10.2f ms (device-resident stages; upload %.2f ms, download %.2f ms)\n", "pipeline", pipeline,
                session.timings_ms["upload"], session.timings_ms["download"]);
    std::printf("wrote %stissue.png, %slabels.tif, %soverlay.png\n", dir.c_str(), dir.c_str(), dir.c_str());
  };
  return command;
}

}  // namespace gigaseg::cli
