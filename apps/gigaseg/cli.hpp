#pragma once
// Shared pieces of the gigaseg commands: the global options, the per-run state, and output.
#include "gigaseg/core/context.hpp"
#include "gigaseg/core/io/read_ahead.hpp"
#include "gigaseg/core/runtime.hpp"
#include "gigaseg/engine/process_group.hpp"

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
  std::string small_image_pixels;       // empty: the built-in defaults; "N" or "family=N,..."
  std::string compression = "deflate";  // TIFF outputs: none|deflate|deflate-predictor|zstd
  int level = 0;                        // the level of a whole-slide input that is read
  double mpp = 0;                       // > 0: the level nearest this many microns per pixel instead
  int tile_streams = 2;                 // CUDA streams of the tile engine (TiledOptions::lanes)
  index_t window_halo = 128;            // tiled cells: TiledOptions::cells_window_halo
};

// What a command gets when it runs: Kokkos is initialised and the context is ready.
struct Session {
  GlobalOptions const& options;
  ExecutionContext& context;
  nlohmann::json report;  // printed with --json; commands add their results
  std::map<std::string, double> timings_ms;
  ProcessGroup const* group = nullptr;  // the ranks sharing the run (apps/gigaseg/ranks.hpp); null: alone
  std::string bound_cpus;               // the cores this rank is bound to (hwloc list), when ranks share a node
  int device = -1;                      // the GPU ordinal this process uses (-1: no GPU)
  bool mpi_cuda_aware = false;          // the MPI under the ranks passes GPU memory itself
  ReadAhead* read_ahead = nullptr;      // the command's input, read while Kokkos started (main.cpp)
  std::size_t read_ahead_budget = 0;    // the host budget (host_budget) before that read took memory
  bool first_rank() const noexcept { return group == nullptr || group->rank() == 0; }
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

// The command's input file read whole: the read started before Kokkos (session.read_ahead) when it
// is of `path`, else read_image(path).
AnyHostImage read_input(Session& session, std::string const& path);

struct Command {
  std::string name;
  CLI::App* app = nullptr;
  std::function<void(Session&)> run;
};

// True when `a` and `b` name the same file: the same device and inode when both exist, else the
// same path once made absolute, symbolic links resolved as far as they exist.
bool same_file(std::string const& a, std::string const& b);
// Before any work: a usage error naming the output option when an output file of the parsed
// command (OUT, --stats, --overlay) would replace one of its input files (IN, KERNEL, RELIEF,
// MARKERS, --mask) or another of its outputs, also through another spelling of the path or a
// link; an input error naming the output when its folder is missing or not writable.
void check_file_roles(CLI::App const& command);

// The output files of a parsed command as they are before it runs; remove_committed() removes
// those the command has since put in place (a new file, or a new inode where one was), so that a
// command that fails after committing some outputs leaves none.
class OutputsBefore {
 public:
  explicit OutputsBefore(CLI::App const& command);
  void remove_committed() const;

 private:
  struct Entry {
    std::string path;
    bool existed = false;
    unsigned long long device = 0, inode = 0;
  };
  std::vector<Entry> entries_;
};
// The parsed command's (first) input file, or --input's folder or list; empty when it has none.
std::string input_of(CLI::App const& command);

// Checks of option values with one short line each (CLI11's own range checks print the limits of
// a double in full): a finite number above 0, a finite number 0 or more, a number from lo to hi,
// an unsigned 64-bit integer (seeds: no sign, no saturation past 2^64 - 1).
CLI::Validator positive_number();
CLI::Validator non_negative_number();
CLI::Validator in_range(double lo, double hi);
CLI::Validator unsigned_64();

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
