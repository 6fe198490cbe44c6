// The `cells` pipeline under tiling (engine/tiled.hpp, segment_cells_tiled), and the small-region
// merge and the region statistics of a label TIFF tile by tile. On a group of ranks each rank
// computes its own tiles in every pass; the histogram, the areas, the merge's edges and the
// statistics meet over the ranks, and the scratch images lie in the output's folder, written by
// rank 0 (detail::SharedTileWriter) and read by every rank.
#include "gigaseg/algorithms/distance.hpp"
#include "gigaseg/algorithms/filters.hpp"
#include "gigaseg/algorithms/histogram.hpp"
#include "gigaseg/algorithms/markers.hpp"
#include "gigaseg/algorithms/morphology.hpp"
#include "gigaseg/algorithms/otsu.hpp"
#include "gigaseg/algorithms/pipelines/detail/stages.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/tile_writer.hpp"
#include "gigaseg/engine/on_backend.hpp"
#include "gigaseg/engine/process_group.hpp"
#include "gigaseg/engine/tile_pipeline.hpp"
#include "gigaseg/engine/tile_reader.hpp"
#include "gigaseg/engine/tile_rings.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace gigaseg {
namespace {

// The labels of a label TIFF's region (8/16/32-bit), as 32-bit labels.
HostImage<Label> labels_of(AnyHostImage&& image, std::string const& path) {
  if (auto* l = std::get_if<HostImage<Label>>(&image)) return std::move(*l);
  HostImage<Label> out("gigaseg::tiled::labels", width(image), height(image));
  bool done = false;
  std::visit(
      [&](auto const& in) {
        using T = typename std::decay_t<decltype(in)>::value_type;
        if constexpr (std::is_same<T, std::uint8_t>::value || std::is_same<T, std::uint16_t>::value) {
          for (index_t y = 0; y < in.height(); ++y)
            for (index_t x = 0; x < in.width(); ++x) out(y, x) = Label(in(y, x));
          done = true;
        }
      },
      image);
  GIGASEG_REQUIRE(done, ErrorKind::input, path,
                  std::string("labels must be 8, 16 or 32-bit, not ") + to_string(pixel_type(image)));
  return out;
}

// Tile t of `grid` read with one more column on the right and one more row below (clipped).
Region with_right_and_below(detail::TileGrid const& grid, Region const& core) {
  return Region{core.x, core.y, std::min(grid.width, core.x + core.width + 1) - core.x,
                std::min(grid.height, core.y + core.height + 1) - core.y};
}

}  // namespace

