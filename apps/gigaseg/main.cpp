// gigaseg: the command-line tool. Parses the global options and the command (CLI11), sets up
// Kokkos and the execution context, runs the command, and maps every failure to one line on stderr
// and the exit codes of docs/cli.md: 0 ok, 1 other, 2 usage, 3 input, 4 resource.
#include "apps/gigaseg/cli.hpp"
#include "apps/gigaseg/failure.hpp"
#include "apps/gigaseg/option_names.hpp"
#include "apps/gigaseg/ranks.hpp"
#include "apps/gigaseg/tiling.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/topology.hpp"
#include "gigaseg/engine/process_group.hpp"
#include "gigaseg/gigaseg_config.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>

namespace gigaseg::cli {

StageTimer::StageTimer(Session& session, std::string name)
    : session_(session), name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}

StageTimer::~StageTimer() {
  session_.context.fence();
  std::chrono::duration<double, std::milli> const elapsed = std::chrono::steady_clock::now() - start_;
  session_.timings_ms[name_] += elapsed.count();
}

AnyHostImage read_input(Session& session, std::string const& path) {
  if (session.read_ahead != nullptr && session.read_ahead->pending() && session.read_ahead->path() == path) {
    AnyHostImage image = session.read_ahead->take();
    session.timings_ms["read_ahead"] = session.read_ahead->read_ms();
    return image;
  }
  return read_image(path);
}

}  // namespace gigaseg::cli

