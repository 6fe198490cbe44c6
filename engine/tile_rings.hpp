#pragma once
// The tile engine's rounds for global fixpoints (the watershed's keys, the markers' reconstruction
// and plateaus): each tile is computed with a ring of one pixel around it that holds what its
// neighbours have found on their borders so far; rounds over the tiles whose ring changed go on
// until none changes. The values of the image rows and columns on either side of every seam are
// kept between rounds (Seams); nothing else of a tile is.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/transfer.hpp"
#include "gigaseg/engine/process_group.hpp"
#include "gigaseg/engine/tile_pipeline.hpp"
#include "gigaseg/engine/tile_reader.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace gigaseg::detail {

// f(y) for the rows y of [0, rows) on the host's threads (the per-pixel loops of the engine's
// passes that need no order).
template <class F>
void host_rows(index_t rows, F&& f) {
  Kokkos::parallel_for("gigaseg::tiled::host_rows",
                       Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<index_t>>(0, rows),
                       [&](index_t y) { f(y); });
  Kokkos::DefaultHostExecutionSpace().fence();
}

// The tiles of a width x height image, in raster order: tile t covers core(t).
struct TileGrid {
  index_t width = 0, height = 0, tile_width = 0, tile_height = 0, across = 0, down = 0;
  TileGrid(index_t w, index_t h, index_t tw, index_t th)
      : width(w), height(h), tile_width(tw), tile_height(th), across((w + tw - 1) / tw), down((h + th - 1) / th) {}
  index_t tiles() const noexcept { return across * down; }
  Region core(index_t t) const {
    index_t const x = (t % across) * tile_width, y = (t / across) * tile_height;
    return Region{x, y, std::min(tile_width, width - x), std::min(tile_height, height - y)};
  }
  // Tile t's core with `halo` pixels around it, clipped to the image.
  Region around(index_t t, index_t halo) const {
    Region const c = core(t);
    index_t const x0 = std::max<index_t>(0, c.x - halo), y0 = std::max<index_t>(0, c.y - halo);
    index_t const x1 = std::min(width, c.x + c.width + halo), y1 = std::min(height, c.y + c.height + halo);
    return Region{x0, y0, x1 - x0, y1 - y0};
  }
  // The core and its ring, clipped to the image: what is read of the image for the tile.
  Region ringed(Region const& core) const {
    index_t const x0 = std::max<index_t>(0, core.x - 1), y0 = std::max<index_t>(0, core.y - 1);
    index_t const x1 = std::min(width, core.x + core.width + 1), y1 = std::min(height, core.y + core.height + 1);
    return Region{x0, y0, x1 - x0, y1 - y0};
  }
};

// The tiles of `grid` whose borders make the rings of the tiles `mine`: those tiles and their eight
// neighbours, in raster order (what a rank of a group reads of an image for its share).
inline std::vector<std::size_t> with_neighbours(TileGrid const& grid, std::vector<std::size_t> const& mine) {
  std::vector<char> kept(std::size_t(grid.tiles()), 0);
  for (std::size_t t : mine) {
    index_t const r = index_t(t) / grid.across, c = index_t(t) % grid.across;
    for (index_t dr = -1; dr <= 1; ++dr)
      for (index_t dc = -1; dc <= 1; ++dc)
        if (r + dr >= 0 && r + dr < grid.down && c + dc >= 0 && c + dc < grid.across)
          kept[std::size_t((r + dr) * grid.across + c + dc)] = 1;
  }
  std::vector<std::size_t> tiles;
  for (std::size_t t = 0; t < kept.size(); ++t)
    if (kept[t]) tiles.push_back(t);
  return tiles;
}

