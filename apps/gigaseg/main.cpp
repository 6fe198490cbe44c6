// gigaseg: the command-line tool. Parses the global options and the command (CLI11), sets up
// Kokkos and the execution context, runs the command, and maps every failure to one line on stderr
// and the exit codes of docs/cli.md: 0 ok, 1 other, 2 usage, 3 input, 4 resource.
#include "apps/gigaseg/cli.hpp"
#include "apps/gigaseg/option_names.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/gigaseg_config.hpp"

#include <iostream>
#include <new>

namespace gigaseg::cli {

StageTimer::StageTimer(Session& session, std::string name)
    : session_(session), name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}

StageTimer::~StageTimer() {
  session_.context.fence();
  std::chrono::duration<double, std::milli> const elapsed = std::chrono::steady_clock::now() - start_;
  session_.timings_ms[name_] += elapsed.count();
}

}  // namespace gigaseg::cli

namespace {

using namespace gigaseg;

int fail(std::string const& message, int code) {
  std::cerr << "gigaseg: " << message << '\n';
  return code;
}

void add_global_options(CLI::App& app, cli::GlobalOptions& options) {
  app.add_option("--backend", options.backend,
                 "auto|cuda|openmp|serial (auto: CUDA for images above the small-image threshold)")
      ->check(CLI::IsMember({"auto", "cuda", "openmp", "serial"}));
  app.add_option("--device", options.device, "GPU ordinal")->check(CLI::NonNegativeNumber);
  app.add_option("--threads", options.threads, "host threads")->check(CLI::PositiveNumber);
  app.add_option("--small-image-pixels", options.small_image_pixels,
                 "N or family=N[,family=N...]: images below N pixels run on the host under --backend auto "
                 "(families: point, filter, label, distance, pipeline; gigaseg info shows the defaults)");
  app.add_flag("--json", options.json, "print one JSON object summarising the result");
  app.add_flag("--quiet", options.quiet, "print nothing but errors");
}

}  // namespace

int main(int argc, char** argv) {
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

  try {
    Runtime runtime(RuntimeOptions{options.threads, options.device, DevicePoolOptions{}});
    ContextOptions context_options;
    context_options.backend = parse_backend(options.backend);
    if (!options.small_image_pixels.empty()) parse_small_image_pixels(options.small_image_pixels, context_options);
    int code = 0;
    {
      ExecutionContext context(context_options);
      cli::Session session{options, context, nlohmann::json::object(), {}};
      for (auto& command : commands) {
        if (!command.app->parsed()) continue;
        command.run(session);
        if (options.json) {
          session.report["timings_ms"] = session.timings_ms;
          std::cout << session.report.dump(2) << '\n';
        }
      }
    }
    return code;
  } catch (Error const& e) {
    return fail(cli::describe(e), e.exit_code());
  } catch (std::bad_alloc const&) {
    return fail("resource error: out of host memory", 4);
  } catch (std::exception const& e) {
    return fail(std::string("error: ") + e.what(), 1);
  }
}
