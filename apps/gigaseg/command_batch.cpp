// gigaseg batch --pipeline P --input DIR|LISTFILE --output DIR [--resume]: one pipeline over many
// images (docs/cli.md). Each image's labels go to OUTDIR/<name>.tif (name: the input's file name
// without its extension), written atomically; --stats and --overlay add OUTDIR/<name>.csv and
// OUTDIR/<name>.overlay.png. An image that fails is reported and skipped, the others continue.
// --resume skips images whose outputs are all there (atomic writes: present means complete). The
// summary OUTDIR/summary.csv (file,status,components,seconds) is written at the end; seconds:
// waiting for the image's decoding plus its segmentation (upload, pipeline, download).
//
// Overlap (streams and batches): --readers host threads decode the images ahead, into pinned memory
// when the GPU takes them; the images go round --streams lanes (each its own CUDA stream and
// device images reused from one image to the next): the next image's upload starts on its lane
// before the current one is segmented on another, and an image's download runs on its lane while
// the next ones are segmented; as many images' outputs as there are readers are encoded and
// written on host threads meanwhile. All Kokkos work is issued from the main thread: Kokkos 3.x's
// OpenMP backend refuses reductions from any other, and the host backend (images below the
// small-image threshold, --backend openmp) must work there too. --sequential turns the overlap
// off (read, segment, write one image after another): the baseline the overlap is measured against
// (docs/performance.md).
//
// Progress on stderr: a bar redrawn in place (files done, rate, time left) when stderr is a
// terminal, one plain line per image otherwise; --quiet silences it.
#include "apps/gigaseg/label_output.hpp"
#include "apps/gigaseg/option_names.hpp"
#include "apps/gigaseg/pipeline_run.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <deque>
#include <exception>
#include <future>
#include <iostream>
#include <mutex>
#include <thread>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace gigaseg::cli {
namespace {

namespace fs = std::filesystem;

struct BatchArguments {
  std::string input, output;
  bool resume = false, stats = false, overlay = false, sequential = false;
  int streams = 2, readers = 0;  // readers 0: min(8, max(2, hardware threads / 2))
  PipelineArguments pipeline;
};

// Hands out the images in order, with their decoding started up to `ahead` images in advance on
// host threads (ahead 0: decoded on the caller's thread when it asks for the pixels). A decoded
// image the GPU will take is copied into pinned memory on the same thread (PinnedStaging).
class DecodeQueue {
 public:
  struct Job {
    std::size_t index;
    std::future<InputImage> image;
  };
  DecodeQueue(std::vector<std::string> const& files, std::vector<std::size_t> todo, std::size_t ahead,
              ExecutionContext const& context, PinnedStaging const& staging)
      : files_(files), todo_(std::move(todo)), decoding_(todo_.size()), ahead_(ahead), context_(context), staging_(staging) {}
  // Called from one thread.
  std::optional<Job> next() {
    if (position_ == todo_.size()) return std::nullopt;
    std::size_t const p = position_++;
    for (; launched_ < std::min(todo_.size(), p + 1 + ahead_); ++launched_)
      decoding_[launched_] = std::async(std::launch::async, &DecodeQueue::decode, this, todo_[launched_]);
    if (!decoding_[p].valid()) decoding_[p] = std::async(std::launch::deferred, &DecodeQueue::decode, this, todo_[p]);
    return Job{todo_[p], std::move(decoding_[p])};
  }
  double decode_ms() const { return decode_ms_.load(); }