// Reads the tiles of a TIFF on `grid` each with its ring of one pixel (grid.ringed(core), what
// read_image_region would give for it) while decoding only the core's own rectangle: the ring of a
// tile lies in its eight neighbours, whose file blocks the region would otherwise decode whole
// (nine blocks for one where the file's blocks are the tiles). A first pass over the file keeps
// every tile's border rows and columns (a few bytes a pixel of the seams); a tile's ring is then
// cut from its neighbours' borders. read() from up to concurrent_reads() threads at once.
class RingedTileReader {
 public:
  RingedTileReader(std::string path, TileGrid const& grid, int threads)
      : RingedTileReader(path, grid, threads, every_tile(grid)) {}
  // Only the tiles `mine` will be read (a rank's share): the first pass reads them and their
  // neighbours.
  RingedTileReader(std::string path, TileGrid const& grid, int threads, std::vector<std::size_t> const& mine)
      : grid_(grid), reader_(path, image_shape(path), grid.tile_width, grid.tile_height) {
    borders_.resize(std::size_t(grid.tiles()));
    std::vector<std::size_t> const kept = with_neighbours(grid, mine);
    TileReader first(path, image_shape(path), grid.tile_width, grid.tile_height);
    pipeline_tiles(
        kept.size(), [&](std::size_t i) { return first.read(grid.core(index_t(kept[i]))); },
        [&](std::size_t i, AnyHostImage&& core) {
          keep(index_t(kept[i]), core);
          return 0;
        },
        [](std::size_t, int) {}, PipelineWorkers{first.concurrent_reads(threads), 1, nullptr});
  }
  // The reads that may run at once (TileReader::concurrent_reads): read() is then safe from as
  // many threads.
  int concurrent_reads(int threads) const { return reader_.concurrent_reads(threads); }
  // Tile t (one of `mine`) and its ring, clipped to the image.
  AnyHostImage read(index_t t) {
    Region const core = grid_.core(t), ringed = grid_.ringed(core);
    AnyHostImage const inside = reader_.read(core);
    return std::visit(
        [&](auto const& in) {
          using Image = std::decay_t<decltype(in)>;
          using T = typename Image::value_type;
          Image out("gigaseg::tiled::ringed", ringed.width, ringed.height);
          index_t const dx = core.x - ringed.x, dy = core.y - ringed.y;
          for (index_t y = 0; y < core.height; ++y)
            std::memcpy(&out(y + dy, dx), in.row(y), std::size_t(core.width) * sizeof(T));
          // The ring pixel (gy, gx), outside the core and inside the image, from its tile's border.
          auto ring = [&](index_t gy, index_t gx) {
            index_t const r = gy / grid_.tile_height, c = gx / grid_.tile_width;
            Region const other = grid_.core(r * grid_.across + c);
            Border const& b = borders_[std::size_t(r * grid_.across + c)];
            index_t const ly = gy - other.y, lx = gx - other.x;
            unsigned char const* from = ly == 0                  ? &b.top[std::size_t(lx) * sizeof(T)]
                                        : ly == other.height - 1 ? &b.bottom[std::size_t(lx) * sizeof(T)]
                                        : lx == 0                ? &b.left[std::size_t(ly) * sizeof(T)]
                                                                 : &b.right[std::size_t(ly) * sizeof(T)];
            std::memcpy(&out(gy - ringed.y, gx - ringed.x), from, sizeof(T));
          };
          for (index_t gx = ringed.x; gx < ringed.x + ringed.width; ++gx) {
            if (ringed.y < core.y) ring(ringed.y, gx);
            if (ringed.y + ringed.height > core.y + core.height) ring(ringed.y + ringed.height - 1, gx);
          }
          for (index_t gy = core.y; gy < core.y + core.height; ++gy) {
            if (ringed.x < core.x) ring(gy, ringed.x);
            if (ringed.x + ringed.width > core.x + core.width) ring(gy, ringed.x + ringed.width - 1);
          }
          return AnyHostImage(std::move(out));
        },
        inside);
  }

