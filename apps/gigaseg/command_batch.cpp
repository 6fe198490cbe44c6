// gigaseg batch --pipeline P --input DIR|LISTFILE --output DIR [--resume]: one pipeline over many
// images (docs/cli.md). Each image's labels go to OUTDIR/<name>.tif (name: the input's file name
// without its extension), written atomically; --stats, --geojson and --overlay add
// OUTDIR/<name>.csv, OUTDIR/<name>.geojson and OUTDIR/<name>.overlay.png. An image that fails is reported and skipped,
// the others continue.
// --resume skips images whose outputs are all there (atomic writes: present means complete). The
// summary OUTDIR/summary.csv (file,status,components,seconds) is written at the end; seconds:
// waiting for the image's decoding plus its segmentation (upload, pipeline, download). An image
// past --memory-limit (or every image with --tile) is segmented tile by tile after the others
// (engine/tiled.hpp), its seconds the whole run's.
//
// The work runs in the library's batch engine (gigaseg/engine/batch.hpp): --readers threads decode
// ahead, --streams lanes overlap uploads, segmentation and downloads on the GPU, as many threads as
// readers write the outputs. --sequential turns the overlap off (read, segment, write one image
// after another): the baseline the overlap is measured against (docs/performance.md).
//
// Progress on stderr: a bar redrawn in place (files done, rate, time left) when stderr is a
// terminal, one plain line per image otherwise; --quiet silences it.
#include "apps/gigaseg/failure.hpp"
#include "apps/gigaseg/label_output.hpp"
#include "apps/gigaseg/option_names.hpp"
#include "apps/gigaseg/pipeline_run.hpp"
#include "apps/gigaseg/tiling.hpp"
#include "gigaseg/engine/batch.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"
#include "gigaseg/core/io/image_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace gigaseg::cli {
namespace {

namespace fs = std::filesystem;

struct BatchArguments {
  std::string input, output, tile, memory_limit;
  bool resume = false, stats = false, geojson = false, overlay = false, sequential = false;
  GeoJsonOptions outlines;
  int streams = 2, readers = 0, writers = 0;  // 0: the library's defaults (BatchOptions)
  PipelineArguments pipeline;
};

bool is_image_name(fs::path const& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  // Images, FITS, and the whole-slide formats OpenSlide reads (MIRAX by its index file).
  for (char const* known : {".png", ".tif", ".tiff", ".pgm", ".ppm", ".fits", ".fit", ".fts", ".svs", ".ndpi", ".scn",
                            ".mrxs", ".vms", ".vmu", ".svslide", ".bif"})
    if (extension == known) return true;
  return false;
}

// The images of a folder (sorted by name), or the lines of a list file (blank lines and lines
// starting with '#' skipped; relative paths relative to the list's folder).
std::vector<std::string> list_inputs(std::string const& input) {
  std::error_code error;
  std::vector<std::string> files;
  if (fs::is_directory(input, error)) {
    for (auto const& entry : fs::directory_iterator(input, error))
      if (entry.is_regular_file() && is_image_name(entry.path())) files.push_back(entry.path().string());
    GIGASEG_REQUIRE(!error, ErrorKind::input, input, "cannot list the folder: " + error.message());
    std::sort(files.begin(), files.end());
    GIGASEG_REQUIRE(!files.empty(), ErrorKind::input, input,
                    "the folder holds no image (.png, .tif, .tiff, .pgm, .ppm, .fits, or a slide: .svs, .ndpi, .scn, "
                    ".mrxs, .vms, .vmu, .svslide, .bif)");
    return files;
  }
  if (fs::is_regular_file(input, error)) {
    bool image = true;
    try {
      (void)detect_format(input);
    } catch (Error const&) {
      image = false;
    }
    GIGASEG_REQUIRE(!image, ErrorKind::usage, "--input",
                    input + " is an image; --input takes a folder of images or a list file (one image: gigaseg " +
                        "PIPELINE IN OUT)");
  }
  std::ifstream list(input);
  GIGASEG_REQUIRE(list.good(), ErrorKind::input, input, "no such folder or list file");
  fs::path const base = fs::path(input).parent_path();
  std::string line;
  while (std::getline(list, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    std::size_t const start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    fs::path const path = line.substr(start);
    files.push_back((path.is_absolute() ? path : base / path).lexically_normal().string());
  }
  GIGASEG_REQUIRE(!files.empty(), ErrorKind::input, input, "the list file names no image");
  return files;
}

std::string csv_field(std::string const& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
  return quoted + "\"";
}

struct Row {
  std::string status;  // "ok", "error: <reason>"
  index_t components = 0;
  double seconds = 0;
};

// file -> row of an earlier summary.csv in the output folder (for --resume); fields as written by
// csv_field (a quoted status may hold commas).
std::map<std::string, Row> read_summary(std::string const& path) {
  std::map<std::string, Row> rows;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      char const c = line[i];
      if (quoted) {
        if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
          field += '"', ++i;
        else if (c == '"')
          quoted = false;
        else
          field += c;
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.push_back(field), field.clear();
      } else {
        field += c;
      }
    }
    fields.push_back(field);
    if (fields.size() != 4) continue;
    try {
      rows[fields[0]] = Row{fields[1], index_t(std::stoll(fields[2])), std::stod(fields[3])};
    } catch (std::exception const&) {
    }
  }
  return rows;
}

