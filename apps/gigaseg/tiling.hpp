#pragma once
// The options of the commands that can run tile by tile (label, segment and batch with the nuclei,
// cells and kmeans pipelines, the filters, threshold, histogram):
// --tile WxH and --memory-limit SIZE, and the "tiled" entry of their --json report.
#include "apps/gigaseg/cli.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace gigaseg::cli {

// Bytes a pixel the in-memory runs of these commands hold at their peak: the input (at most 4),
// the labels (4) and the union-find's parents and the statistics' scratch (8).
constexpr double in_memory_bytes_per_pixel = 16;
// The cells pipeline's in-memory peak: the gray, the median, the mask and the opened mask (1 each),
// the distances (4), their squares (8), the markers, the relief and the labels (4 + 2 + 4), and the
// watershed's keys and parents (16).
constexpr double cells_bytes_per_pixel = 42;
// The kmeans pipeline's: the RGB input (3), the classes, the mask and the gray (1 each), the labels
// (4), and the labelling's parents and the statistics' scratch (8).
constexpr double kmeans_bytes_per_pixel = 18;
// What the in-memory run of `pipeline` (nuclei, cells, kmeans) holds a pixel.
inline double pipeline_bytes_per_pixel(std::string const& pipeline) {
  return pipeline == "cells"    ? cells_bytes_per_pixel
         : pipeline == "kmeans" ? kmeans_bytes_per_pixel
                                : in_memory_bytes_per_pixel;
}

struct Tiling {
  index_t tile_width = 0, tile_height = 0;  // 0: in memory
  std::size_t budget = 0;                   // the host memory limit that was applied, bytes
  std::size_t device_budget = 0;            // the device memory limit, bytes (0: no GPU runs it)
  int threads = 0;                          // reading and writing threads the host budget allows
  ImageShape shape;                         // from the input's header; 0 x 0 for a pipe or device
  std::string input, scratch_folder;
  bool tiled() const noexcept { return tile_width > 0; }
  // The file the engine reads: the input itself, or for a PNG or PGM/PPM its tiled scratch copy
  // in scratch_folder (engine/tiled.hpp, TiledInput), made on the first call and removed when the
  // last copy of this Tiling goes.
  std::string const& engine_input(Session& session) const;
  bool decoded() const noexcept { return source_ && source_->decoded(); }

 private:
  mutable std::shared_ptr<TiledInput> source_;
};

void add_tiling_options(CLI::App& app, std::string& tile, std::string& memory_limit);

// "WxH" (multiples of 16, 16 to 65536), or a usage error naming --tile.
std::pair<index_t, index_t> parse_tile(std::string const& text);
// "N", "NK", "NM" or "NG" bytes, or a usage error naming --memory-limit.
std::size_t parse_bytes(std::string const& text);
// The host memory a run may take: `memory_limit` (parse_bytes), or when empty three quarters of
// the host memory available now.
std::size_t host_budget(std::string const& memory_limit);

// Tiles when --tile is given (a usage error naming it unless WxH, multiples of 16), or 4096x4096
// when ranks share the run or `input` (a file) would need more than the memory limit in memory: --memory-limit (a size
// such as 8G) holds for the host and, when the session's context runs an image of this size on a
// GPU, for the GPU too; by default three quarters of the host memory available now and three
// quarters of the GPU's free memory. A PNG or PGM/PPM is then decoded into a tiled scratch TIFF
// in the folder of `output` (the system's temporary folder when there is none). The threads that
// read and write tiles are as many as io_threads(), fewer where the host budget holds fewer tiles
// in flight.
// `bytes_per_pixel`: what the command's in-memory run holds a pixel (in_memory_bytes_per_pixel for
// most; the cells pipeline holds more).
Tiling choose_tiling(Session const& session, std::string const& input, std::string const& tile,
                     std::string const& memory_limit, std::string const& output = {},
                     double bytes_per_pixel = in_memory_bytes_per_pixel);

// The most pixels read ahead. The read hides at most the runtime's start (0.2-0.4 s with CUDA), and
// a larger image's read takes longer than that anyway; its command may also tile it for a GPU's
// memory, which is known only once the runtime exists, and then the whole read was for nothing.
constexpr index_t read_ahead_pixel_limit = index_t(1) << 29;

// The input of a parsed `command` that reads it whole (the filters, histogram, threshold, kmeans,
// label, segment, watershed's relief), started reading before Kokkos starts (core/io/read_ahead.hpp):
// only a regular file, without --tile, of at most read_ahead_pixel_limit pixels, small enough that
// no command tiles it for the host (its size at cells_bytes_per_pixel within host_budget, which is
// left in `budget`: choose_tiling judges the input by the memory there was before its read).
// Null otherwise, and when the file's header or --memory-limit is bad (the command reports that).
// Where the command later tiles the image (for a GPU's memory), choose_tiling discards the read.
std::unique_ptr<ReadAhead> start_read_ahead(CLI::App const& command, std::size_t& budget);

// The engine's options for `tiling`: its tile size and the progress line.
TiledOptions tiled_options(Tiling const& tiling, Session const& session);

// The "tiled" entry of --json: the tiles, passes, bytes, and the process's peak resident memory;
// with ranks (`group`, collective: every rank calls it), their number and each rank's share
// ("rank_shares": tiles, pixels, bytes, busy seconds, peak resident memory).
nlohmann::json tiled_report(Tiling const& tiling, TiledReport const& report, ProcessGroup const* group);

// A progress line on standard error ("tile 12 of 48, 25%"), redrawn at most five times a second,
// when standard error is a terminal and neither --quiet nor --json is given; else nothing.
std::function<void(index_t, index_t)> progress_line(Session const& session);

}  // namespace gigaseg::cli