 private:
  static std::vector<std::size_t> every_tile(TileGrid const& grid) {
    std::vector<std::size_t> all(std::size_t(grid.tiles()));
    for (std::size_t t = 0; t < all.size(); ++t) all[t] = t;
    return all;
  }
  // A tile's first and last row and column, as bytes.
  struct Border {
    std::vector<unsigned char> top, bottom, left, right;
  };
  void keep(index_t t, AnyHostImage const& core) {
    std::visit(
        [&](auto const& in) {
          using T = typename std::decay_t<decltype(in)>::value_type;
          index_t const w = in.width(), h = in.height();
          Border& b = borders_[std::size_t(t)];
          b.top.resize(std::size_t(w) * sizeof(T));
          b.bottom.resize(std::size_t(w) * sizeof(T));
          b.left.resize(std::size_t(h) * sizeof(T));
          b.right.resize(std::size_t(h) * sizeof(T));
          std::memcpy(b.top.data(), in.row(0), b.top.size());
          std::memcpy(b.bottom.data(), in.row(h - 1), b.bottom.size());
          for (index_t y = 0; y < h; ++y) {
            std::memcpy(&b.left[std::size_t(y) * sizeof(T)], &in(y, 0), sizeof(T));
            std::memcpy(&b.right[std::size_t(y) * sizeof(T)], &in(y, w - 1), sizeof(T));
          }
        },
        core);
  }
  TileGrid grid_;
  TileReader reader_;
  std::vector<Border> borders_;
};

// `image` (read from `extended`, the tile's ring clipped to the image) copied into a
// (core.width + 2) x (core.height + 2) image with `convert(value)`, zero beyond the image; an
// image whose pixels `convert` does not take is an Error(input) naming `path`: `refusal` and the
// pixel type. Exact: only pixels of type Out.
template <class Out, bool Exact, class Convert>
HostImage<Out> ringed_copy(AnyHostImage const& image, Region const& core, Region const& extended, Convert&& convert,
                           std::string const& path, char const* refusal) {
  HostImage<Out> out("gigaseg::tiled::ringed", core.width + 2, core.height + 2);
  if (extended.width != out.width() || extended.height != out.height()) {  // the ring leaves the image
    for (index_t y = 0; y < out.height(); ++y)
      for (index_t x = 0; x < out.width(); ++x) out(y, x) = Out(0);
  }
  bool done = false;
  std::visit(
      [&](auto const& in) {
        using T = typename std::decay_t<decltype(in)>::value_type;
        if constexpr (Exact ? std::is_same<T, Out>::value : std::is_invocable<Convert, T>::value) {
          index_t const dy = extended.y - (core.y - 1), dx = extended.x - (core.x - 1);
          for (index_t y = 0; y < in.height(); ++y)
            for (index_t x = 0; x < in.width(); ++x) out(y + dy, x + dx) = Out(convert(in(y, x)));
          done = true;
        }
      },
      image);
  GIGASEG_REQUIRE(done, ErrorKind::input, path, std::string(refusal) + to_string(pixel_type(image)));
  return out;
}

// The values (V) of the pixels on either side of every seam between tiles: the rows
// k * tile_height - 1 and k * tile_height, and the columns likewise. Pixels not yet computed, and
// pixels outside the image, hold `unknown`.
template <class V>
class Seams {
 public:
  Seams(TileGrid const& grid, V unknown)
      : grid_(grid),
        unknown_(unknown),
        rows_(std::size_t(2 * (grid.down - 1) * grid.width), unknown),
        columns_(std::size_t(2 * (grid.across - 1) * grid.height), unknown) {}
  V get(index_t y, index_t x) const {
    std::size_t i = 0;
    if (y < 0 || x < 0 || y >= grid_.height || x >= grid_.width) return unknown_;
    if (row_index(y, x, i)) return rows_[i];
    if (column_index(y, x, i)) return columns_[i];
    return unknown_;
  }
  // Stores pixel (y, x) wherever it lies on a seam; whether that changed anything.
  bool put(index_t y, index_t x, V const& value) {
    bool changed = false;
    std::size_t i = 0;
    if (row_index(y, x, i)) {
      changed = changed || !(rows_[i] == value);
      rows_[i] = value;
    }
    if (column_index(y, x, i)) {
      changed = changed || !(columns_[i] == value);
      columns_[i] = value;
    }
    return changed;
  }
  // The ring of tile `core` into `image` ((core.width + 2) x (core.height + 2); its inside is left).
  void ring_into(Region const& core, HostImage<V> const& image) const {
    index_t const w = core.width + 2, h = core.height + 2;
    for (index_t y = 0; y < h; ++y)
      for (index_t x = 0; x < w; x += (y == 0 || y == h - 1) ? 1 : w - 1)
        image(y, x) = get(core.y - 1 + y, core.x - 1 + x);
  }

