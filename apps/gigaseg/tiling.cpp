#include "apps/gigaseg/tiling.hpp"

#include "gigaseg/core/error.hpp"

#include <malloc.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <cstdio>
#include <limits>
#include <memory>
#include <utility>

namespace gigaseg::cli {

std::pair<index_t, index_t> parse_tile(std::string const& text) {
  long long w = 0, h = 0;
  char extra = 0;
  bool const parsed = std::sscanf(text.c_str(), "%lldx%lld%c", &w, &h, &extra) == 2;
  GIGASEG_REQUIRE(parsed && w >= 16 && h >= 16 && w % 16 == 0 && h % 16 == 0 && w <= 65536 && h <= 65536,
                  ErrorKind::usage, "--tile",
                  "'" + text + "' is not WxH with W and H multiples of 16 between 16 and 65536 (e.g. 4096x4096)");
  return {index_t(w), index_t(h)};
}

std::size_t parse_bytes(std::string const& text) {
  double value = 0;
  char unit = 0, extra = 0;
  int const fields = std::sscanf(text.c_str(), "%lf%c%c", &value, &unit, &extra);
  double scale = 1;
  if (fields >= 2)
    scale = unit == 'K' || unit == 'k'   ? 1024.0
            : unit == 'M' || unit == 'm' ? 1048576.0
            : unit == 'G' || unit == 'g' ? 1073741824.0
                                         : 0;
  GIGASEG_REQUIRE(fields >= 1 && fields <= 2 && scale > 0 && value > 0, ErrorKind::usage, "--memory-limit",
                  "'" + text + "' is not a size such as 8G, 512M or 1000000");
  return std::size_t(value * scale);
}

std::size_t host_budget(std::string const& memory_limit) {
  return memory_limit.empty() ? std::size_t(double(sysconf(_SC_AVPHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE)) * 0.75)
                              : parse_bytes(memory_limit);
}

namespace {

// The most memory this process has held resident so far (the kernel's high-water mark).
std::size_t peak_resident_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return std::size_t(usage.ru_maxrss) * 1024;  // Linux reports kilobytes
}

}  // namespace

void add_tiling_options(CLI::App& app, std::string& tile, std::string& memory_limit) {
  app.add_option("--tile", tile,
                 "WxH: run tile by tile (W, H multiples of 16), never whole in memory (a PNG or PGM through a "
                 "tiled scratch copy beside the output); the result is the same, written as a tiled TIFF");
  app.add_option("--memory-limit", memory_limit,
                 "SIZE (e.g. 8G): an image whose in-memory run would take more host memory, or GPU memory where "
                 "it runs on a GPU, runs in 4096x4096 tiles; default 3/4 of the available host memory and 3/4 of "
                 "the GPU's free memory");
}

Tiling choose_tiling(Session const& session, std::string const& input, std::string const& tile,
                     std::string const& memory_limit, std::string const& output, double bytes_per_pixel) {
  Tiling tiling;
  tiling.input = input;
  auto const slash = output.find_last_of('/');
  tiling.scratch_folder = output.empty()               ? std::filesystem::temp_directory_path().string()
                          : slash == std::string::npos ? std::string(".")
                                                       : output.substr(0, slash + 1);
  // The input read ahead is this run's own memory: the budget is what was there before it.
  ReadAhead* const ahead = session.read_ahead;
  bool const read_ahead = ahead != nullptr && ahead->pending() && ahead->path() == input;
  tiling.budget = read_ahead && memory_limit.empty() ? session.read_ahead_budget : host_budget(memory_limit);
  // A pipe or a device can be read once: it is never probed here, and never read by region.
  struct stat st {};
  bool const regular = (::stat(input.c_str(), &st) == 0 && S_ISREG(st.st_mode)) || is_zarr_folder(input);
  if (regular) tiling.shape = image_shape(input);
  ImageShape const& shape = tiling.shape;
  index_t const pixels = shape.width * shape.height;
  if (pixels > 0 && session.context.resolve(pixels, OpFamily::label) == Backend::cuda) {
    DeviceMemory const device = current_device_memory();
    tiling.device_budget = memory_limit.empty() ? std::size_t(double(device.free) * 0.75) : tiling.budget;
  }
  if (!tile.empty()) {
    std::tie(tiling.tile_width, tiling.tile_height) = parse_tile(tile);
    GIGASEG_REQUIRE(regular || ::stat(input.c_str(), &st) != 0, ErrorKind::input, input,
                    "a pipe or device cannot be read by region; save it as a tiled TIFF first");
  } else if (regular) {
    double const need = double(pixels) * bytes_per_pixel;
    if (need > double(tiling.budget) || (tiling.device_budget > 0 && need > double(tiling.device_budget)) ||
        detail::group_size(session.group) > 1)  // ranks share an image by its tiles
      tiling.tile_width = tiling.tile_height = 4096;
  }
  if (tiling.tiled()) {
    // A reading or writing thread holds at most two tiles at a time, each at most
    // in_memory_bytes_per_pixel / 2 a pixel (the pixels read, the labels written).
    double const per_thread = double(tiling.tile_width) * double(tiling.tile_height) * in_memory_bytes_per_pixel;
    tiling.threads = int(std::clamp<double>(std::floor(double(tiling.budget) / per_thread) - 1, 1, io_threads()));
    // The whole image read ahead will not be used: its memory goes before the tiles'.
    if (read_ahead) ahead->discard();
  }
  return tiling;
}