namespace {

using namespace gigaseg;

// SIGINT and SIGTERM: the temporaries being written go, one line says why, and the exit code is
// the shell's for that signal (130, 143). Only async-signal-safe calls.
extern "C" void on_termination(int signal_number) {
  remove_temporary_outputs();
  char const* line = signal_number == SIGINT ? "gigaseg: interrupted (SIGINT); partial outputs removed\n"
                                             : "gigaseg: terminated (SIGTERM); partial outputs removed\n";
  ssize_t const written = ::write(STDERR_FILENO, line, std::strlen(line));
  (void)written;
  ::_exit(128 + signal_number);
}

void handle_termination() {
  struct sigaction action {};
  action.sa_handler = on_termination;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

// The one line of a failure, printed by rank 0 only when ranks share the run (every rank has the
// same error: engine/process_group.hpp, detail::agree).
bool speaks = true;
int fail(std::string const& message, int code) {
  if (speaks) std::cerr << "gigaseg: " << message << '\n';
  return code;
}

// The commands that split their work over ranks (tile by tile); the others run on one process.
bool distributed_command(std::string const& name) {
  for (char const* c : {"info", "histogram", "threshold", "median", "gaussian", "sobel", "morph", "convolve", "label",
                        "segment", "batch", "edt", "watershed"})
    if (name == c) return true;
  return false;
}

// --level and --mpp pick a level of a whole-slide image; given for another image (one level) they
// are a mistake. A batch applies them to the slides among its images.
void check_slide_options(CLI::App const& command, cli::GlobalOptions const& options) {
  if (options.level == 0 && options.mpp <= 0) return;
  std::string const input = cli::input_of(command);
  if (input.empty() || command.get_name() == "batch") return;
  GIGASEG_REQUIRE(detect_format(input) == ImageFormat::slide, ErrorKind::usage, options.mpp > 0 ? "--mpp" : "--level",
                  input + " is not a whole-slide image: it has one level");
}

// OME-TIFF outputs state the physical size of a pixel: the input's, where its file states one (a
// slide's resolution at the level read, a TIFF's resolution tags or OME-XML).
void state_input_resolution(CLI::App const& command) {
  bool ome = false;
  for (char const* name : {"OUT", "--overlay"})
    if (CLI::Option const* option = command.get_option_no_throw(name);
        option != nullptr && option->count() > 0 && is_ome_tiff_name(option->results().front()))
      ome = true;
  std::string const input = cli::input_of(command);
  struct stat st {};
  if (!ome || input.empty() || ::stat(input.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  ImageShape const shape = image_shape(input);
  WriteOptions options = default_write_options();
  options.microns_per_pixel_x = shape.microns_per_pixel_x;
  options.microns_per_pixel_y = shape.microns_per_pixel_y;
  set_default_write_options(options);
}

void add_global_options(CLI::App& app, cli::GlobalOptions& options) {
  app.add_option("--backend", options.backend,
                 "auto|cuda|openmp|serial (auto: CUDA for images above the small-image threshold)")
      ->check(CLI::IsMember({"auto", "cuda", "openmp", "serial"}));
  app.add_option("--device", options.device, "GPU ordinal")->check(cli::non_negative_number());
  app.add_option("--threads", options.threads, "host threads")->check(cli::positive_number());
  app.add_option("--small-image-pixels", options.small_image_pixels,
                 "N or family=N[,family=N...]: images below N pixels run on the host under --backend auto "
                 "(families: point, filter, label, distance, pipeline; gigaseg info shows the defaults)");
  app.add_option("--compression", options.compression,
                 "none|deflate|deflate-predictor|zstd: how TIFF outputs are compressed (default deflate, without a "
                 "predictor: what every reader reads; deflate-predictor and zstd (which has the predictor) are for "
                 "fewer readers, zstd the fastest: docs/formats.md)")
      ->check(CLI::IsMember({"none", "deflate", "deflate-predictor", "zstd"}));
  CLI::Option* level = app.add_option("--level", options.level,
                                      "the level of a whole-slide image to read (0, the default: full resolution; "
                                      "gigaseg info SLIDE lists them)")
                           ->check(cli::non_negative_number());
  CLI::Option* mpp = app.add_option("--mpp", options.mpp,
                                    "read the level of a whole-slide image nearest this resolution (microns per pixel)")
                         ->check(cli::positive_number());
  level->excludes(mpp);
  app.add_option("--tile-streams", options.tile_streams,
                 "tile by tile on a GPU: the CUDA streams the tiles take turns on, with pinned transfers, so that "
                 "one tile's download overlaps the next tile's work (default 2; 0: each tile's copies wait, "
                 "through pageable memory)")
      ->check(CLI::Range(0, 16));
  app.add_option("--window-halo", options.window_halo,
                 "the cells pipeline tile by tile: compute each tile in memory in a window this many pixels wider "
                 "around it, kept where its cells stay inside (default 128; 0: the rounds of tiles that exchange "
                 "their borders)")
      ->check(CLI::Range(index_t(0), index_t(1) << 20));
  app.add_flag("--json", options.json, "print one JSON object summarising the result");
  app.add_flag("--quiet", options.quiet, "print nothing but errors");
}

}  // namespace

int main(int argc, char** argv) {
  auto const started = std::chrono::steady_clock::now();
  cli::Ranks const ranks(&argc, &argv);
  speaks = ranks.rank() == 0;
  // Rank 0 prints the results; the others' standard output goes nowhere.
  if (!speaks && std::freopen("/dev/null", "w", stdout) == nullptr) return 1;
  CLI::App app{"gigaseg " GIGASEG_VERSION_STRING ": segmentation of very large images on GPUs and CPUs (Kokkos)"};
  app.set_version_flag("--version", "gigaseg " GIGASEG_VERSION_STRING);
  app.require_subcommand(1);
  app.fallthrough();  // global options are accepted after the command too
  cli::GlobalOptions options;
  add_global_options(app, options);
  std::vector<cli::Command> commands;
  commands.push_back(cli::make_info_command(app));
  commands.push_back(cli::make_convert_command(app));
  commands.push_back(cli::make_histogram_command(app));
  commands.push_back(cli::make_threshold_command(app));
  commands.push_back(cli::make_kmeans_command(app));
  commands.push_back(cli::make_median_command(app));
  commands.push_back(cli::make_gaussian_command(app));
  commands.push_back(cli::make_sobel_command(app));
  commands.push_back(cli::make_morph_command(app));
  commands.push_back(cli::make_convolve_command(app));
  commands.push_back(cli::make_edt_command(app));
  commands.push_back(cli::make_watershed_command(app));
  commands.push_back(cli::make_label_command(app));
  commands.push_back(cli::make_segment_command(app));
  commands.push_back(cli::make_demo_command(app));
  commands.push_back(cli::make_batch_command(app));

  try {
    app.parse(argc, argv);
  } catch (CLI::CallForHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForAllHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForVersion const& e) {
    return app.exit(e);
  } catch (CLI::ParseError const& e) {
    std::string message = e.what();
    for (auto& c : message)
      if (c == '\n') c = ' ';
    return fail(message + " (see gigaseg --help)", 2);
  }

  handle_termination();
  std::string input;  // the command's input, named in memory failures
  for (auto const& command : commands)
    if (command.app->parsed()) input = cli::input_of(*command.app);
  try {
    for (auto const& command : commands)
      GIGASEG_REQUIRE(
          !command.app->parsed() || ranks.size() == 1 || distributed_command(command.name), ErrorKind::usage,
          command.name,
          "runs on one process, not on " + std::to_string(ranks.size()) +
              " ranks (distributed: histogram, threshold, the filters, label, edt, watershed, segment --pipeline "
              "nuclei, cells or kmeans, batch)");
    // Ranks sharing a node take its GPUs in turn, unless --device names one (a launcher that gives
    // each rank its own GPU, as Slurm's --gpus-per-task does, leaves each one visible GPU), and
    // are bound to the cores near their GPU, shared evenly with the node's other ranks near the same
    // cores (all the node's cores without GPUs), unless the launcher bound them; their host threads
    // are those cores, unless --threads says.
    // One process reads its input while Kokkos starts (with CUDA, 0.2-0.4 s of the driver's start).
    std::unique_ptr<ReadAhead> read_ahead;
    std::size_t read_ahead_budget = 0;
    if (ranks.size() == 1)
      for (auto const& command : commands)
        if (command.app->parsed()) {
          set_io_threads(options.threads > 0 ? options.threads : 0);
          set_default_read_options(ReadOptions{options.level, options.mpp});
          // The Runtime sets OMP_PROC_BIND unless it is set (core/runtime.cpp); set before the read's
          // thread starts, since setenv races with getenv on other threads (the readers' libraries).
          ::setenv("OMP_PROC_BIND", "false", /*overwrite=*/0);
          read_ahead = cli::start_read_ahead(*command.app, read_ahead_budget);
        }
    int device = options.device, threads = options.threads;
    Placement placement;
    std::unique_ptr<Runtime> runtime;
    std::optional<ExecutionContext> context_slot;
    // Every rank sets up or none goes on: a rank that cannot (no device, out of memory) fails them
    // all with its error, instead of leaving the others waiting for it.
    detail::collectively(ranks.group(), [&] {
      if (ranks.node_size() > 1) {
        std::vector<DeviceInfo> const gpus = visible_devices();
        if (device < 0 && !gpus.empty()) device = int(std::size_t(ranks.node_rank()) % gpus.size());
        std::string near;
        int index = ranks.node_rank(), sharing = ranks.node_size();
        if (device >= 0 && std::size_t(device) < gpus.size()) {
          std::vector<std::string> bus_ids;
          for (auto const& gpu : gpus) bus_ids.push_back(gpu.pci_bus_id);
          HostTopology const topology = query_topology(bus_ids);
          near = topology.gpus[std::size_t(device)].near_cpus;
          index = sharing = 0;
          for (int r = 0; r < ranks.node_size(); ++r)
            if (topology.gpus[std::size_t(r) % gpus.size()].near_cpus == near) {
              index += r < ranks.node_rank() ? 1 : 0;
              ++sharing;
            }
        }
        placement = bind_to_share(near, index, std::max(1, sharing));
        if (threads < 0) threads = placement.cores;
      }
      runtime = std::make_unique<Runtime>(RuntimeOptions{threads, device, DevicePoolOptions{}});
      if (ranks.size() > 1 && device < 0 && !visible_devices().empty()) device = 0;  // Kokkos's default
      // The writers encode on as many threads as the computation runs on.
      set_io_threads(threads > 0 ? threads : 0);
      WriteOptions write_options;
      write_options.tiff_compression = options.compression == "none"   ? TiffCompression::none
                                       : options.compression == "zstd" ? TiffCompression::zstd
                                                                       : TiffCompression::deflate;
      // zstd keeps its predictor: every reader of Zstd TIFF (libtiff's, tifffile's imagecodecs) has both.
      write_options.tiff_predictor = options.compression == "deflate-predictor" || options.compression == "zstd";
      set_default_write_options(write_options);
      set_default_read_options(ReadOptions{options.level, options.mpp});
      ContextOptions context_options;
      context_options.backend = parse_backend(options.backend);
      if (app.get_option("--small-image-pixels")->count() > 0)  // given, even as an empty string
        parse_small_image_pixels(options.small_image_pixels, context_options);
      context_slot.emplace(context_options);
    });
    double const start_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    int code = 0;
    {
      ExecutionContext& context = *context_slot;
      cli::Session session{options,
                           context,
                           nlohmann::json::object(),
                           {},
                           ranks.group(),
                           placement.cpus,
                           device,
                           ranks.cuda_aware(),
                           read_ahead.get(),
                           read_ahead_budget};
      session.timings_ms["start"] = start_ms;
      for (auto& command : commands) {
        if (!command.app->parsed()) continue;
        cli::check_file_roles(*command.app);
        check_slide_options(*command.app, options);
        state_input_resolution(*command.app);
        cli::OutputsBefore const outputs(*command.app);
        std::exception_ptr failed;
        try {
          command.run(session);
        } catch (...) {
          failed = std::current_exception();
          outputs.remove_committed();  // a failed command leaves nothing
        }
        // --json prints the report also when the command failed after starting its work (a batch
        // with failed images), with the error line and the exit code.
        if (options.json && (!failed || session.report.contains("command"))) {
          if (failed) {
            cli::Failure const failure = cli::describe_failure(failed, input, options.device);
            session.report["error"] = failure.line();
            session.report["exit_code"] = failure.exit_code;
          }
          session.report["timings_ms"] = session.timings_ms;
          std::cout << session.report.dump(2) << '\n';
        }
        if (failed) std::rethrow_exception(failed);
      }
    }
    context_slot.reset();
    // What went to stdout (a table, the JSON report) must have arrived: a full disk or a closed
    // pipe behind stdout is a resource error, not a silent success.
    errno = 0;
    std::cout.flush();
    int seen = errno;  // the first failing write's reason
    bool const flushed = std::fflush(stdout) == 0 && std::ferror(stdout) == 0 && static_cast<bool>(std::cout);
    seen = seen != 0 ? seen : errno;
    bool const closed = std::fclose(stdout) == 0;
    seen = seen != 0 ? seen : errno;
    if (!flushed || !closed)
      GIGASEG_THROW(ErrorKind::resource, "standard output",
                    std::string("cannot write: ") + (seen != 0 ? std::strerror(seen) : "write error"));
    return code;
  } catch (...) {
    cli::Failure const failure = cli::describe_failure(std::current_exception(), input, options.device);
    return fail(failure.line(), failure.exit_code);
  }
}
