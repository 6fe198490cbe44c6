// The marker-based watershed under tiling (engine/tiled.hpp, watershed_tiled): rounds of tiles,
// each relaxed with a ring of its neighbours' border keys and labels (watershed_tile), until no
// border changes; then a last pass writes every tile's labels as its last computation left them.
// On a group of ranks each rank relaxes its own tiles and the changed borders meet after each
// round (detail::ring_rounds).
#include "gigaseg/algorithms/watershed.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/tile_writer.hpp"
#include "gigaseg/engine/on_backend.hpp"
#include "gigaseg/engine/process_group.hpp"
#include "gigaseg/engine/tile_pipeline.hpp"
#include "gigaseg/engine/tile_reader.hpp"
#include "gigaseg/engine/tile_rings.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace gigaseg {
namespace {

// What the seams keep of a pixel: its key and label.
struct KeyLabel {
  std::uint64_t key = watershed_key_unreached;
  Label label = 0;
  bool operator==(KeyLabel const& o) const noexcept { return key == o.key && label == o.label; }
};

// A tile and its ring as read: the relief (8/16-bit or float), the markers and the mask (0: outside),
// (tile width + 2) x (tile height + 2), with zeros (no marker, outside the mask) beyond the image.
struct RingedTile {
  std::variant<HostImage<std::uint8_t>, HostImage<std::uint16_t>, HostImage<float>> relief;
  HostImage<Label> markers;
  HostImage<std::uint8_t> mask;
};

}  // namespace