std::unique_ptr<ReadAhead> start_read_ahead(CLI::App const& command, std::size_t& budget) {
  static char const* const whole[] = {"histogram", "threshold", "kmeans", "label", "segment",  "watershed",
                                      "median",    "gaussian",  "sobel",  "morph", "convolve", "edt"};
  if (std::none_of(std::begin(whole), std::end(whole), [&](char const* name) { return command.get_name() == name; }))
    return nullptr;
  CLI::Option const* tile = command.get_option_no_throw("--tile");
  if (tile != nullptr && tile->count() > 0) return nullptr;
  std::string const input = input_of(command);
  struct stat st {};
  if (input.empty() || ::stat(input.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  try {
    CLI::Option const* limit = command.get_option_no_throw("--memory-limit");
    budget = host_budget(limit != nullptr && limit->count() > 0 ? limit->results().front() : std::string());
    ImageShape const shape = image_shape(input);
    double const pixels = double(shape.width) * double(shape.height);
    if (pixels > double(read_ahead_pixel_limit) || pixels * cells_bytes_per_pixel > double(budget)) return nullptr;
  } catch (Error const&) {
    return nullptr;  // the command reports a bad header or option itself
  }
  return std::make_unique<ReadAhead>(input);
}

std::string const& Tiling::engine_input(Session& session) const {
  if (!source_) {
    StageTimer timer(session, "decode");  // a PNG or PGM/PPM into the scratch TIFF
    source_ = std::make_shared<TiledInput>(input, scratch_folder, tiled_options(*this, session));
  }
  return source_->path();
}

TiledOptions tiled_options(Tiling const& tiling, Session const& session) {
  // The engine allocates and frees buffers of a tile's size (tens of MB) for every tile. glibc maps
  // each allocation above 32 MB afresh and unmaps it when freed, so every tile paid page faults and
  // the kernel's zeroing of its pages again (on the 2-core VM a third of the cells pipeline's time):
  // kept on the heap, and the heap's top kept, the memory freed by one tile serves the next.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  TiledOptions options;
  options.tile_width = tiling.tile_width;
  options.tile_height = tiling.tile_height;
  options.threads = tiling.threads;
  options.mask_cache_bytes = tiling.budget / 4;  // the labelling's masks between its passes
  options.memory_bytes = tiling.budget;
  options.progress = progress_line(session);
  options.lanes = session.options.tile_streams;
  options.cells_window_halo = session.options.window_halo;
  options.group = session.group;
  return options;
}

nlohmann::json tiled_report(Tiling const& tiling, TiledReport const& report, ProcessGroup const* group) {
  nlohmann::json r = {
      {"tile_width", tiling.tile_width},
      {"tile_height", tiling.tile_height},
      {"tiles", report.tiles},
      {"decoded_to_scratch", tiling.decoded()},
      {"passes", report.passes},
      {"peak_tile_bytes", report.peak_tile_bytes},
      {"pixel_bytes_read", report.pixel_bytes_read},
      {"pixel_bytes_written", report.pixel_bytes_written},
      {"busy_seconds",
       {{"read", report.seconds.read}, {"compute", report.seconds.compute}, {"write", report.seconds.write}}},
      {"threads", tiling.threads},
      {"peak_device_bytes", report.peak_device_bytes},
      {"kept_mask_bytes", report.kept_mask_bytes},
      {"join_seconds", report.join_seconds},
      {"memory_budget_bytes", tiling.budget},
      {"device_memory_budget_bytes", tiling.device_budget},
      {"peak_resident_bytes", peak_resident_bytes()}};
  if (group == nullptr) return r;
  // Each rank's share: its tiles and their pixels, bytes and busy seconds, and its peak memory.
  index_t tiles = report.rank_tiles, pixels = report.rank_pixels;
  if (tiles == 0) {  // a driver that does not say (histogram_tiled): its run of the grid
    ImageShape const shape = image_shape(tiling.input);
    index_t const across = (shape.width + tiling.tile_width - 1) / tiling.tile_width;
    for (std::size_t t : detail::owned_tiles(std::size_t(report.tiles), group)) {
      index_t const x = index_t(t) % across * tiling.tile_width, y = index_t(t) / across * tiling.tile_height;
      pixels += std::min(tiling.tile_width, shape.width - x) * std::min(tiling.tile_height, shape.height - y);
      ++tiles;
    }
  }
  nlohmann::json const share = {
      {"rank", group->rank()},
      {"tiles", tiles},
      {"pixels", pixels},
      {"pixel_bytes_read", report.pixel_bytes_read},
      {"pixel_bytes_written", report.pixel_bytes_written},
      {"busy_seconds",
       {{"read", report.seconds.read}, {"compute", report.seconds.compute}, {"write", report.seconds.write}}},
      {"peak_resident_bytes", peak_resident_bytes()},
      {"bytes_sent", group->bytes_sent()}};
  std::string const text = share.dump();
  std::vector<std::vector<unsigned char>> const all = group->all_gather({text.begin(), text.end()});
  r["ranks"] = group->size();
  for (auto const& bytes : all) r["rank_shares"].push_back(nlohmann::json::parse(bytes.begin(), bytes.end()));
  return r;
}

std::function<void(index_t, index_t)> progress_line(Session const& session) {
  if (session.options.quiet || session.options.json || !::isatty(STDERR_FILENO)) return {};
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  return [last](index_t done, index_t all) {
    auto const now = std::chrono::steady_clock::now();
    if (done < all && now - *last < std::chrono::milliseconds(200)) return;
    *last = now;
    std::fprintf(stderr, "\rgigaseg: tile %lld of %lld, %3.0f%%%s", (long long)done, (long long)all,
                 100.0 * double(done) / double(all), done == all ? "\n" : "");
    std::fflush(stderr);
  };
}

}  // namespace gigaseg::cli