// Progress on stderr: a bar redrawn in place on a terminal, plain lines otherwise.
// Under ranks (rank >= 0), each rank prints a plain line per image it segmented, "rank R: ...".
class Progress {
 public:
  Progress(std::size_t total, bool quiet, int rank)
      : total_(total), quiet_(quiet), terminal_(rank < 0 && isatty(fileno(stderr)) != 0), rank_(rank) {}
  void done(std::string const& file, Row const& row, bool skipped) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++finished_;
    if (!skipped) ++processed_;
    if (quiet_ || (rank_ > 0 && skipped)) return;
    if (rank_ >= 0) {
      if (skipped)
        std::fprintf(stderr, "rank 0: %s: ok (resumed)\n", file.c_str());
      else if (row.status == "ok")
        std::fprintf(stderr, "rank %d: %s: ok, %lld components, %.2f s\n", rank_, file.c_str(),
                     (long long)row.components, row.seconds);
      else
        std::fprintf(stderr, "rank %d: %s: %s\n", rank_, file.c_str(), row.status.c_str());
      std::fflush(stderr);
      return;
    }
    double const elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    double const rate = processed_ > 0 && elapsed > 0 ? double(processed_) / elapsed : 0;
    double const left = rate > 0 ? double(total_ - finished_) / rate : 0;
    char eta[32];
    std::snprintf(eta, sizeof eta, "%d:%02d", int(left) / 60, int(left) % 60);
    if (terminal_) {
      int const width = 30, filled = int(double(width) * double(finished_) / double(total_));
      std::fprintf(stderr, "\r[%s%s] %zu/%zu  %.2f images/s  ETA %s  %s\033[K",
                   std::string(std::size_t(filled), '#').c_str(), std::string(std::size_t(width - filled), '.').c_str(),
                   finished_, total_, rate, eta, fs::path(file).filename().string().c_str());
      if (row.status != "ok") std::fprintf(stderr, "\n%s: %s\n", file.c_str(), row.status.c_str());
      if (finished_ == total_) std::fprintf(stderr, "\n");
    } else if (row.status == "ok") {
      std::fprintf(stderr, "%zu/%zu %s: ok%s, %lld components, %.2f s (%.2f images/s, ETA %s)\n", finished_, total_,
                   file.c_str(), skipped ? " (resumed)" : "", (long long)row.components, row.seconds, rate, eta);
    } else {
      std::fprintf(stderr, "%zu/%zu %s: %s (%.2f images/s, ETA %s)\n", finished_, total_, file.c_str(),
                   row.status.c_str(), rate, eta);
    }
    std::fflush(stderr);
  }

 private:
  std::mutex mutex_;
  std::size_t total_, finished_ = 0, processed_ = 0;
  bool quiet_, terminal_;
  int rank_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

