#pragma once
// Shared pieces of the gigaseg commands: the global options, the per-run state, and output.
#include "gigaseg/core/context.hpp"
#include "gigaseg/core/runtime.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gigaseg::cli {

struct GlobalOptions {
  std::string backend = "auto";
  int device = -1;
  int threads = -1;
  bool json = false;
  bool quiet = false;
  std::string small_image_pixels;  // empty: the built-in defaults; "N" or "family=N,..."
};

// What a command gets when it runs: Kokkos is initialised and the context is ready.
struct Session {
  GlobalOptions const& options;
  ExecutionContext& context;
  nlohmann::json report;  // printed with --json; commands add their results
  std::map<std::string, double> timings_ms;
};

// Times a stage into session.timings_ms[name] (after fencing the context, so device work counts).
class StageTimer {
 public:
  StageTimer(Session& session, std::string name);
  ~StageTimer();

 private:
  Session& session_;
  std::string name_;
  std::chrono::steady_clock::time_point start_;
};

struct Command {
  std::string name;
  CLI::App* app = nullptr;
  std::function<void(Session&)> run;
};

// Each command file defines one of these; main.cpp registers them all.
Command make_info_command(CLI::App& parent);
Command make_convert_command(CLI::App& parent);
Command make_histogram_command(CLI::App& parent);
Command make_threshold_command(CLI::App& parent);
Command make_kmeans_command(CLI::App& parent);
Command make_morph_command(CLI::App& parent);
Command make_median_command(CLI::App& parent);
Command make_gaussian_command(CLI::App& parent);
Command make_sobel_command(CLI::App& parent);
Command make_convolve_command(CLI::App& parent);
Command make_edt_command(CLI::App& parent);
Command make_watershed_command(CLI::App& parent);
Command make_label_command(CLI::App& parent);
Command make_segment_command(CLI::App& parent);
Command make_demo_command(CLI::App& parent);
Command make_batch_command(CLI::App& parent);

}  // namespace gigaseg::cli