 private:
  InputImage decode(std::size_t index) {
    auto const start = std::chrono::steady_clock::now();
    InputImage image = staging_.input(context_, read_image(files_[index]));
    double const ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    for (double seen = decode_ms_.load(); !decode_ms_.compare_exchange_weak(seen, seen + ms);) {
    }
    return image;
  }
  std::vector<std::string> const& files_;
  std::vector<std::size_t> const todo_;
  std::vector<std::future<InputImage>> decoding_;
  std::size_t const ahead_;
  ExecutionContext const& context_;
  PinnedStaging const& staging_;
  std::size_t position_ = 0, launched_ = 0;
  std::atomic<double> decode_ms_{0};
};

bool is_image_name(fs::path const& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return extension == ".png" || extension == ".tif" || extension == ".tiff" || extension == ".pgm" || extension == ".ppm";
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
    GIGASEG_REQUIRE(!files.empty(), ErrorKind::input, input, "the folder holds no .png, .tif, .tiff, .pgm or .ppm file");
    return files;
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
        if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') field += '"', ++i;
        else if (c == '"') quoted = false;
        else field += c;
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
class Progress {
 public:
  Progress(std::size_t total, bool quiet) : total_(total), quiet_(quiet), terminal_(isatty(fileno(stderr)) != 0) {}
  void done(std::string const& file, Row const& row, bool skipped) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++finished_;
    if (!skipped) ++processed_;
    if (quiet_) return;
    double const elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    double const rate = processed_ > 0 && elapsed > 0 ? double(processed_) / elapsed : 0;
    double const left = rate > 0 ? double(total_ - finished_) / rate : 0;
    char eta[32];
    std::snprintf(eta, sizeof eta, "%d:%02d", int(left) / 60, int(left) % 60);
    if (terminal_) {
      int const width = 30, filled = int(double(width) * double(finished_) / double(total_));
      std::fprintf(stderr, "\r[%s%s] %zu/%zu  %.2f images/s  ETA %s  %s\033[K", std::string(std::size_t(filled), '#').c_str(),
                   std::string(std::size_t(width - filled), '.').c_str(), finished_, total_, rate, eta,
                   fs::path(file).filename().string().c_str());
      if (row.status != "ok") std::fprintf(stderr, "\n%s: %s\n", file.c_str(), row.status.c_str());
      if (finished_ == total_) std::fprintf(stderr, "\n");
    } else {
      std::fprintf(stderr, "%zu/%zu %s: %s%s, %lld components, %.2f s (%.2f images/s, ETA %s)\n", finished_, total_,
                   file.c_str(), row.status.c_str(), skipped ? " (resumed)" : "", (long long)row.components, row.seconds,
                   rate, eta);
    }
    std::fflush(stderr);
  }

 private:
  std::mutex mutex_;
  std::size_t total_, finished_ = 0, processed_ = 0;
  bool quiet_, terminal_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The reason in a summary row: gigaseg's errors name the file, or the option that set the parameter.
std::string reason_of(std::exception const& e) {
  if (dynamic_cast<std::bad_alloc const*>(&e)) return "out of host memory";
  if (auto const* error = dynamic_cast<Error const*>(&e)) {
    std::string const subject = option_for(error->subject());
    return subject.empty() ? error->reason() : subject + ": " + error->reason();
  }
  return e.what();
}

}  // namespace

Command make_batch_command(CLI::App& parent) {
  auto arguments = std::make_shared<BatchArguments>();
  auto& a = *arguments;
  Command command;
  command.name = "batch";
  command.app = parent.add_subcommand("batch", "one pipeline over a folder or a list of images");
  CLI::App& app = *command.app;
  add_pipeline_options(app, a.pipeline);
  app.add_option("--input", a.input, "a folder of images (.png, .tif, .tiff, .pgm, .ppm) or a list file, one path a line")
      ->required();
  app.add_option("--output", a.output, "folder for OUTDIR/<name>.tif and summary.csv (created if missing)")->required();
  app.add_flag("--resume", a.resume, "skip images whose outputs are already complete");
  app.add_flag("--stats", a.stats, "also write OUTDIR/<name>.csv, the regions' statistics");
  app.add_flag("--overlay", a.overlay, "also write OUTDIR/<name>.overlay.png");
  app.add_option("--streams", a.streams, "images segmented at once on the GPU, each on its own CUDA stream; default 2")
      ->check(CLI::Range(1, 16));
  app.add_option("--readers", a.readers, "host threads decoding images ahead (as many write the outputs); default min(8, half the hardware threads)")
      ->check(CLI::Range(1, 64));
  app.add_flag("--sequential", a.sequential, "no overlap: read, segment and write one image after another (a baseline)");
  command.run = [arguments](Session& session) {
    BatchArguments const& a = *arguments;
    check_pipeline_arguments(a.pipeline);
    std::vector<std::string> const files = list_inputs(a.input);
    std::error_code error;
    fs::create_directories(a.output, error);
    GIGASEG_REQUIRE(fs::is_directory(a.output), ErrorKind::input, a.output,
                    "cannot create the output folder" + (error ? ": " + error.message() : std::string()));
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
      if (a.overlay) paths.push_back(stems[i] + ".overlay.png");
      return paths;
    };
    std::string const summary_path = (fs::path(a.output) / "summary.csv").string();
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
        std::visit([&](auto const& image) {
          using T = typename std::decay_t<decltype(image)>::value_type;
          if constexpr (std::is_integral<T>::value)
            for (index_t y = 0; y < image.height(); ++y)
              for (index_t x = 0; x < image.width(); ++x) most = std::max<index_t>(most, index_t(image(y, x)));
        }, labels);
        rows[i].components = most;
      }
    }

    Progress progress(files.size(), session.options.quiet || session.options.json);
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (skipped[i]) progress.done(files[i], rows[i], true);
      else todo.push_back(i);
    }
    // Lanes: one when the work stays on the host or everything is sequential.
    bool const device_possible = backend_available(Backend::cuda) &&
                                 (session.context.requested() == Backend::automatic || session.context.requested() == Backend::cuda);
    std::size_t const lanes = a.sequential || !device_possible ? 1 : std::size_t(a.streams);
    unsigned const hardware = std::max(1u, std::thread::hardware_concurrency());
    std::size_t const ahead = a.sequential ? 0 : a.readers > 0 ? std::size_t(a.readers) : std::min<std::size_t>(8, std::max(2u, hardware / 2));
    // As many writer threads as readers: on the H200 machine four writers were the limit once the
    // GPU side took 5 ms an image (docs/performance.md, batch throughput).
    std::size_t const max_writes = a.sequential ? 1 : ahead;
    PinnedStaging staging;
    DecodeQueue queue(files, todo, ahead, session.context, staging);
    std::vector<std::unique_ptr<DeviceLane>> lane_objects;
    for (std::size_t l = 0; l < lanes; ++l) lane_objects.push_back(std::make_unique<DeviceLane>(staging));
    std::mutex totals_mutex;
    double segment_ms = 0, write_ms = 0;
    std::map<std::string, double> stage_ms;  // the pipelines' stages summed over the images
    std::map<std::string, std::size_t> backends;
    std::size_t staged = 0;                  // images whose upload started during the previous one

    // Outputs being written on host threads, oldest first.
    struct Writing {
      std::size_t index;
      std::future<void> done;
    };
    std::deque<Writing> writing;
    auto finish_oldest = [&] {
      Writing w = std::move(writing.front());
      writing.pop_front();
      try {
        w.done.get();
      } catch (std::exception const& e) {
        rows[w.index].status = "error: " + reason_of(e);
        rows[w.index].components = 0;
      }
      progress.done(files[w.index], rows[w.index], false);
    };

    // An image taken from its decoder: the pixels, or the reason it failed; seconds spent waiting.
    struct Taken {
      std::size_t index;
      std::shared_ptr<InputImage> image;
      std::string error;
      double wait_seconds = 0;
    };
    auto take = [&](DecodeQueue::Job& job) {
      Taken t{job.index, nullptr, {}, 0};
      auto const start = std::chrono::steady_clock::now();
      try {
        t.image = std::make_shared<InputImage>(job.image.get());
      } catch (std::exception const& e) {
        t.error = "error: " + reason_of(e);
      }
      t.wait_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return t;
    };

    // Kokkos work stays on this thread (Kokkos 3.x's OpenMP backend takes work from its initial
    // thread only); the overlap comes from the reader and writer threads and from the lanes'
    // streams: before an image is segmented on its lane, the next image, when already decoded,
    // starts its upload on the next lane, and the previous image's download is still running on its.
    auto const batch_start = std::chrono::steady_clock::now();
    std::size_t turn = 0;
    std::optional<DecodeQueue::Job> job = queue.next();
    std::optional<Taken> early;  // the next image, taken and staged while the current one ran
    while (job || early) {
      Taken current = early ? std::move(*early) : take(*job);
      early.reset();
      DeviceLane& lane = *lane_objects[turn++ % lanes];
      job = queue.next();
      if (job && lanes > 1 && job->image.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        early = take(*job);
        job.reset();
        if (early->image) {
          try {
            staged += lane_objects[turn % lanes]->stage(session.context, a.pipeline, *early->image) ? 1 : 0;
          } catch (std::exception const&) {
            // Not staged: segment_image uploads it again and reports the error against its file.
          }
        }
      }
      std::size_t const i = current.index;
      auto const computing = std::chrono::steady_clock::now();
      std::shared_ptr<Segmentation> result;
      rows[i].status = current.error;
      if (current.image) {
        try {
          result = std::make_shared<Segmentation>(segment_image(session.context, lane, a.pipeline, *current.image, files[i]));
          ++backends[to_string(result->backend)];
          for (auto const& [stage, ms] : result->timings_ms) stage_ms[stage] += ms;
          rows[i].status = "ok";
          rows[i].components = result->components;
        } catch (std::exception const& e) {
          rows[i].status = "error: " + reason_of(e);
        }
      }
      double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - computing).count();
      segment_ms += 1e3 * seconds;
      rows[i].seconds = current.wait_seconds + seconds;
      if (!result) {
        progress.done(files[i], rows[i], false);
        continue;
      }
      while (writing.size() >= max_writes) finish_oldest();
      writing.push_back(Writing{
          i, std::async(a.sequential ? std::launch::deferred : std::launch::async,
                        [&a, &totals_mutex, &write_ms, image = current.image, result, paths = outputs_of(i)] {
                          auto const begin = std::chrono::steady_clock::now();
                          result->wait_for_labels();
                          write_label_image(paths[0], result->labels, result->components);
                          if (a.stats) write_stats_csv(paths[1], result->regions);
                          if (a.overlay) write_overlay(paths.back(), image->pixels, result->labels);
                          std::lock_guard<std::mutex> lock(totals_mutex);
                          write_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
                        })});
      if (a.sequential) finish_oldest();
    }
    while (!writing.empty()) finish_oldest();
    double const total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - batch_start).count();
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
    write_text_file(summary_path, csv);
    auto& r = session.report;
    r["command"] = "batch";
    r["pipeline"] = a.pipeline.pipeline;
    r["images"] = files.size();
    r["ok"] = ok;
    r["failed"] = failed;
    r["resumed"] = resumed;
    r["summary"] = summary_path;
    r["seconds"] = total_seconds;
    r["images_per_second"] = todo.empty() || total_seconds <= 0 ? 0.0 : double(todo.size()) / total_seconds;
    r["sequential"] = a.sequential;
    r["streams"] = lanes;
    r["readers"] = ahead;
    r["writers"] = max_writes;
    r["backends"] = backends;
    // Work summed over the images (on overlapping threads in the default mode): decoding, the
    // segmentation (upload, pipeline, download) and writing the outputs.
    r["work_ms"] = {{"decode", queue.decode_ms()}, {"segment", segment_ms}, {"write", write_ms}};
    r["segment_stages_ms"] = stage_ms;  // the pipelines' own timings (upload, stages, download), summed
    r["staged_ahead"] = staged;         // uploads started while the previous image was segmented
    session.timings_ms["batch"] = total_seconds * 1e3;
    if (!session.options.json && !session.options.quiet)
      std::cout << ok << " of " << files.size() << " images segmented (" << resumed << " resumed), " << failed
                << " failed; summary in " << summary_path << "\n";
    GIGASEG_REQUIRE(failed == 0, ErrorKind::input, summary_path,
                    std::to_string(failed) + " of " + std::to_string(files.size()) + " images failed (their rows say why)");
  };
  return command;
}

}  // namespace gigaseg::cli