index_t merge_small_regions_tiled(std::string const& labels, std::string const& output, index_t count, index_t min_area,
                                  TiledOptions const& options, TiledReport* report) {
  GIGASEG_REQUIRE(min_area >= 0, ErrorKind::usage, "merge_small_regions(min_area)", "must not be negative");
  ImageShape const shape = image_shape(labels);
  detail::TileGrid const grid(shape.width, shape.height, options.tile_width, options.tile_height);
  index_t const tiles = grid.tiles();
  int const threads = options.threads > 0 ? options.threads : io_threads();
  TiledReport local;
  TiledReport& r = report != nullptr ? *report : local;
  ProcessGroup const* const group = options.group;
  std::vector<std::size_t> const mine = detail::owned_tiles(std::size_t(tiles), group);
  auto check = [&](Label l) {
    GIGASEG_REQUIRE(l <= Label(count), ErrorKind::input, labels,
                    "holds label " + std::to_string(l) + ", above the " + std::to_string(count) + " expected");
  };
  // Pass 1: areas and first pixels. Pass 2: the 4-neighbour pixel edges between different labels
  // where one side is small (each tile read with the column to its right and the row below).
  std::vector<std::uint64_t> area(std::size_t(count + 1), 0);
  std::vector<index_t> first(std::size_t(count + 1), std::numeric_limits<index_t>::max());
  detail::collectively(group, [&] {
    detail::TileReader reader(labels, shape, grid.tile_width, grid.tile_height);
    detail::pipeline_tiles(
        mine.size(), [&](std::size_t i) { return labels_of(reader.read(grid.core(index_t(mine[i]))), labels); },
        [&](std::size_t i, HostImage<Label>&& in) {
          Region const core = grid.core(index_t(mine[i]));
          for (index_t y = 0; y < core.height; ++y)
            for (index_t x = 0; x < core.width; ++x) {
              Label const l = in(y, x);
              check(l);
              if (l == 0) continue;
              ++area[l];
              first[l] = std::min(first[l], (core.y + y) * grid.width + core.x + x);
            }
          r.pixel_bytes_read += std::size_t(core.width * core.height) * sizeof(Label);
          return 0;
        },
        [](std::size_t, int) {}, detail::PipelineWorkers{reader.concurrent_reads(threads), 1, &r.seconds});
  });
  if (detail::group_size(group) > 1) {  // the areas summed, the first pixels the least over the ranks
    group->sum(area.data(), area.size());
    std::vector<unsigned char> bytes;
    for (std::size_t l = 1; l < first.size(); ++l)
      if (first[l] != std::numeric_limits<index_t>::max()) {
        Label const label = Label(l);
        detail::append_bytes(bytes, &label, 1);
        detail::append_bytes(bytes, &first[l], 1);
      }
    for (auto const& theirs : group->all_gather(bytes))
      for (detail::ByteReader in(theirs); !in.done();) {
        Label const label = in.value<Label>();
        first[label] = std::min(first[label], in.value<index_t>());
      }
  }
  std::vector<char> small(std::size_t(count + 1), 0);
  bool any_small = false;
  for (index_t l = 1; l <= count; ++l) {
    small[std::size_t(l)] = area[std::size_t(l)] > 0 && index_t(area[std::size_t(l)]) < min_area;
    any_small = any_small || small[std::size_t(l)];
  }
  std::vector<std::uint64_t> edges;
  if (any_small) {
    detail::collectively(group, [&] {
      detail::TileReader edge_reader(labels, shape, grid.tile_width, grid.tile_height);
      detail::pipeline_tiles(
          mine.size(),
          [&](std::size_t i) {
            return labels_of(edge_reader.read(with_right_and_below(grid, grid.core(index_t(mine[i])))), labels);
          },
          [&](std::size_t i, HostImage<Label>&& in) {
            Region const core = grid.core(index_t(mine[i]));
            for (index_t y = 0; y < core.height; ++y)
              for (index_t x = 0; x < core.width; ++x)
                for (int k = 0; k < 2; ++k) {
                  index_t const ny = k == 0 ? y : y + 1, nx = k == 0 ? x + 1 : x;
                  if (ny >= in.height() || nx >= in.width()) continue;
                  Label const a = in(y, x), b = in(ny, nx);
                  if (a == 0 || b == 0 || a == b || !(small[a] || small[b])) continue;
                  edges.push_back(a < b ? std::uint64_t(a) << 32 | b : std::uint64_t(b) << 32 | a);
                }
            r.pixel_bytes_read += std::size_t(in.width() * in.height()) * sizeof(Label);
            return 0;
          },
          [](std::size_t, int) {}, detail::PipelineWorkers{edge_reader.concurrent_reads(threads), 1, &r.seconds});
    });
    if (detail::group_size(group) > 1) {  // every rank's edges, in the order of the tiles
      std::vector<unsigned char> bytes;
      detail::append_bytes(bytes, edges);
      edges.clear();
      for (auto const& theirs : group->all_gather(bytes)) {
        std::vector<std::uint64_t> const part = detail::ByteReader(theirs).values<std::uint64_t>();
        edges.insert(edges.end(), part.begin(), part.end());
      }
    }
  }
  index_t merged = 0;
  std::vector<Label> const new_id =
      detail::merge_plan(std::vector<index_t>(area.begin(), area.end()), first, edges, min_area, merged);
  // Pass 3: renumbered into `output`.
  std::unique_ptr<detail::SharedTileWriter> writer;
  detail::collectively(group, [&] {
    writer = std::make_unique<detail::SharedTileWriter>(group, output, grid.width, grid.height, PixelType::u32,
                                                        grid.tile_width, grid.tile_height, options.write);
    detail::TileReader last_reader(labels, shape, grid.tile_width, grid.tile_height);
    detail::pipeline_tiles(
        mine.size(), [&](std::size_t i) { return labels_of(last_reader.read(grid.core(index_t(mine[i]))), labels); },
        [&](std::size_t, HostImage<Label>&& in) {
          detail::host_rows(in.height(), [&](index_t y) {
            for (index_t x = 0; x < in.width(); ++x) in(y, x) = new_id[in(y, x)];
          });
          r.pixel_bytes_read += std::size_t(in.width() * in.height()) * sizeof(Label);
          r.pixel_bytes_written += std::size_t(in.width() * in.height()) * sizeof(Label);
          return std::move(in);
        },
        [&](std::size_t i, HostImage<Label>&& out) {
          writer->write_tile(index_t(mine[i]) % grid.across, index_t(mine[i]) / grid.across, out);
        },
        detail::PipelineWorkers{last_reader.concurrent_reads(threads), threads, &r.seconds});
  });
  writer->commit();
  r.tiles = tiles;
  r.passes += any_small ? 3 : 2;
  return merged;
}