 private:
  // The slot of a seam line through `at` (a row or a column): the lines at k * tile - 1 and k * tile.
  static bool line(index_t at, index_t tile, index_t size, std::size_t& slot) {
    index_t const k = (at + 1) / tile;
    if (k < 1 || k * tile >= size) return false;
    if (at == k * tile - 1) return slot = std::size_t(2 * (k - 1)), true;
    if (at == k * tile) return slot = std::size_t(2 * (k - 1) + 1), true;
    return false;
  }
  bool row_index(index_t y, index_t x, std::size_t& i) const {
    std::size_t slot = 0;
    if (!line(y, grid_.tile_height, grid_.height, slot)) return false;
    i = slot * std::size_t(grid_.width) + std::size_t(x);
    return true;
  }
  bool column_index(index_t y, index_t x, std::size_t& i) const {
    std::size_t slot = 0;
    if (!line(x, grid_.tile_width, grid_.width, slot)) return false;
    i = slot * std::size_t(grid_.height) + std::size_t(y);
    return true;
  }
  TileGrid grid_;
  V unknown_;
  std::vector<V> rows_, columns_;
};

// The border rows and columns of a tile computed in `ringed` (the tile and its ring, on `space`):
// its top row, bottom row, left column and right column, in that order, on the host.
template <class Space, class T>
std::vector<std::remove_const_t<T>> border_of(Space const& space,
                                              ImageView<T, typename Space::memory_space> const& ringed) {
  index_t const w = ringed.width() - 2, h = ringed.height() - 2;
  std::vector<std::remove_const_t<T>> border;
  border.reserve(std::size_t(2 * (w + h)));
  for (Region const& line : {Region{1, 1, w, 1}, Region{1, h, w, 1}, Region{1, 1, 1, h}, Region{w, 1, 1, h}}) {
    HostImage<std::remove_const_t<T>> const part =
        clone<Kokkos::HostSpace>(space, ringed.roi(line.x, line.y, line.width, line.height), "gigaseg::tiled::border");
    space.fence();
    for (index_t y = 0; y < line.height; ++y)
      for (index_t x = 0; x < line.width; ++x) border.push_back(part(y, x));
  }
  return border;
}

