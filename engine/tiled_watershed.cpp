// The marker-based watershed under tiling (engine/tiled.hpp, watershed_tiled): rounds of tiles,
// each relaxed with a ring of its neighbours' border keys and labels (watershed_tile), until no
// border changes; then a last pass writes every tile's labels.
#include "gigaseg/algorithms/watershed.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/tile_writer.hpp"
#include "gigaseg/engine/on_backend.hpp"
#include "gigaseg/engine/tile_pipeline.hpp"
#include "gigaseg/engine/tile_reader.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace gigaseg {
namespace {

// The keys and labels of the image rows and columns on either side of every seam between tiles:
// rows k * tile_height - 1 and k * tile_height for k = 1 .. down - 1, and the columns likewise.
// A tile's ring lies on them (outside the image: unreached, 0), and a tile writes its border rows
// and columns there after each computation.
class Seams {
 public:
  Seams(index_t width, index_t height, index_t tile_width, index_t tile_height)
      : width_(width), height_(height), tile_width_(tile_width), tile_height_(tile_height) {
    index_t const down = (height + tile_height - 1) / tile_height, across = (width + tile_width - 1) / tile_width;
    row_keys_.assign(std::size_t(2 * (down - 1) * width), watershed_key_unreached);
    row_labels_.assign(row_keys_.size(), 0);
    column_keys_.assign(std::size_t(2 * (across - 1) * height), watershed_key_unreached);
    column_labels_.assign(column_keys_.size(), 0);
  }
  // The key and label of image pixel (y, x), which lies on a seam row or column (or outside the image).
  void get(index_t y, index_t x, std::uint64_t& key, Label& label) const {
    key = watershed_key_unreached;
    label = 0;
    if (y < 0 || x < 0 || y >= height_ || x >= width_) return;
    std::size_t i = 0;
    if (row_index(y, x, i)) {
      key = row_keys_[i];
      label = row_labels_[i];
    } else if (column_index(y, x, i)) {
      key = column_keys_[i];
      label = column_labels_[i];
    }
  }
  // Stores pixel (y, x) wherever it lies on a seam; returns whether that changed anything.
  bool put(index_t y, index_t x, std::uint64_t key, Label label) {
    bool changed = false;
    std::size_t i = 0;
    if (row_index(y, x, i)) {
      changed = changed || row_keys_[i] != key || row_labels_[i] != label;
      row_keys_[i] = key;
      row_labels_[i] = label;
    }
    if (column_index(y, x, i)) {
      changed = changed || column_keys_[i] != key || column_labels_[i] != label;
      column_keys_[i] = key;
      column_labels_[i] = label;
    }
    return changed;
  }