std::vector<RegionStats> region_stats_tiled(std::string const& labels, index_t count, std::string const& intensity,
                                            TiledOptions const& options, TiledReport* report) {
  ImageShape const shape = image_shape(labels);
  ImageShape const other = image_shape(intensity);
  GIGASEG_REQUIRE(other.width == shape.width && other.height == shape.height, ErrorKind::input, intensity,
                  "differs in size from the labels");
  detail::TileGrid const grid(shape.width, shape.height, options.tile_width, options.tile_height);
  TiledReport local;
  TiledReport& r = report != nullptr ? *report : local;
  std::vector<RegionTotals> totals(std::size_t(count + 1));
  int const threads = options.threads > 0 ? options.threads : io_threads();
  ProcessGroup const* const group = options.group;
  std::vector<std::size_t> const mine = detail::owned_tiles(std::size_t(grid.tiles()), group);
  struct Input {
    HostImage<Label> labels;  // the tile and its ring, 0 beyond the image
    AnyHostImage values;      // the tile
  };
  detail::collectively(group, [&] {
    detail::RingedTileReader label_reader(labels, grid, threads, mine);
    detail::TileReader intensity_reader(intensity, other, grid.tile_width, grid.tile_height);
    detail::pipeline_tiles(
        mine.size(),
        [&](std::size_t i) {
          index_t const t = index_t(mine[i]);
          Region const core = grid.core(t), ringed = grid.ringed(core);
          auto as_label = [](auto v) -> std::enable_if_t<std::is_unsigned<decltype(v)>::value, Label> {
            return Label(v);
          };
          return Input{detail::ringed_copy<Label, false>(label_reader.read(t), core, ringed, as_label, labels,
                                                         "labels must be 8, 16 or 32-bit, not "),
                       intensity_reader.read(core)};
        },
        [&](std::size_t i, Input&& in) {
          Region const core = grid.core(index_t(mine[i]));
          std::visit(
              [&](auto const& values) {
                using T = typename std::decay_t<decltype(values)>::value_type;
                if constexpr (std::is_same<T, std::uint8_t>::value || std::is_same<T, std::uint16_t>::value ||
                              std::is_same<T, Rgb8>::value) {
                  for (index_t y = 0; y < core.height; ++y)
                    for (index_t x = 0; x < core.width; ++x) {
                      Label const l = in.labels(y + 1, x + 1);
                      if (l == 0) continue;
                      GIGASEG_REQUIRE(
                          l <= Label(count), ErrorKind::input, labels,
                          "holds label " + std::to_string(l) + ", above the " + std::to_string(count) + " expected");
                      index_t const gy = core.y + y, gx = core.x + x;
                      RegionTotals& s = totals[l];
                      std::uint64_t v = 0;
                      if constexpr (std::is_same<T, Rgb8>::value)
                        v = detail::luma_bt601(values(y, x));  // colour: its BT.601 gray
                      else
                        v = values(y, x);
                      ++s.area;
                      s.sum_x += std::uint64_t(gx);
                      s.sum_y += std::uint64_t(gy);
                      s.sum_intensity += v;
                      s.x0 = std::min<std::uint64_t>(s.x0, std::uint64_t(gx));
                      s.y0 = std::min<std::uint64_t>(s.y0, std::uint64_t(gy));
                      s.x1 = std::max<std::uint64_t>(s.x1, std::uint64_t(gx));
                      s.y1 = std::max<std::uint64_t>(s.y1, std::uint64_t(gy));
                      s.min_intensity = std::min(s.min_intensity, v);
                      s.max_intensity = std::max(s.max_intensity, v);
                      // Pixel edges to another label or the image's border (0 beyond the image).
                      s.perimeter += (in.labels(y, x + 1) != l) + (in.labels(y + 2, x + 1) != l) +
                                     (in.labels(y + 1, x) != l) + (in.labels(y + 1, x + 2) != l);
                    }
                } else {
                  GIGASEG_THROW(ErrorKind::input, intensity,
                                std::string("statistics need 8- or 16-bit gray or 8-bit RGB intensities, not ") +
                                    to_string(pixel_type(in.values)));
                }
              },
              in.values);
          r.pixel_bytes_read +=
              std::size_t(core.width * core.height) * (sizeof(Label) + bytes_per_pixel(pixel_type(in.values)));
          return 0;
        },
        [](std::size_t, int) {},
        detail::PipelineWorkers{detail::ring_readers(std::min(label_reader.concurrent_reads(threads),
                                                              intensity_reader.concurrent_reads(threads))),
                                1, &r.seconds});
  });
  r.passes += 1;
  if (detail::group_size(group) > 1) {  // every rank's totals merged on rank 0
    if (group->rank() != 0) {
      std::vector<unsigned char> bytes;
      for (std::size_t l = 1; l < totals.size(); ++l)
        if (totals[l].area > 0) {
          Label const label = Label(l);
          detail::append_bytes(bytes, &label, 1);
          detail::append_bytes(bytes, &totals[l], 1);
        }
      group->send(0, bytes);
      return {};
    }
    for (int from = 1; from < group->size(); ++from) {
      std::vector<unsigned char> const bytes = group->receive(from);
      for (detail::ByteReader in(bytes); !in.done();) {
        Label const label = in.value<Label>();
        totals[label].merge(in.value<RegionTotals>());
      }
    }
  }
  std::vector<RegionStats> regions(static_cast<std::size_t>(count));
  for (index_t l = 1; l <= count; ++l) regions[std::size_t(l - 1)] = totals[std::size_t(l)].stats(Label(l));
  return regions;
}