// Rounds over the tiles of `grid` until no tile's ring changes: round 1 computes every tile, each
// later round the tiles next to a border that changed in the round before, in raster order (a
// tile sees the borders computed before it in its round). read(t) reads tile t's inputs (on
// `readers` threads at once, ahead); compute(t, input) computes it with its ring from `seams` and
// returns its border (border_of's order), which goes into the seams. Returns the rounds and the
// tiles computed.
//
// On a group of ranks each rank computes only its tiles (owned_tiles) and keeps the seams of the
// whole image: after each round the borders that changed meet on every rank (all_gather), marking
// the rank's tiles beside them, and the rounds end when no rank has a tile to compute. Every tile's
// last computation then saw its final ring, as on one process: the fixpoint of the monotone updates
// does not depend on the order the tiles were computed in. The counts are the whole group's.
struct RoundsDone {
  index_t rounds = 0, computations = 0;
};
template <class V, class Read, class Compute>
RoundsDone ring_rounds(TileGrid const& grid, Seams<V>& seams, Read&& read, Compute&& compute, StageSeconds* seconds,
                       std::function<void(index_t, index_t)> const& progress = {}, int readers = 1,
                       ProcessGroup const* group = nullptr) {
  static_assert(std::is_trivially_copyable<V>::value, "seam values travel between ranks as bytes");
  index_t const tiles = grid.tiles();
  bool const shared = group_size(group) > 1;
  std::vector<char> dirty(std::size_t(tiles), 0), mine(std::size_t(tiles), 0);
  for (std::size_t t : owned_tiles(std::size_t(tiles), group)) dirty[t] = mine[t] = 1;
  auto mark = [&](index_t r, index_t c) {
    if (r >= 0 && r < grid.down && c >= 0 && c < grid.across) dirty[std::size_t(r * grid.across + c)] = 1;
  };
  // Tile t's border into the seams, its neighbours beyond a side that changed marked; whether any did.
  auto store = [&](index_t t, std::vector<V> const& border) {
    Region const core = grid.core(t);
    index_t const r = t / grid.across, c = t % grid.across;
    // Which sides changed, judged before any is stored: a corner pixel lies on two sides, and
    // storing one side first would hide the other's change (and its neighbours' marks).
    auto at = [&](int side, index_t j, index_t& y, index_t& x) {
      y = side == 0 ? core.y : side == 1 ? core.y + core.height - 1 : core.y + j;
      x = side == 2 ? core.x : side == 3 ? core.x + core.width - 1 : core.x + j;
    };
    GIGASEG_REQUIRE(border.size() == std::size_t(2 * (core.width + core.height)), ErrorKind::internal, "ring_rounds",
                    "a tile's border has the wrong length");
    bool changed[4] = {false, false, false, false};
    std::size_t k = 0;
    for (int side = 0; side < 4; ++side) {
      index_t const n = side < 2 ? core.width : core.height;
      for (index_t j = 0; j < n; ++j, ++k) {
        index_t y, x;
        at(side, j, y, x);
        changed[side] = changed[side] || !(seams.get(y, x) == border[k]);
      }
    }
    k = 0;
    for (int side = 0; side < 4; ++side) {
      index_t const n = side < 2 ? core.width : core.height;
      for (index_t j = 0; j < n; ++j, ++k) {
        index_t y, x;
        at(side, j, y, x);
        seams.put(y, x, border[k]);
      }
      if (!changed[side]) continue;
      for (index_t d = -1; d <= 1; ++d) {  // the neighbours beyond that side, corners included
        if (side == 0) mark(r - 1, c + d);
        if (side == 1) mark(r + 1, c + d);
        if (side == 2) mark(r + d, c - 1);
        if (side == 3) mark(r + d, c + 1);
      }
    }
    return changed[0] || changed[1] || changed[2] || changed[3];
  };
  RoundsDone done;
  for (;;) {
    std::vector<index_t> todo;
    for (index_t t = 0; t < tiles; ++t)
      if (dirty[std::size_t(t)] && mine[std::size_t(t)]) todo.push_back(t);
    std::uint64_t pending = todo.size();
    if (shared) group->sum(&pending, 1);
    if (pending == 0) return done;
    ++done.rounds;
    done.computations += index_t(pending);
    std::vector<unsigned char> changed;  // (tile, border) of this rank's tiles whose border changed
    collectively(group, [&] {
      pipeline_tiles(
          todo.size(), [&](std::size_t i) { return read(todo[i]); },
          [&](std::size_t i, auto&& input) {
            index_t const t = todo[i];
            dirty[std::size_t(t)] = 0;
            std::vector<V> const border = compute(t, std::move(input));
            if (store(t, border) && shared) {
              std::uint64_t const tile = std::uint64_t(t);
              append_bytes(changed, &tile, 1);
              append_bytes(changed, border);
            }
            if (progress) progress(index_t(i) + 1, index_t(todo.size()));
            return 0;
          },
          [](std::size_t, int) {}, PipelineWorkers{readers, 1, seconds});
    });
    if (!shared) continue;
    std::vector<std::vector<unsigned char>> const all = group->all_gather(changed);
    for (int from = 0; from < group->size(); ++from) {
      if (from == group->rank()) continue;
      for (ByteReader in(all[std::size_t(from)]); !in.done();) {
        index_t const t = index_t(in.value<std::uint64_t>());
        store(t, in.values<V>());
      }
    }
  }
}

}  // namespace gigaseg::detail
