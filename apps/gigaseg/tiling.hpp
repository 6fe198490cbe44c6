#pragma once
// The options of the commands that can run tile by tile (label, segment --pipeline nuclei):
// --tile WxH and --memory-limit SIZE, and the "tiled" entry of their --json report.
#include "apps/gigaseg/cli.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <functional>
#include <string>

namespace gigaseg::cli {

// Bytes a pixel the in-memory runs of these commands hold at their peak: the input (at most 4),
// the labels (4) and the union-find's parents and the statistics' scratch (8).
constexpr double in_memory_bytes_per_pixel = 16;

struct Tiling {
  index_t tile_width = 0, tile_height = 0;  // 0: in memory
  std::size_t budget = 0;                   // the memory limit that was applied, bytes
  bool tiled() const noexcept { return tile_width > 0; }
};

void add_tiling_options(CLI::App& app, std::string& tile, std::string& memory_limit);

// Tiles when --tile is given (a usage error naming it unless WxH, multiples of 16), or 4096x4096
// when `input` is a TIFF whose in-memory run would need more than --memory-limit (a size such as
// 8G; default three quarters of the host memory available now).
Tiling choose_tiling(std::string const& input, std::string const& tile, std::string const& memory_limit);

// The engine's options for `tiling`: its tile size and the progress line.
TiledOptions tiled_options(Tiling const& tiling, Session const& session);

// The "tiled" entry of --json: the tiles, passes, bytes, and the process's peak resident memory.
nlohmann::json tiled_report(Tiling const& tiling, TiledReport const& report);

// A progress line on standard error ("tile 12 of 48, 25%"), redrawn at most five times a second,
// when standard error is a terminal and neither --quiet nor --json is given; else nothing.
std::function<void(index_t, index_t)> progress_line(Session const& session);

}  // namespace gigaseg::cli