TiledCellsResult segment_cells_tiled(ExecutionContext const& context, std::string const& input,
                                     std::string const& output, CellsParams const& params,
                                     TiledOptions const& options) {
  GIGASEG_REQUIRE(params.median_size <= 1 || params.median_size == 3 || params.median_size == 5, ErrorKind::usage,
                  "CellsParams::median_size", "the median size is 3 or 5 (0: none)");
  GIGASEG_REQUIRE(params.open_size <= 1 || params.open_size % 2 == 1, ErrorKind::usage, "CellsParams::open_size",
                  "the opening size is odd (0: none)");
  GIGASEG_REQUIRE(params.relief == CellsRelief::distance, ErrorKind::usage, "CellsParams::relief",
                  "tile by tile the cells pipeline floods the distance relief only");
  detail::require_tile_sizes(options);
  ImageShape const shape = image_shape(input);
  detail::TileGrid const grid(shape.width, shape.height, options.tile_width, options.tile_height);
  index_t const tiles = grid.tiles();
  int const threads = options.threads > 0 ? options.threads : io_threads();
  TiledCellsResult result;
  TiledReport& report = result.report;
  report.tiles = tiles;
  ProcessGroup const* const group = options.group;
  std::vector<std::size_t> const mine = detail::owned_tiles(std::size_t(tiles), group);
  report.rank_tiles = index_t(mine.size());
  for (std::size_t t : mine) report.rank_pixels += grid.core(index_t(t)).width * grid.core(index_t(t)).height;
  detail::DevicePeak const device_peak;
  index_t const median_halo = params.median_size > 1 ? params.median_size / 2 : 0;
  index_t const open_halo = params.open_size > 1 ? 2 * (params.open_size / 2) : 0;
  // Tile t's core and the region read for it: `halo` pixels around, clipped to the image.
  auto around = [&](index_t t, index_t halo) { return grid.around(t, halo); };
  // The filtered gray (median) of a region on `space`.
  auto filtered = [&](auto const& space, AnyHostImage const& raw) {
    using Memory = typename std::decay_t<decltype(space)>::memory_space;
    GIGASEG_REQUIRE(
        std::holds_alternative<HostImage<std::uint8_t>>(raw) || std::holds_alternative<HostImage<Rgb8>>(raw),
        ErrorKind::input, input, "the cells pipeline needs an 8-bit gray or RGB image");
    ImageView<std::uint8_t const, Memory> gray = gray8_on(space, raw, input);
    if (params.median_size <= 1) return gray;
    ImageView<std::uint8_t, Memory> smooth("gigaseg::tiled::median", gray.width(), gray.height());
    median(space, gray, smooth, params.median_size);
    return ImageView<std::uint8_t const, Memory>(smooth);
  };
  auto stage_began = std::chrono::steady_clock::now();
  auto stage_done = [&](char const* name) {
    auto const now = std::chrono::steady_clock::now();
    result.stage_seconds.emplace_back(name, std::chrono::duration<double>(now - stage_began).count());
    stage_began = now;
  };
  auto note = [&](Region const& read, std::size_t bytes_per_pixel) {
    report.peak_tile_bytes = std::max(report.peak_tile_bytes, std::size_t(read.width * read.height) * bytes_per_pixel);
  };

  // Pass 1: the histogram of the filtered image, Otsu's threshold and the side (as otsu_mask).
  detail::CellsWindowsPlan const windows = detail::cells_windows_plan(context, input, shape, params, options);
  std::vector<std::uint64_t> counts(256, 0);
  if (windows.use)
    counts = detail::cells_histogram_by_bands(context, input, params, options, report);
  else
    detail::collectively(group, [&] {
      detail::TileReader reader(input, shape, grid.tile_width, grid.tile_height);
      detail::pipeline_tiles(
          mine.size(), [&](std::size_t i) { return reader.read(around(index_t(mine[i]), median_halo)); },
          [&](std::size_t i, AnyHostImage&& raw) {
            index_t const t = index_t(mine[i]);
            Region const core = grid.core(t), read = around(t, median_halo);
            report.pixel_bytes_read += std::size_t(read.width * read.height) * bytes_per_pixel(pixel_type(raw));
            on_backend(context, read.width * read.height, OpFamily::pipeline, [&](auto const& space) {
              using Memory = typename std::decay_t<decltype(space)>::memory_space;
              auto const smooth = filtered(space, raw);
              Counts<Memory> tile_counts("gigaseg::tiled::histogram", 256);
              histogram(space, smooth.roi(core.x - read.x, core.y - read.y, core.width, core.height), tile_counts);
              auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tile_counts);
              for (std::size_t b = 0; b < 256; ++b) counts[b] += host(b);
              device_peak.sample(space, report.peak_device_bytes);
            });
            note(read, 6);
            return 0;
          },
          [](std::size_t, int) {}, detail::PipelineWorkers{reader.concurrent_reads(threads), 1, &report.seconds});
    });
  if (!windows.use) report.passes += 1;
  if (detail::group_size(group) > 1) group->sum(counts.data(), counts.size());
  stage_done("histogram");
  result.threshold = otsu_bin(counts.data(), 256);
  index_t above = 0;
  for (int b = result.threshold + 1; b < 256; ++b) above += index_t(counts[std::size_t(b)]);
  index_t const pixels = grid.width * grid.height;
  result.dark =
      params.foreground == Foreground::dark || (params.foreground == Foreground::automatic && above > pixels - above);
  if (windows.use) {
    bool const held = detail::cells_by_windows(context, input, output, params, options, windows, result);
    stage_done("windows");
    if (held) return result;
  }

  // Pass 2: the mask (the side, opened) into a scratch TIFF; its background counted.
  std::string const folder = detail::folder_of(output);
  auto distance_file = std::make_unique<detail::ScratchFile>(folder, "distance", group);  // removed after the relief
  detail::ScratchFile const mask_file(folder, "mask", group), markers_file(folder, "markers", group),
      relief_file(folder, "relief", group), flooded_file(folder, "flooded", group);
  // About 20 bytes a pixel of scratch at the most (during the markers' stage).
  WriteOptions const scratch_write = detail::scratch_write_options(folder, 20.0 * double(pixels), group);
  std::uint64_t background = 0;
  {
    index_t const halo = median_halo + open_halo;
    std::unique_ptr<detail::SharedTileWriter> writer;
    detail::collectively(group, [&] {
      writer =
          std::make_unique<detail::SharedTileWriter>(group, mask_file.path(), grid.width, grid.height, PixelType::u8,
                                                     grid.tile_width, grid.tile_height, scratch_write);
      detail::TileReader reader(input, shape, grid.tile_width, grid.tile_height);
      detail::pipeline_tiles(
          mine.size(), [&](std::size_t i) { return reader.read(around(index_t(mine[i]), halo)); },
          [&](std::size_t i, AnyHostImage&& raw) {
            index_t const t = index_t(mine[i]);
            Region const core = grid.core(t), read = around(t, halo);
            report.pixel_bytes_read += std::size_t(read.width * read.height) * bytes_per_pixel(pixel_type(raw));
            HostImage<std::uint8_t> mask;
            on_backend(context, read.width * read.height, OpFamily::pipeline, [&](auto const& space) {
              using Memory = typename std::decay_t<decltype(space)>::memory_space;
              auto const smooth = filtered(space, raw);
              ImageView<std::uint8_t, Memory> side("gigaseg::tiled::side", read.width, read.height);
              pipeline::side_mask(space, smooth, side, result.threshold, result.dark);
              ImageView<std::uint8_t, Memory> out = side;
              if (params.open_size > 1) {
                out = ImageView<std::uint8_t, Memory>("gigaseg::tiled::opened", read.width, read.height);
                MorphParams morph;
                morph.op = MorphOp::open;
                morph.size = params.open_size;
                morphology(space, ImageView<std::uint8_t const, Memory>(side), out, morph);
              }
              mask = clone<Kokkos::HostSpace>(space, out.roi(core.x - read.x, core.y - read.y, core.width, core.height),
                                              "gigaseg::tiled::mask");
              space.fence();
              device_peak.sample(space, report.peak_device_bytes);
            });
            for (index_t y = 0; y < mask.height(); ++y)
              for (index_t x = 0; x < mask.width(); ++x) background += mask(y, x) == 0;
            note(read, 8);
            return mask;
          },
          [&](std::size_t i, HostImage<std::uint8_t>&& mask) {
            writer->write_tile(index_t(mine[i]) % grid.across, index_t(mine[i]) / grid.across, mask);
          },
          detail::PipelineWorkers{reader.concurrent_reads(threads), threads, &report.seconds});
    });
    writer->commit();
    report.passes += 1;
  }
  if (detail::group_size(group) > 1) group->sum(&background, 1);
  stage_done("mask");
  if (background == 0 || index_t(background) == pixels) {  // Otsu found no two classes: nothing segmented
    std::unique_ptr<detail::SharedTileWriter> writer;
    detail::collectively(group, [&] {
      writer = std::make_unique<detail::SharedTileWriter>(group, output, grid.width, grid.height, PixelType::u32,
                                                          grid.tile_width, grid.tile_height, options.write);
      for (std::size_t t : mine) {
        Region const core = grid.core(index_t(t));
        HostImage<Label> zeros("gigaseg::tiled::none", core.width, core.height);
        for (index_t y = 0; y < core.height; ++y)
          for (index_t x = 0; x < core.width; ++x) zeros(y, x) = 0;
        writer->write_tile(index_t(t) % grid.across, index_t(t) / grid.across, zeros);
      }
    });
    writer->commit();
    return result;
  }

  // The distances (bands of whole rows), the markers, and the relief: 65535 - squared distance as
  // 16 bits while the squared distances fit, the negated distance beyond (as in memory).
  TiledOptions scratch_options = options;
  scratch_options.write = scratch_write;
  TiledOptions band_options = scratch_options;
  if (options.memory_bytes > 0)
    band_options.tile_height = detail::rank0_value(
        group, std::min(options.tile_height, distance_band_rows(grid.width, options.memory_bytes, threads)));
  report.add(distance_tiled(context, mask_file.path(), distance_file->path(), band_options));
  stage_done("distance");
  MarkerParams marker_params;
  marker_params.h = params.h;
  marker_params.min_separation = params.min_separation;
  marker_params.connectivity = params.connectivity;
  TiledMarkersResult const markers =
      distance_markers_tiled(context, distance_file->path(), markers_file.path(), marker_params, scratch_options);
  report.add(markers.report);
  result.markers = markers.markers;
  result.reconstruction_rounds = markers.reconstruction_rounds;
  result.plateau_rounds = markers.plateau_rounds;
  stage_done("markers");
  float most = 0;
  detail::collectively(group, [&] {
    detail::TileReader reader(distance_file->path(), image_shape(distance_file->path()), grid.tile_width,
                              grid.tile_height);
    detail::pipeline_tiles(
        mine.size(), [&](std::size_t i) { return reader.read(grid.core(index_t(mine[i]))); },
        [&](std::size_t, AnyHostImage&& d) {
          HostImage<float> const& distances = std::get<HostImage<float>>(d);
          float tile_most = 0;
          Kokkos::parallel_reduce(
              "gigaseg::tiled::largest",
              Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<index_t>>(0, distances.height()),
              [&](index_t y, float& row_most) {
                for (index_t x = 0; x < distances.width(); ++x) row_most = std::max(row_most, distances(y, x));
              },
              Kokkos::Max<float>(tile_most));
          most = std::max(most, tile_most);
          return 0;
        },
        [](std::size_t, int) {},
        detail::PipelineWorkers{detail::ring_readers(reader.concurrent_reads(threads)), 1, &report.seconds});
  });
  if (detail::group_size(group) > 1) {  // the largest over the ranks
    std::vector<unsigned char> bytes;
    detail::append_bytes(bytes, &most, 1);
    for (auto const& theirs : group->all_gather(bytes))
      most = std::max(most, detail::ByteReader(theirs).value<float>());
  }
  // The squared distances fit 16 bits while the largest distance is below 256 (sqrt(65535) rounds
  // to 255.998 as a float); they are the squares of the float distances rounded (exact there).
  bool const narrow = most < 256.f;
  {
    std::unique_ptr<detail::SharedTileWriter> writer;
    detail::collectively(group, [&] {
      writer = std::make_unique<detail::SharedTileWriter>(group, relief_file.path(), grid.width, grid.height,
                                                          narrow ? PixelType::u16 : PixelType::f32, grid.tile_width,
                                                          grid.tile_height, scratch_write);
      detail::TileReader reader(distance_file->path(), image_shape(distance_file->path()), grid.tile_width,
                                grid.tile_height);
      detail::pipeline_tiles(
          mine.size(), [&](std::size_t i) { return reader.read(grid.core(index_t(mine[i]))); },
          [&](std::size_t, AnyHostImage&& d) {
            HostImage<float> const& distances = std::get<HostImage<float>>(d);
            index_t const w = distances.width(), h = distances.height();
            if (!narrow) {
              HostImage<float> relief("gigaseg::tiled::relief", w, h);
              detail::host_rows(h, [&](index_t y) {
                for (index_t x = 0; x < w; ++x) relief(y, x) = -distances(y, x);
              });
              return AnyHostImage(relief);
            }
            HostImage<std::uint16_t> relief("gigaseg::tiled::relief", w, h);
            detail::host_rows(h, [&](index_t y) {
              for (index_t x = 0; x < w; ++x) {
                double const v = double(distances(y, x));
                relief(y, x) = std::uint16_t(65535 - std::llround(v * v));
              }
            });
            return AnyHostImage(relief);
          },
          [&](std::size_t i, AnyHostImage&& relief) {
            writer->write_tile(index_t(mine[i]) % grid.across, index_t(mine[i]) / grid.across, relief);
          },
          detail::PipelineWorkers{detail::ring_readers(reader.concurrent_reads(threads)), threads, &report.seconds});
    });
    writer->commit();
    report.passes += 2;  // the largest distance, and the relief
  }
  distance_file.reset();
  stage_done("relief");

  // The watershed inside the mask, the small regions merged, the statistics against the gray.
  WatershedParams watershed_params;
  watershed_params.connectivity = params.connectivity;
  TiledWatershedResult const flooded =
      watershed_tiled(context, relief_file.path(), markers_file.path(), mask_file.path(), flooded_file.path(),
                      watershed_params, scratch_options);
  report.add(flooded.report);
  result.watershed_rounds = flooded.rounds;
  stage_done("watershed");
  result.components =
      merge_small_regions_tiled(flooded_file.path(), output, result.markers, params.min_area, options, &report);
  stage_done("merge");
  result.regions = region_stats_tiled(output, result.components, input, options, &report);
  stage_done("statistics");
  return result;
}

}  // namespace gigaseg
