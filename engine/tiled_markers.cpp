// distance_markers() under tiling (engine/tiled.hpp, distance_markers_tiled): the reconstruction
// and the plateaus in rounds of tiles with rings, the markers labelled by label_tiled, the
// minimum separation from per-marker sums. On a group of ranks each rank computes its own tiles:
// the rounds exchange the changed borders (detail::ring_rounds), the per-marker sums are summed
// over the ranks, and the scratch images lie in the output's folder, written by rank 0 and read by all.
#include "gigaseg/algorithms/markers.hpp"
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
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace gigaseg {

TiledMarkersResult distance_markers_tiled(ExecutionContext const& context, std::string const& distance,
                                          std::string const& output, MarkerParams const& params,
                                          TiledOptions const& options) {
  detail::require_tile_sizes(options);
  GIGASEG_REQUIRE(params.h > 0, ErrorKind::usage, "MarkerParams::h", "the h-maxima height must be positive");
  GIGASEG_REQUIRE(params.min_separation >= 0, ErrorKind::usage, "MarkerParams::min_separation", "must not be negative");
  GIGASEG_REQUIRE(params.connectivity == 4 || params.connectivity == 8, ErrorKind::usage, "MarkerParams::connectivity",
                  "connectivity must be 4 or 8");
  ImageShape const shape = image_shape(distance);
  detail::TileGrid const grid(shape.width, shape.height, options.tile_width, options.tile_height);
  index_t const tiles = grid.tiles();
  TiledMarkersResult result;
  result.report.tiles = tiles;
  int const threads = options.threads > 0 ? options.threads : io_threads();
  detail::DevicePeak const device_peak;
  float const lowest = std::numeric_limits<float>::lowest();
  detail::Seams<float> rec_seams(grid, lowest);
  detail::Seams<std::uint8_t> lower_seams(grid, 0);
  ProcessGroup const* const group = options.group;
  std::vector<std::size_t> const mine = detail::owned_tiles(std::size_t(tiles), group);
  result.report.rank_tiles = index_t(mine.size());
  for (std::size_t t : mine) result.report.rank_pixels += grid.core(index_t(t)).width * grid.core(index_t(t)).height;
  std::string const folder = detail::folder_of(output);
  std::optional<detail::RingedTileReader> reader;
  // The reconstruction of each tile's last computation in its rounds (its final ring, so its final
  // values), read back by the passes after them instead of computing the tile again; the flags
  // likewise, removed once the peaks are written.
  std::unique_ptr<detail::TileStore<float>> stored;
  std::unique_ptr<detail::TileStore<std::uint8_t>> stored_flags;
  detail::collectively(group, [&] {
    reader.emplace(distance, grid, threads, mine);
    stored = std::make_unique<detail::TileStore<float>>(folder, "reconstruction", grid.tile_width * grid.tile_height);
    stored_flags =
        std::make_unique<detail::TileStore<std::uint8_t>>(folder, "flags", grid.tile_width * grid.tile_height);
  });
  // A tile of the distances and its ring (0 beyond the image).
  int const readers = detail::ring_readers(reader->concurrent_reads(threads));
  std::atomic<std::size_t> bytes_read{0};  // counted on the reading threads
  auto read = [&](index_t t) {
    Region const core = grid.core(t), ringed = grid.ringed(core);
    AnyHostImage const d = reader->read(t);
    bytes_read += std::size_t(ringed.width * ringed.height) * sizeof(float);
    return detail::ringed_copy<float, true>(
        d, core, ringed, [](float v) { return v; }, distance, "the distances must be a float image, not ");
  };
  // Tile t's reconstruction on `space` with its ring from the seams, stored.
  auto reconstruct = [&](auto const& space, index_t t, HostImage<float> const& d) {
    using Memory = typename std::decay_t<decltype(space)>::memory_space;
    Region const core = grid.core(t);
    HostImage<float> ring("gigaseg::tiled::rec", core.width + 2, core.height + 2);
    rec_seams.ring_into(core, ring);
    ImageView<float const, Memory> const dist = upload(space, d);
    ImageView<float, Memory> const rec = upload(space, ring);
    h_maxima_tile(space, dist, rec, params);
    space.fence();
    stored->put(t, download(space, rec.roi(1, 1, core.width, core.height)));
    device_peak.sample(space, result.report.peak_device_bytes);
    return rec;
  };
  // Tile t's final reconstruction and its ring, from the store and the seams.
  auto reconstruction_of = [&](index_t t) {
    Region const core = grid.core(t);
    HostImage<float> rec("gigaseg::tiled::rec", core.width + 2, core.height + 2);
    rec_seams.ring_into(core, rec);
    HostImage<float> const inside = stored->get(t, core.width, core.height);
    for (index_t y = 0; y < core.height; ++y)
      for (index_t x = 0; x < core.width; ++x) rec(y + 1, x + 1) = inside(y, x);
    return rec;
  };
  // Tile t's flags (1: off the regional maxima) on `space`, with their ring from the seams, stored.
  auto flags_of = [&](auto const& space, index_t t, HostImage<float> const& d) {
    using Memory = typename std::decay_t<decltype(space)>::memory_space;
    Region const core = grid.core(t);
    HostImage<std::uint8_t> flags("gigaseg::tiled::lower", core.width + 2, core.height + 2);
    lower_seams.ring_into(core, flags);
    ImageView<std::uint8_t, Memory> const lower = upload(space, flags);
    regional_maxima_tile(space, ImageView<float const, Memory>(upload(space, d)),
                         ImageView<float const, Memory>(upload(space, reconstruction_of(t))), lower, params);
    space.fence();
    stored_flags->put(t, download(space, lower.roi(1, 1, core.width, core.height)));
    device_peak.sample(space, result.report.peak_device_bytes);
    return lower;
  };
  auto note = [&](index_t t) {
    Region const core = grid.core(t);
    result.report.peak_tile_bytes =
        std::max(result.report.peak_tile_bytes, std::size_t((core.width + 2) * (core.height + 2)) * 13);
  };

  // Rounds 1: the reconstruction; rounds 2: the flags of the pixels off the regional maxima.
  detail::RoundsDone const reconstruction = detail::ring_rounds(
      grid, rec_seams, read,
      [&](index_t t, HostImage<float>&& d) {
        std::vector<float> border;
        on_backend(context, d.width() * d.height(), OpFamily::distance,
                   [&](auto const& space) { border = detail::border_of(space, reconstruct(space, t, d)); });
        note(t);
        return border;
      },
      &result.report.seconds, options.progress, readers, group);
  detail::RoundsDone const plateaus = detail::ring_rounds(
      grid, lower_seams, read,
      [&](index_t t, HostImage<float>&& d) {
        std::vector<std::uint8_t> border;
        on_backend(context, d.width() * d.height(), OpFamily::distance,
                   [&](auto const& space) { border = detail::border_of(space, flags_of(space, t, d)); });
        return border;
      },
      &result.report.seconds, options.progress, readers, group);
  result.reconstruction_rounds = reconstruction.rounds;
  result.plateau_rounds = plateaus.rounds;
  result.tile_computations = reconstruction.computations + plateaus.computations;

  // The peaks (regional maxima of the foreground) and the foreground, into scratch TIFFs.
  bool const separate = params.min_separation > 0;
  detail::ScratchFile const peaks_file(folder, "peaks", group), foreground_file(folder, "foreground", group),
      raw_file(folder, "markers", group), components_file(folder, "components", group);
  WriteOptions const scratch_write =
      detail::scratch_write_options(folder, 15.0 * double(grid.width) * double(grid.height), group);
  {
    std::unique_ptr<detail::SharedTileWriter> peaks, foreground;
    detail::collectively(group, [&] {
      peaks =
          std::make_unique<detail::SharedTileWriter>(group, peaks_file.path(), grid.width, grid.height, PixelType::u8,
                                                     grid.tile_width, grid.tile_height, scratch_write);
      if (separate)
        foreground =
            std::make_unique<detail::SharedTileWriter>(group, foreground_file.path(), grid.width, grid.height,
                                                       PixelType::u8, grid.tile_width, grid.tile_height, scratch_write);
      detail::pipeline_tiles(
          mine.size(), [&](std::size_t i) { return read(index_t(mine[i])); },
          [&](std::size_t i, HostImage<float>&& d) {
            index_t const t = index_t(mine[i]);
            Region const core = grid.core(t);
            HostImage<std::uint8_t> const flags = stored_flags->get(t, core.width, core.height);
            std::pair<HostImage<std::uint8_t>, HostImage<std::uint8_t>> out{
                HostImage<std::uint8_t>("gigaseg::tiled::peaks", core.width, core.height),
                HostImage<std::uint8_t>("gigaseg::tiled::foreground", core.width, core.height)};
            detail::host_rows(core.height, [&](index_t y) {
              for (index_t x = 0; x < core.width; ++x) {
                out.first(y, x) = flags(y, x) ? 0 : 255;
                out.second(y, x) = d(y + 1, x + 1) > 0 ? 255 : 0;
              }
            });
            return out;
          },
          [&](std::size_t i, std::pair<HostImage<std::uint8_t>, HostImage<std::uint8_t>>&& out) {
            index_t const t = index_t(mine[i]);
            peaks->write_tile(t % grid.across, t / grid.across, out.first);
            if (foreground) foreground->write_tile(t % grid.across, t / grid.across, out.second);
          },
          detail::PipelineWorkers{readers, threads, &result.report.seconds});
    });
    peaks->commit();
    if (foreground) foreground->commit();
  }
  stored_flags.reset();
  TiledOptions label_options = options;
  label_options.write = scratch_write;
  LabelParams label_params;
  label_params.connectivity = params.connectivity;
  if (!separate) label_options.write = options.write;
  TiledLabelResult const raw =
      label_tiled(context, peaks_file.path(), separate ? raw_file.path() : output, label_params, false, label_options);
  result.markers = raw.components;
  result.report.add(raw.report);
  result.report.passes += reconstruction.rounds + plateaus.rounds + 1;
  if (!separate) return result;
  if (raw.components < 2) {  // nothing to separate: the labels are the markers (rank 0 holds the file)
    detail::collectively(group, [&] {
      GIGASEG_REQUIRE(detail::group_rank(group) != 0 || std::rename(raw_file.path().c_str(), output.c_str()) == 0,
                      ErrorKind::resource, output, "cannot be written");
    });
    return result;
  }

  // Per marker: its pixel sums, its height (the reconstruction, equal over the marker) and its
  // foreground component; then the separation as in memory.
  TiledLabelResult const components =
      label_tiled(context, foreground_file.path(), components_file.path(), label_params, false, label_options);
  result.report.add(components.report);
  // Per marker: x, y and pixel sums (summed over the ranks), and its height and component, the same
  // at each of its pixels (from whichever rank saw it).
  std::vector<std::uint64_t> sums(std::size_t(3 * (raw.components + 1)), 0);
  std::vector<float> heights(std::size_t(raw.components + 1), 0.f);
  std::vector<Label> component_of(std::size_t(raw.components + 1), 0);
  std::vector<char> seen(std::size_t(raw.components + 1), 0);
  detail::collectively(group, [&] {
    detail::TileReader raw_reader(raw_file.path(), image_shape(raw_file.path()), grid.tile_width, grid.tile_height);
    detail::TileReader component_reader(components_file.path(), image_shape(components_file.path()), grid.tile_width,
                                        grid.tile_height);
    struct Summaries {
      HostImage<float> rec;
      AnyHostImage labels, components;
    };
    detail::pipeline_tiles(
        mine.size(),
        [&](std::size_t i) {
          Region const core = grid.core(index_t(mine[i]));
          return Summaries{stored->get(index_t(mine[i]), core.width, core.height), raw_reader.read(core),
                           component_reader.read(core)};
        },
        [&](std::size_t i, Summaries&& in) {
          Region const core = grid.core(index_t(mine[i]));
          auto const& labels = std::get<HostImage<Label>>(in.labels);
          auto const& comps = std::get<HostImage<Label>>(in.components);
          for (index_t y = 0; y < core.height; ++y)
            for (index_t x = 0; x < core.width; ++x) {
              Label const l = labels(y, x);
              if (l == 0) continue;
              sums[3 * l] += std::uint64_t(core.x + x);
              sums[3 * l + 1] += std::uint64_t(core.y + y);
              sums[3 * l + 2] += 1;
              heights[l] = in.rec(y, x);
              component_of[l] = comps(y, x);
              seen[l] = 1;
            }
          return 0;
        },
        [](std::size_t, int) {},
        detail::PipelineWorkers{detail::ring_readers(std::min(raw_reader.concurrent_reads(threads),
                                                              component_reader.concurrent_reads(threads))),
                                1, &result.report.seconds});
  });
  if (detail::group_size(group) > 1) {
    group->sum(sums.data(), sums.size());
    std::vector<unsigned char> bytes;  // (marker, height, component) of the markers this rank saw
    for (std::size_t l = 1; l < seen.size(); ++l)
      if (seen[l]) {
        Label const marker = Label(l);
        detail::append_bytes(bytes, &marker, 1);
        detail::append_bytes(bytes, &heights[l], 1);
        detail::append_bytes(bytes, &component_of[l], 1);
      }
    for (auto const& theirs : group->all_gather(bytes))
      for (detail::ByteReader in(theirs); !in.done();) {
        Label const marker = in.value<Label>();
        heights[marker] = in.value<float>();
        component_of[marker] = in.value<Label>();
      }
  }
  std::vector<detail::MarkerSummary> summaries(std::size_t(raw.components + 1));
  for (index_t l = 1; l <= raw.components; ++l)
    summaries[std::size_t(l)] = {double(sums[std::size_t(3 * l)]), double(sums[std::size_t(3 * l + 1)]),
                                 index_t(sums[std::size_t(3 * l + 2)]), heights[std::size_t(l)],
                                 component_of[std::size_t(l)]};
  std::vector<Label> const new_id = detail::separate_markers(summaries, params.min_separation);
  Label kept = 0;
  for (Label id : new_id) kept = std::max(kept, id);
  result.markers = index_t(kept);

  // The kept markers renumbered, into `output`.
  std::unique_ptr<detail::SharedTileWriter> writer;
  detail::collectively(group, [&] {
    writer = std::make_unique<detail::SharedTileWriter>(group, output, grid.width, grid.height, PixelType::u32,
                                                        grid.tile_width, grid.tile_height, options.write);
    detail::TileReader raw_reader(raw_file.path(), image_shape(raw_file.path()), grid.tile_width, grid.tile_height);
    detail::pipeline_tiles(
        mine.size(), [&](std::size_t i) { return raw_reader.read(grid.core(index_t(mine[i]))); },
        [&](std::size_t, AnyHostImage&& in) {
          HostImage<Label> labels = std::get<HostImage<Label>>(in);
          detail::host_rows(labels.height(), [&](index_t y) {
            for (index_t x = 0; x < labels.width(); ++x) labels(y, x) = new_id[labels(y, x)];
          });
          result.report.pixel_bytes_written += std::size_t(labels.width() * labels.height()) * sizeof(Label);
          return labels;
        },
        [&](std::size_t i, HostImage<Label>&& labels) {
          writer->write_tile(index_t(mine[i]) % grid.across, index_t(mine[i]) / grid.across, labels);
        },
        detail::PipelineWorkers{detail::ring_readers(raw_reader.concurrent_reads(threads)), threads,
                                &result.report.seconds});
  });
  writer->commit();
  result.report.passes += 2;
  return result;
}

}  // namespace gigaseg