 private:
  // The slot of a seam line through `at` (a row or column index): the lines at k * tile - 1 and k * tile.
  static bool line(index_t at, index_t tile, index_t size, std::size_t& slot) {
    index_t const k = (at + 1) / tile;
    if (k < 1 || k * tile >= size) return false;
    if (at == k * tile - 1) return slot = std::size_t(2 * (k - 1)), true;
    if (at == k * tile) return slot = std::size_t(2 * (k - 1) + 1), true;
    return false;
  }
  bool row_index(index_t y, index_t x, std::size_t& i) const {
    std::size_t slot = 0;
    if (!line(y, tile_height_, height_, slot)) return false;
    i = slot * std::size_t(width_) + std::size_t(x);
    return true;
  }
  bool column_index(index_t y, index_t x, std::size_t& i) const {
    std::size_t slot = 0;
    if (!line(x, tile_width_, width_, slot)) return false;
    i = slot * std::size_t(height_) + std::size_t(y);
    return true;
  }
  index_t width_, height_, tile_width_, tile_height_;
  std::vector<std::uint64_t> row_keys_, column_keys_;
  std::vector<Label> row_labels_, column_labels_;
};

// A tile and its ring as read: the relief (8/16-bit or float), the markers and the mask (0: outside),
// (tile width + 2) x (tile height + 2), with zeros (no marker, outside the mask) beyond the image.
struct RingedTile {
  std::variant<HostImage<std::uint8_t>, HostImage<std::uint16_t>, HostImage<float>> relief;
  HostImage<Label> markers;
  HostImage<std::uint8_t> mask;
};

// `image` (read from `extended`, the tile's ring clipped to the image) copied into a
// (core.width + 2) x (core.height + 2) image with `convert(value)`, zero beyond the image; an
// image whose pixels `convert` does not take is an Error(input) naming `path`: `refusal` and the
// pixel type. Exact: only pixels of type Out.
template <class Out, bool Exact, class Convert>
HostImage<Out> ringed(AnyHostImage const& image, Region const& core, Region const& extended, Convert&& convert,
                      std::string const& path, char const* refusal) {
  HostImage<Out> out("gigaseg::tiled::ringed", core.width + 2, core.height + 2);
  for (index_t y = 0; y < out.height(); ++y)
    for (index_t x = 0; x < out.width(); ++x) out(y, x) = Out(0);
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

}  // namespace

TiledWatershedResult watershed_tiled(ExecutionContext const& context, std::string const& relief,
                                     std::string const& markers, std::string const& mask, std::string const& output,
                                     WatershedParams const& params, TiledOptions const& options) {
  GIGASEG_REQUIRE(options.tile_width >= 16 && options.tile_width % 16 == 0 && options.tile_height >= 16 &&
                      options.tile_height % 16 == 0,
                  ErrorKind::usage, "TiledOptions::tile_width",
                  "tile sizes must be multiples of 16 (they are the output's TIFF tiles)");
  GIGASEG_REQUIRE(params.connectivity == 4 || params.connectivity == 8, ErrorKind::usage,
                  "WatershedParams::connectivity", "connectivity must be 4 or 8");
  ImageShape const shape = image_shape(relief);
  auto same_size = [&](std::string const& path) {
    ImageShape const other = image_shape(path);
    GIGASEG_REQUIRE(other.width == shape.width && other.height == shape.height, ErrorKind::input, path,
                    std::to_string(other.width) + "x" + std::to_string(other.height) + " differs from the relief's " +
                        std::to_string(shape.width) + "x" + std::to_string(shape.height));
  };
  same_size(markers);
  if (!mask.empty()) same_size(mask);
  index_t const width = shape.width, height = shape.height, tw = options.tile_width, th = options.tile_height;
  index_t const across = (width + tw - 1) / tw, down = (height + th - 1) / th, tiles = across * down;
  auto core_of = [&](index_t t) {
    index_t const x = (t % across) * tw, y = (t / across) * th;
    return Region{x, y, std::min(tw, width - x), std::min(th, height - y)};
  };
  auto extended_of = [&](Region const& core) {
    index_t const x0 = std::max<index_t>(0, core.x - 1), y0 = std::max<index_t>(0, core.y - 1);
    index_t const x1 = std::min(width, core.x + core.width + 1), y1 = std::min(height, core.y + core.height + 1);
    return Region{x0, y0, x1 - x0, y1 - y0};
  };
  TiledWatershedResult result;
  result.report.tiles = tiles;
  Seams seams(width, height, tw, th);
  detail::TileReader relief_reader(relief, shape, tw, th), marker_reader(markers, image_shape(markers), tw, th);
  std::optional<detail::TileReader> mask_reader;
  if (!mask.empty()) mask_reader.emplace(mask, image_shape(mask), tw, th);
  int const threads = options.threads > 0 ? options.threads : io_threads();
  detail::DevicePeak const device_peak;
  auto read = [&](index_t t) {
    Region const core = core_of(t), extended = extended_of(core);
    RingedTile tile;
    AnyHostImage const r = relief_reader.read(extended);
    result.report.pixel_bytes_read += std::size_t(extended.width * extended.height * bytes_per_pixel(pixel_type(r)));
    auto same = [](auto v) { return v; };
    char const* const bad_relief = "the relief must be 8/16-bit or float, not ";
    if (std::holds_alternative<HostImage<std::uint16_t>>(r))
      tile.relief = ringed<std::uint16_t, true>(r, core, extended, same, relief, bad_relief);
    else if (std::holds_alternative<HostImage<float>>(r))
      tile.relief = ringed<float, true>(r, core, extended, same, relief, bad_relief);
    else
      tile.relief = ringed<std::uint8_t, true>(r, core, extended, same, relief, bad_relief);
    auto as_label = [](auto v) -> std::enable_if_t<std::is_unsigned<decltype(v)>::value, Label> { return Label(v); };
    tile.markers = ringed<Label, false>(marker_reader.read(extended), core, extended, as_label, markers,
                                        "the markers must be an 8, 16 or 32-bit label image, not ");
    if (mask_reader) {
      auto inside = [](auto v) -> std::enable_if_t<std::is_arithmetic<decltype(v)>::value, std::uint8_t> {
        return v != 0 ? 1 : 0;
      };
      tile.mask = ringed<std::uint8_t, false>(mask_reader->read(extended), core, extended, inside, mask,
                                              "the mask must be a gray image, not ");
    } else {  // inside the image
      tile.mask = HostImage<std::uint8_t>("gigaseg::tiled::ringed", core.width + 2, core.height + 2);
      for (index_t y = 0; y < core.height + 2; ++y)
        for (index_t x = 0; x < core.width + 2; ++x) {
          index_t const gy = core.y - 1 + y, gx = core.x - 1 + x;
          tile.mask(y, x) = gy >= 0 && gy < height && gx >= 0 && gx < width ? 1 : 0;
        }
    }
    return tile;
  };

  // Tile t on the backend, with its ring from the seams: its keys and labels; `with_labels`
  // (else its border rows and columns only, into the seams, and returns an empty image).
  std::vector<char> dirty(std::size_t(tiles), 1);
  auto compute = [&](index_t t, RingedTile&& tile, bool final_pass) {
    Region const core = core_of(t);
    index_t const w = core.width + 2, h = core.height + 2;
    HostImage<std::uint64_t> ring_keys("gigaseg::tiled::ring_keys", w, h);
    HostImage<Label> ring_labels("gigaseg::tiled::ring_labels", w, h);
    for (index_t y = 0; y < h; ++y)
      for (index_t x = 0; x < w; ++x)
        if (y == 0 || x == 0 || y == h - 1 || x == w - 1)
          seams.get(core.y - 1 + y, core.x - 1 + x, ring_keys(y, x), ring_labels(y, x));
    HostImage<Label> labels;
    std::vector<std::uint64_t> border_keys;
    std::vector<Label> border_labels;
    on_backend(context, w * h, OpFamily::distance, [&](auto const& space) {
      using Memory = typename std::decay_t<decltype(space)>::memory_space;
      ImageView<std::uint64_t, Memory> const keys = upload(space, ring_keys);
      ImageView<Label, Memory> const out = upload(space, ring_labels);
      std::visit(
          [&](auto const& r) {
            using T = typename std::decay_t<decltype(r)>::value_type;
            watershed_tile(space, ImageView<T const, Memory>(upload(space, r)),
                           ImageView<Label const, Memory>(upload(space, tile.markers)), keys, out, params,
                           ImageView<std::uint8_t const, Memory>(upload(space, tile.mask)));
          },
          tile.relief);
      if (final_pass) {
        labels = download(space, out);
      } else {  // the tile's border rows and columns, in the order top, bottom, left, right
        for (Region const& line : {Region{1, 1, core.width, 1}, Region{1, core.height, core.width, 1},
                                   Region{1, 1, 1, core.height}, Region{core.width, 1, 1, core.height}}) {
          HostImage<std::uint64_t> const k = clone<Kokkos::HostSpace>(
              space, keys.roi(line.x, line.y, line.width, line.height), "gigaseg::tiled::edge");
          HostImage<Label> const l =
              clone<Kokkos::HostSpace>(space, out.roi(line.x, line.y, line.width, line.height), "gigaseg::tiled::edge");
          space.fence();
          for (index_t y = 0; y < line.height; ++y)
            for (index_t x = 0; x < line.width; ++x) border_keys.push_back(k(y, x)), border_labels.push_back(l(y, x));
        }
      }
      device_peak.sample(space, result.report.peak_device_bytes);
    });
    result.report.peak_tile_bytes =
        std::max(result.report.peak_tile_bytes, std::size_t(w * h) * (sizeof(float) + 2 * sizeof(Label) + 1 + 2 * 8));
    if (final_pass) return labels.roi(1, 1, core.width, core.height);
    // Into the seams; the neighbours beyond a border that changed must be computed again.
    index_t const c = t % across, r = t / across;
    auto mark = [&](index_t rr, index_t cc) {
      if (rr >= 0 && rr < down && cc >= 0 && cc < across) dirty[std::size_t(rr * across + cc)] = 1;
    };
    std::size_t i = 0;
    for (int side = 0; side < 4; ++side) {
      bool changed = false;
      index_t const n = side < 2 ? core.width : core.height;
      for (index_t j = 0; j < n; ++j, ++i) {
        index_t const y = side == 0 ? core.y : side == 1 ? core.y + core.height - 1 : core.y + j;
        index_t const x = side == 2 ? core.x : side == 3 ? core.x + core.width - 1 : core.x + j;
        changed = seams.put(y, x, border_keys[i], border_labels[i]) || changed;
      }
      if (!changed) continue;
      for (index_t k = -1; k <= 1; ++k) {
        if (side == 0) mark(r - 1, c + k);
        if (side == 1) mark(r + 1, c + k);
        if (side == 2) mark(r + k, c - 1);
        if (side == 3) mark(r + k, c + 1);
      }
    }
    return HostImage<Label>();
  };

  // Rounds over the tiles whose rings changed (all at first), in raster order: a tile computed
  // later in a round sees the borders of those computed before it.
  for (;;) {
    std::vector<index_t> todo;
    for (index_t t = 0; t < tiles; ++t)
      if (dirty[std::size_t(t)]) todo.push_back(t);
    if (todo.empty()) break;
    ++result.rounds;
    result.tile_computations += index_t(todo.size());
    detail::pipeline_tiles(
        todo.size(), [&](std::size_t i) { return read(todo[i]); },
        [&](std::size_t i, RingedTile&& tile) {
          dirty[std::size_t(todo[i])] = 0;
          compute(todo[i], std::move(tile), false);
          if (options.progress) options.progress(index_t(i) + 1, index_t(todo.size()));
          return 0;
        },
        [](std::size_t, int) {}, detail::PipelineWorkers{1, 1, &result.report.seconds});
  }

  // The last pass: every tile again, its labels written.
  TiffTileWriter writer(output, width, height, PixelType::u32, tw, th, options.write);
  detail::pipeline_tiles(
      std::size_t(tiles), [&](std::size_t t) { return read(index_t(t)); },
      [&](std::size_t t, RingedTile&& tile) {
        HostImage<Label> labels = compute(index_t(t), std::move(tile), true);
        result.report.pixel_bytes_written += std::size_t(labels.width() * labels.height()) * sizeof(Label);
        if (options.progress) options.progress(index_t(t) + 1, tiles);
        return labels;
      },
      [&](std::size_t t, HostImage<Label>&& labels) {
        writer.write_tile(index_t(t) % across, index_t(t) / across, labels);
      },
      detail::PipelineWorkers{1, threads, &result.report.seconds});
  writer.commit();
  result.tile_computations += tiles;
  result.report.passes = result.rounds + 1;
  return result;
}

}  // namespace gigaseg