TiledWatershedResult watershed_tiled(ExecutionContext const& context, std::string const& relief,
                                     std::string const& markers, std::string const& mask, std::string const& output,
                                     WatershedParams const& params, TiledOptions const& options) {
  detail::require_tile_sizes(options);
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
  detail::TileGrid const grid(width, height, tw, th);
  index_t const across = grid.across, tiles = grid.tiles();
  TiledWatershedResult result;
  result.report.tiles = tiles;
  detail::Seams<KeyLabel> seams(grid, KeyLabel{});
  std::vector<std::size_t> const mine = detail::owned_tiles(std::size_t(tiles), options.group);
  result.report.rank_tiles = index_t(mine.size());
  for (std::size_t t : mine) result.report.rank_pixels += grid.core(index_t(t)).width * grid.core(index_t(t)).height;
  int const threads = options.threads > 0 ? options.threads : io_threads();
  std::optional<detail::RingedTileReader> relief_reader, marker_reader, mask_reader;
  // The labels of each tile's last computation: its ring did not change after it (else the tile
  // would have been computed again), so they are its final labels.
  std::unique_ptr<detail::TileStore<Label>> stored;
  detail::collectively(options.group, [&] {
    relief_reader.emplace(relief, grid, threads, mine);
    marker_reader.emplace(markers, grid, threads, mine);
    if (!mask.empty()) mask_reader.emplace(mask, grid, threads, mine);
    stored = std::make_unique<detail::TileStore<Label>>(detail::folder_of(output), "watershed-labels", tw * th);
  });
  detail::DevicePeak const device_peak;
  // The reads run on several threads at once: the bytes they count are added up atomically.
  std::atomic<std::size_t> bytes_read{0};
  int const readers =
      detail::ring_readers(std::min(relief_reader->concurrent_reads(threads),
                                    std::min(marker_reader->concurrent_reads(threads),
                                             mask_reader ? mask_reader->concurrent_reads(threads) : threads)));
  auto read = [&](index_t t) {
    Region const core = grid.core(t), extended = grid.ringed(core);
    RingedTile tile;
    AnyHostImage const r = relief_reader->read(t);
    bytes_read += std::size_t(extended.width * extended.height * bytes_per_pixel(pixel_type(r)));
    auto same = [](auto v) { return v; };
    char const* const bad_relief = "the relief must be 8/16-bit or float, not ";
    if (std::holds_alternative<HostImage<std::uint16_t>>(r))
      tile.relief = detail::ringed_copy<std::uint16_t, true>(r, core, extended, same, relief, bad_relief);
    else if (std::holds_alternative<HostImage<float>>(r))
      tile.relief = detail::ringed_copy<float, true>(r, core, extended, same, relief, bad_relief);
    else
      tile.relief = detail::ringed_copy<std::uint8_t, true>(r, core, extended, same, relief, bad_relief);
    auto as_label = [](auto v) -> std::enable_if_t<std::is_unsigned<decltype(v)>::value, Label> { return Label(v); };
    tile.markers = detail::ringed_copy<Label, false>(marker_reader->read(t), core, extended, as_label, markers,
                                                     "the markers must be an 8, 16 or 32-bit label image, not ");
    if (mask_reader) {
      auto inside = [](auto v) -> std::enable_if_t<std::is_arithmetic<decltype(v)>::value, std::uint8_t> {
        return v != 0 ? 1 : 0;
      };
      tile.mask = detail::ringed_copy<std::uint8_t, false>(mask_reader->read(t), core, extended, inside, mask,
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

  // Tile t on the backend, with its ring from the seams: its labels into `stored`, its border keys
  // and labels (detail::border_of's order) returned.
  auto compute = [&](index_t t, RingedTile&& tile) {
    Region const core = grid.core(t);
    index_t const w = core.width + 2, h = core.height + 2;
    // The ring's keys and labels from the seams (the inside is watershed_tile's to fill).
    HostImage<std::uint64_t> ring_keys("gigaseg::tiled::ring_keys", w, h);
    HostImage<Label> ring_labels("gigaseg::tiled::ring_labels", w, h);
    for (index_t y = 0; y < h; ++y)
      for (index_t x = 0; x < w; x += (y == 0 || y == h - 1) ? 1 : w - 1) {
        KeyLabel const v = seams.get(core.y - 1 + y, core.x - 1 + x);
        ring_keys(y, x) = v.key, ring_labels(y, x) = v.label;
      }
    std::vector<KeyLabel> border;
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
      space.fence();
      stored->put(t, download(space, out.roi(1, 1, core.width, core.height)));
      std::vector<std::uint64_t> const k = detail::border_of(space, keys);
      std::vector<Label> const l = detail::border_of(space, out);
      for (std::size_t i = 0; i < k.size(); ++i) border.push_back(KeyLabel{k[i], l[i]});
      device_peak.sample(space, result.report.peak_device_bytes);
    });
    result.report.peak_tile_bytes =
        std::max(result.report.peak_tile_bytes, std::size_t(w * h) * (sizeof(float) + 2 * sizeof(Label) + 1 + 2 * 8));
    return border;
  };

  // Rounds until no border changes (detail::ring_rounds).
  detail::RoundsDone const rounds =
      detail::ring_rounds(grid, seams, read, compute, &result.report.seconds, options.progress, readers, options.group);
  result.rounds = rounds.rounds;
  result.tile_computations = rounds.computations;

  // The last pass: every tile's stored labels written (this rank's tiles; rank 0 writes the file).
  std::unique_ptr<detail::SharedTileWriter> writer;
  detail::collectively(options.group, [&] {
    writer = std::make_unique<detail::SharedTileWriter>(options.group, output, width, height, PixelType::u32, tw, th,
                                                        options.write);
    detail::pipeline_tiles(
        mine.size(),
        [&](std::size_t i) {
          Region const core = grid.core(index_t(mine[i]));
          return stored->get(index_t(mine[i]), core.width, core.height);
        },
        [&](std::size_t i, HostImage<Label>&& labels) {
          result.report.pixel_bytes_written += std::size_t(labels.width() * labels.height()) * sizeof(Label);
          if (options.progress) options.progress(index_t(i) + 1, index_t(mine.size()));
          return std::move(labels);
        },
        [&](std::size_t i, HostImage<Label>&& labels) {
          writer->write_tile(index_t(mine[i]) % across, index_t(mine[i]) / across, labels);
        },
        detail::PipelineWorkers{threads, threads, &result.report.seconds});
  });
  writer->commit();
  result.report.pixel_bytes_read += bytes_read;
  result.report.passes = result.rounds + 1;
  return result;
}

}  // namespace gigaseg