Command make_batch_command(CLI::App& parent) {
  auto arguments = std::make_shared<BatchArguments>();
  auto& a = *arguments;
  Command command;
  command.name = "batch";
  command.app = parent.add_subcommand("batch", "one pipeline over a folder or a list of images");
  CLI::App& app = *command.app;
  add_pipeline_options(app, a.pipeline);
  app.add_option(
         "--input", a.input,
         "a folder of images (.png, .tif, .tiff, .pgm, .ppm, .fits, whole slides) or a list file, one path a line")
      ->required();
  app.add_option("--output", a.output, "folder for OUTDIR/<name>.tif and summary.csv (created if missing)")->required();
  app.add_flag("--resume", a.resume, "skip images whose outputs are already complete");
  app.add_flag("--stats", a.stats, "also write OUTDIR/<name>.csv, the regions' statistics");
  app.add_flag("--geojson", a.geojson,
               "also write OUTDIR/<name>.geojson, the regions' outlines with their statistics (as segment --geojson)");
  add_geojson_format_options(app, a.outlines);
  app.add_flag("--overlay", a.overlay, "also write OUTDIR/<name>.overlay.png");
  app.add_option("--streams", a.streams, "images segmented at once on the GPU, each on its own CUDA stream; default 2")
      ->check(in_range(1, 16));
  app.add_option(
         "--readers", a.readers,
         "host threads decoding images ahead (as many write the outputs); default min(8, half the hardware threads)")
      ->check(in_range(1, 64));
  app.add_option("--writers", a.writers,
                 "images whose outputs are written at once, each on its own thread; default: as many as --readers")
      ->check(in_range(1, 64));
  app.add_flag("--sequential", a.sequential,
               "no overlap: read, segment and write one image after another (a baseline)");
  add_tiling_options(app, a.tile, a.memory_limit);
  command.run = [arguments](Session& session) {
    BatchArguments const& a = *arguments;
    check_pipeline_arguments(a.pipeline);
    GIGASEG_REQUIRE(a.pipeline.pipeline != "stars", ErrorKind::usage, "--pipeline",
                    "batch runs the nuclei, cells and kmeans pipelines; stars runs under segment");
    std::vector<std::string> const files = list_inputs(a.input);
    std::error_code error;
    // The input folder as the output folder would mix results with the images (and make them the
    // next run's inputs), even where no name collides.
    GIGASEG_REQUIRE(!(fs::is_directory(a.input, error) && fs::equivalent(a.input, a.output, error)), ErrorKind::usage,
                    "--output", "is the input folder; choose an output folder apart from the inputs");
    fs::create_directories(a.output, error);
    GIGASEG_REQUIRE(fs::is_directory(a.output), ErrorKind::input, a.output,
                    "cannot create the output folder" + (error ? ": " + error.message() : std::string()));
    // Left by a batch that was killed, also when --resume has nothing to do; under ranks by rank 0,
    // before any rank writes.
    detail::collectively(session.group, [&] {
      if (session.first_rank()) remove_stale_temporaries(a.output);
    });
    // Output names, checked for clashes before any work.
    std::vector<std::string> stems;
    std::map<std::string, std::string> owner;
    for (auto const& file : files) {
      std::string const stem = fs::path(file).stem().string();
      auto const [at, fresh] = owner.emplace(stem, file);
      GIGASEG_REQUIRE(fresh, ErrorKind::usage, file, "writes the same outputs (" + stem + ".tif) as " + at->second);
      stems.push_back((fs::path(a.output) / stem).string());
    }
    auto outputs_of = [&](std::size_t i) {
      std::vector<std::string> paths{stems[i] + ".tif"};
      if (a.stats) paths.push_back(stems[i] + ".csv");
      if (a.geojson) paths.push_back(stems[i] + ".geojson");
      if (a.overlay) paths.push_back(stems[i] + ".overlay.png");
      return paths;
    };
    std::string const summary_path = (fs::path(a.output) / "summary.csv").string();
    // No output may replace an input (the output folder may hold inputs): compared by device and
    // inode, so links and other spellings of a path count.
    {
      std::set<std::pair<dev_t, ino_t>> input_files;
      struct stat info {};
      for (auto const& file : files)
        if (::stat(file.c_str(), &info) == 0) input_files.emplace(info.st_dev, info.st_ino);
      std::vector<std::string> all_outputs{summary_path};
      for (std::size_t i = 0; i < files.size(); ++i)
        for (auto const& path : outputs_of(i)) all_outputs.push_back(path);
      for (auto const& path : all_outputs)
        GIGASEG_REQUIRE(::stat(path.c_str(), &info) != 0 || input_files.count({info.st_dev, info.st_ino}) == 0,
                        ErrorKind::usage, "--output",
                        "'" + path + "' would replace an input image; choose an output folder apart from the inputs");
    }
    std::map<std::string, Row> const earlier = a.resume ? read_summary(summary_path) : std::map<std::string, Row>{};

    std::vector<Row> rows(files.size());
    std::vector<bool> skipped(files.size(), false);
    for (std::size_t i = 0; i < files.size() && a.resume; ++i) {
      auto const paths = outputs_of(i);
      skipped[i] = std::all_of(paths.begin(), paths.end(), [](std::string const& p) { return fs::exists(p); });
      if (!skipped[i]) continue;
      auto const found = earlier.find(files[i]);
      if (found != earlier.end() && found->second.status == "ok") {
        rows[i] = found->second;
      } else {  // complete outputs but no summary row: the components are the label image's largest label
        rows[i].status = "ok";
        AnyHostImage const labels = read_image(paths[0]);
        index_t most = 0;
        std::visit(
            [&](auto const& image) {
              using T = typename std::decay_t<decltype(image)>::value_type;
              if constexpr (std::is_integral<T>::value)
                for (index_t y = 0; y < image.height(); ++y)
                  for (index_t x = 0; x < image.width(); ++x) most = std::max<index_t>(most, index_t(image(y, x)));
            },
            labels);
        rows[i].components = most;
      }
    }

    ProcessGroup const* const group = session.group;
    Progress progress(files.size(), session.options.quiet || session.options.json,
                      group != nullptr ? group->rank() : -1);
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (skipped[i])
        progress.done(files[i], rows[i], true);
      else
        todo.push_back(i);
    }
    // An image is taken tile by tile (engine/tiled.hpp) when --tile asks or its in-memory run would
    // pass the memory limit (choose_tiling); those run after the others, one at a time with every
    // thread. An image whose header cannot be read stays with the others, whose reading reports it.
    if (!a.tile.empty()) (void)parse_tile(a.tile);  // a usage error before any work
    GIGASEG_REQUIRE(a.tile.empty() || !a.overlay, ErrorKind::usage, "--overlay",
                    "an overlay is not written tile by tile (--tile)");
    if (!a.memory_limit.empty()) (void)parse_bytes(a.memory_limit);
    double const bytes_per_pixel = pipeline_bytes_per_pixel(a.pipeline.pipeline);
    // Each image runs on one rank: tiled only when it does not fit (not because ranks share the run).
    Session alone{session.options, session.context, {}, {}, nullptr, session.bound_cpus, session.device};
    std::vector<std::pair<std::size_t, Tiling>> tiled;
    std::vector<std::size_t> in_memory;
    for (std::size_t i : todo) {
      Tiling tiling;
      try {
        tiling = choose_tiling(alone, files[i], a.tile, a.memory_limit, outputs_of(i)[0], bytes_per_pixel);
      } catch (Error const&) {
        tiling = Tiling{};
      }
      if (tiling.tiled())
        tiled.emplace_back(i, std::move(tiling));
      else
        in_memory.push_back(i);
    }
    todo = in_memory;
    // The images still to do in memory, through the library's batch engine; their rows fill as they
    // finish.
    std::vector<std::string> todo_files;
    for (std::size_t i : todo) todo_files.push_back(files[i]);
    BatchOptions options;
    options.lanes = a.streams;
    options.readers = a.readers;
    options.writers = a.writers;
    options.sequential = a.sequential;
    options.group = group;                        // the images go to the ranks as they ask
    std::vector<bool> mine(files.size(), false);  // the images this rank segmented
    BatchIO io;
    io.read = [&](std::size_t t) { return read_image(todo_files[t]); };
    io.write = [&](std::size_t t, Segmentation const& result, AnyHostImage const& input) {
      // An image's outputs are all there or none: what this call put in place goes when a later
      // one fails (--resume then redoes the image).
      auto const paths = outputs_of(todo[t]);
      std::size_t committed = 0;
      try {
        write_label_image(paths[0], result.labels, result.components());
        ++committed;
        if (a.stats) write_stats_csv(paths[1], result.regions()), ++committed;
        if (a.geojson) write_geojson(paths[committed], result.labels, result.regions(), a.outlines), ++committed;
        if (a.overlay) write_overlay(paths.back(), input, result.labels);
      } catch (...) {
        for (std::size_t k = 0; k < committed; ++k) std::remove(paths[k].c_str());
        throw;
      }
    };
    io.done = [&](BatchItem const& item) {
      std::size_t const i = todo[item.index];
      if (item.error) {  // the row names the file: the reason need not say it again
        Failure const failure = describe_failure(item.error, files[i], session.options.device);
        rows[i].status = "error: " + (failure.subject == files[i] ? failure.reason : failure.reason_line());
      } else {
        rows[i].status = "ok";
      }
      rows[i].components = item.components;
      rows[i].seconds = item.seconds;
      mine[i] = true;
      progress.done(files[i], rows[i], false);
    };
    BatchReport const done = run_batch(session.context, pipeline_params(a.pipeline), todo_files, io, options);
    double total_seconds = done.seconds;
    // The images tile by tile: labels and statistics as in memory, written atomically; no overlay.
    // Under ranks each goes whole to the rank that asks for it.
    PipelineParams const params = pipeline_params(a.pipeline);
    std::unique_ptr<WorkCounter> const tiled_counter = group != nullptr ? group->work_counter(tiled.size()) : nullptr;
    std::size_t in_order = 0;
    auto next_tiled = [&] { return tiled_counter ? tiled_counter->next() : in_order++; };
    for (std::size_t k = next_tiled(); k < tiled.size(); k = next_tiled()) {
      auto& [i, tiling] = tiled[k];
      mine[i] = true;
      auto const start = std::chrono::steady_clock::now();
      auto const paths = outputs_of(i);
      std::size_t committed = 0;
      try {
        GIGASEG_REQUIRE(!a.overlay, ErrorKind::usage, "--overlay",
                        "an overlay is not written for an image taken tile by tile");
        TiledOptions options = tiled_options(tiling, alone);  // one rank's image
        options.progress = nullptr;                           // the batch's own progress goes by images
        std::vector<RegionStats> regions;
        if (a.pipeline.pipeline == "nuclei") {
          TiledNucleiResult result = segment_nuclei_tiled(session.context, tiling.engine_input(session), paths[0],
                                                          std::get<NucleiParams>(params), options);
          rows[i].components = result.components;
          regions = std::move(result.regions);
        } else if (a.pipeline.pipeline == "kmeans") {
          TiledKMeansResult result = segment_kmeans_tiled(session.context, tiling.engine_input(session), paths[0],
                                                          std::get<KMeansSegmentParams>(params), options);
          rows[i].components = result.components;
          regions = std::move(result.regions);
        } else {
          TiledCellsResult result = segment_cells_tiled(session.context, tiling.engine_input(session), paths[0],
                                                        std::get<CellsParams>(params), options);
          rows[i].components = result.components;
          regions = std::move(result.regions);
        }
        ++committed;
        if (a.stats) write_stats_csv(paths[committed], regions), ++committed;
        if (a.geojson)
          write_geojson_tiled(paths[committed], paths[0], regions, a.outlines, options.memory_bytes), ++committed;
        rows[i].status = "ok";
      } catch (...) {
        for (std::size_t k = 0; k < committed; ++k) std::remove(paths[k].c_str());
        Failure const failure = describe_failure(std::current_exception(), files[i], session.options.device);
        rows[i].status = "error: " + (failure.subject == files[i] ? failure.reason : failure.reason_line());
        rows[i].components = 0;
      }
      rows[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      total_seconds += rows[i].seconds;
      progress.done(files[i], rows[i], false);
      tiling = Tiling{};  // a PNG's or PGM's tiled scratch copy goes now, not at the end of the batch
    }
    // Under ranks, every rank learns every image's row (and so the same counts and exit code).
    nlohmann::json shares = nlohmann::json::array();
    if (group != nullptr) {
      std::vector<unsigned char> bytes;
      std::vector<std::uint64_t> done_here;
      for (std::size_t i = 0; i < files.size(); ++i)
        if (mine[i]) done_here.push_back(i);
      detail::append_bytes(bytes, done_here);
      for (std::uint64_t i : done_here) {
        detail::append_bytes(bytes, &rows[i].components, 1);
        detail::append_bytes(bytes, &rows[i].seconds, 1);
        detail::append_bytes(bytes, std::vector<char>(rows[i].status.begin(), rows[i].status.end()));
      }
      double const wall = total_seconds;
      detail::append_bytes(bytes, &wall, 1);
      std::vector<std::vector<unsigned char>> const all = group->all_gather(bytes);
      total_seconds = 0;
      for (int rank = 0; rank < group->size(); ++rank) {
        detail::ByteReader in(all[std::size_t(rank)]);
        std::vector<std::uint64_t> const theirs = in.values<std::uint64_t>();
        for (std::uint64_t i : theirs) {
          rows[i].components = in.value<index_t>();
          rows[i].seconds = in.value<double>();
          std::vector<char> const status = in.values<char>();
          rows[i].status.assign(status.begin(), status.end());
        }
        double const seconds = in.value<double>();
        total_seconds = std::max(total_seconds, seconds);  // the ranks ran side by side
        shares.push_back({{"rank", rank}, {"images", theirs.size()}, {"seconds", seconds}});
      }
    }
    std::size_t ok = 0, failed = 0;

    std::string csv = "file,status,components,seconds\n";
    std::size_t resumed = 0;
    for (std::size_t i = 0; i < files.size(); ++i) {
      (rows[i].status == "ok" ? ok : failed) += 1;
      resumed += skipped[i] ? 1 : 0;
      char numbers[64];
      std::snprintf(numbers, sizeof numbers, ",%lld,%.3f\n", (long long)rows[i].components, rows[i].seconds);
      csv += csv_field(files[i]) + "," + csv_field(rows[i].status) + numbers;
    }
    detail::collectively(group, [&] {
      if (session.first_rank()) write_text_file(summary_path, csv);
    });
    auto& r = session.report;
    r["command"] = "batch";
    r["pipeline"] = a.pipeline.pipeline;
    r["images"] = files.size();
    r["ok"] = ok;
    r["failed"] = failed;
    r["resumed"] = resumed;
    r["summary"] = summary_path;
    r["failures"] = nlohmann::json::array();  // this run's and, under --resume, earlier runs' failed images
    for (std::size_t i = 0; i < files.size(); ++i)
      if (rows[i].status != "ok") r["failures"].push_back({{"file", files[i]}, {"error", rows[i].status.substr(7)}});
    r["seconds"] = total_seconds;
    r["tiled_images"] = tiled.size();  // taken tile by tile (--tile, or past --memory-limit)
    std::size_t const processed = files.size() - resumed;
    if (group != nullptr) {
      r["ranks"] = group->size();
      r["rank_shares"] = shares;  // each rank's images and wall seconds
    }
    r["images_per_second"] = total_seconds > 0 ? double(processed) / total_seconds : 0.0;
    r["sequential"] = a.sequential;
    r["streams"] = done.lanes;
    r["readers"] = done.readers;
    r["writers"] = done.writers;
    r["backends"] = done.backends;
    // Work summed over the images (on overlapping threads in the default mode): decoding, the
    // segmentation (upload, pipeline, download) and writing the outputs.
    r["work_ms"] = {{"decode", done.decode_ms}, {"segment", done.segment_ms}, {"write", done.write_ms}};
    r["segment_stages_ms"] = done.stage_ms;  // the pipelines' own timings (upload, stages, download), summed
    r["staged_ahead"] = done.staged_ahead;   // uploads started while the previous image was segmented
    session.timings_ms["batch"] = total_seconds * 1e3;
    if (!session.options.json && !session.options.quiet)
      std::cout << ok << " of " << files.size() << " images segmented (" << resumed << " resumed), " << failed
                << " failed; summary in " << summary_path << "\n";
    GIGASEG_REQUIRE(
        failed == 0, ErrorKind::input, summary_path,
        std::to_string(failed) + " of " + std::to_string(files.size()) + " images failed (their rows say why)");
  };
  return command;
}

}  // namespace gigaseg::cli
