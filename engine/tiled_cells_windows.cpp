// The `cells` pipeline by windows (engine/tiled.hpp, segment_cells_tiled): each tile computed whole
// in memory in a window of the image around it, the image decoded once, a band of whole tile rows
// at a time.
//
// Why a window gives the whole image's labels: every stage after the mask (the distance transform,
// the markers, the watershed, the merge; algorithms/pipelines/cells.hpp, segment_cells_from_mask)
// follows the mask's 8-connected components. A component K of the window's mask that keeps
// clear of the window's frame (the `mask_halo` + 1 pixels along each window side that is not the
// image's border, where the median and the opening lacked their neighbours) is a component of the
// whole image's mask too, since the two masks agree on K and its neighbours. Its distances are the
// whole image's: from any pixel p of K, straight towards the nearest window side that is not the
// image's border, the first pixel outside K is background and lies inside the window, nearer than
// anything outside it, so the nearest background pixel is inside the window. Its markers (the
// h-maxima inside the foreground component, the separation within the component), its watershed
// (inside the mask) and its merge (between regions that touch) see nothing outside K either, and
// the window's labels keep the whole image's raster order of first pixels, which their ties
// compare. Two choices are the whole image's and are given to each window (CellsPart): the
// markers' centroids are summed in the image's coordinates (the separation compares them in
// floating point), and the relief's type, 16 bits while every distance of the image stays below
// 256 (the watershed's keys differ between the two types): the windows take the 16 bits, and a
// core with a distance of 256 or more stops the pass for the rounds of tiles. So the regions of
// the components that keep clear of the frame are the whole image's, and their statistics too
// (their neighbours are inside the window).
//
// A window is kept when every component with a pixel in the tile's core keeps clear of the frame
// (tested conservatively on the components' bounding boxes); else the tile is computed again in a
// window whose halo is `retry_factor` times as wide, and when that fails too, or a distance reaches 256, the
// caller runs the rounds of tiles (tiled_cells.cpp), which hold for any image.
//
// The numbering: a region is the tile's whose core holds the region's first pixel; the regions are
// numbered in the raster order of their first pixels, which for the regions of a row of tiles
// lie in that row or above. So once a row of tiles is computed its regions get their numbers and
// its tiles are written; the computing thread keeps the rows not yet written (their labels as the
// windows numbered them, 4 bytes a pixel).
#include "gigaseg/algorithms/filters.hpp"
#include "gigaseg/algorithms/histogram.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/morphology.hpp"
#include "gigaseg/algorithms/otsu.hpp"
#include "gigaseg/algorithms/pipelines/cells.hpp"
#include "gigaseg/algorithms/pipelines/detail/stages.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/tile_writer.hpp"
#include "gigaseg/core/transfer.hpp"
#include "gigaseg/engine/on_backend.hpp"
#include "gigaseg/engine/process_group.hpp"
#include "gigaseg/engine/tile_pipeline.hpp"
#include "gigaseg/engine/tile_reader.hpp"
#include "gigaseg/engine/tile_rings.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace gigaseg::detail {
namespace {

// The bands of whole tile rows around the row being computed: band b holds the image's rows
// [b * tile_height, (b + 1) * tile_height), the full width. Kept by the computing thread.
class TileRowBands {
 public:
  TileRowBands(TileGrid const& grid, std::string input) : grid_(grid), input_(std::move(input)) {}
  void push(AnyHostImage band) {
    bands_.push_back(std::move(band));
    if (bands_.size() > 3) {  // a window reaches one band above and one below its own
      bands_.pop_front();
      ++first_;
    }
  }
  // The region `r` (its rows within the bands held) as 8-bit gray on `space` (colour: BT.601).
  template <class Space>
  ImageView<std::uint8_t, typename Space::memory_space> gray(Space const& space, Region const& r) const {
    using Memory = typename Space::memory_space;
    ImageView<std::uint8_t, Memory> out;
    std::visit(
        [&](auto const& front) {
          using T = typename std::decay_t<decltype(front)>::value_type;
          if constexpr (std::is_same<T, std::uint8_t>::value || std::is_same<T, Rgb8>::value) {
            ImageView<T, Memory> window("gigaseg::tiled::window", r.width, r.height);
            for (index_t b = first_; b < first_ + index_t(bands_.size()); ++b) {
              index_t const y0 = std::max(r.y, b * grid_.tile_height);
              index_t const y1 = std::min(r.y + r.height, (b + 1) * grid_.tile_height);
              if (y0 >= y1) continue;
              auto const& band = std::get<HostImage<T>>(bands_[std::size_t(b - first_)]);
              copy(space, window.roi(0, y0 - r.y, r.width, y1 - y0),
                   band.roi(r.x, y0 - b * grid_.tile_height, r.width, y1 - y0));
            }
            space.fence();
            if constexpr (std::is_same<T, std::uint8_t>::value) {
              out = window;
            } else {
              out = ImageView<std::uint8_t, Memory>("gigaseg::tiled::gray", r.width, r.height);
              rgb_to_gray(space, ImageView<Rgb8 const, Memory>(window), out);
            }
          } else {
            GIGASEG_THROW(ErrorKind::input, input_, "the cells pipeline needs an 8-bit gray or RGB image");
          }
        },
        bands_.front());
    return out;
  }

 private:
  TileGrid grid_;
  std::string input_;
  std::deque<AnyHostImage> bands_;
  index_t first_ = 0;  // the band bands_.front() is
};

// Runs row(r, bands) for every row of tiles r in order, with the bands of rows r - 1 to r + 1
// held, each band decoded once (on the reader's threads, while the rows above are computed), and
// put(result) for each row's result on one of `writers` writing threads (rows in any order). Step
// b brings band b and computes row b - 1; a last step with no band computes the last row, so that
// each step hands on one row at the most.
template <class Row, class Put>
void for_each_tile_row(TileGrid const& grid, std::string const& input, ImageShape const& shape, Row&& row, Put&& put,
                       TiledReport& report, int writers = 1) {
  TileReader reader(input, shape, grid.tile_width, grid.tile_height);
  TileRowBands bands(grid, input);
  using Result = decltype(row(index_t(0), bands));
  index_t const down = grid.down;
  pipeline_tiles(
      std::size_t(down + 1),
      [&](std::size_t b) {
        if (index_t(b) == down) return AnyHostImage{};  // below the last row
        index_t const y = index_t(b) * grid.tile_height;
        return reader.read(Region{0, y, grid.width, std::min(grid.tile_height, grid.height - y)});
      },
      [&](std::size_t b, AnyHostImage&& band) {
        if (index_t(b) < down) {
          std::size_t const bytes = std::size_t(width(band) * height(band)) * bytes_per_pixel(pixel_type(band));
          report.pixel_bytes_read += bytes;
          report.peak_tile_bytes = std::max(report.peak_tile_bytes, bytes);
          bands.push(std::move(band));
        }
        std::optional<Result> done;  // the row above this band
        if (b >= 1) done.emplace(row(index_t(b) - 1, bands));
        return done;
      },
      [&](std::size_t, std::optional<Result>&& done) {
        if (done) put(std::move(*done));
      },
      PipelineWorkers{1, writers, &report.seconds});
}

// One tile's window, computed: its core's labels as the window numbered them, and per window label
// the raster index of the region's first pixel in the image.
struct WindowTile {
  index_t tile = 0;
  HostImage<Label> labels;
  std::vector<index_t> first;  // by window label; label 0's: -1
};

struct OwnedRegion {
  index_t first = 0;  // its first pixel's raster index in the image
  RegionTotals totals;
};

// A row of tiles ready to be written: the tiles and the image's number of each window label.
struct RowBatch {
  std::vector<WindowTile> tiles;
  std::vector<std::vector<Label>> numbers;  // by tile, by window label
};

}  // namespace

CellsWindowsPlan cells_windows_plan(ExecutionContext const& context, std::string const& input, ImageShape const& shape,
                                    CellsParams const& params, TiledOptions const& options) {
  CellsWindowsPlan plan;
  index_t const median_halo = params.median_size > 1 ? params.median_size / 2 : 0;
  index_t const open_halo = params.open_size > 1 ? 2 * (params.open_size / 2) : 0;
  plan.mask_halo = median_halo + open_halo;
  plan.halo = options.cells_window_halo;
  if (plan.halo <= 0 || group_size(options.group) > 1) return plan;
  index_t const tw = options.tile_width, th = options.tile_height;
  // The wider window stays within the bands above and below.
  plan.retry_halo = std::min(th, plan.halo * CellsWindowsPlan::retry_factor);
  if (plan.halo <= plan.mask_halo + 1 || plan.halo > th) return plan;
  if (plan.retry_halo <= plan.halo) plan.retry_halo = 0;
  // Rows of tiles written at once: each row's tiles are compressed one a thread, and a row has
  // fewer tiles than there are threads where the image is narrow.
  int const threads = options.threads > 0 ? options.threads : io_threads();
  index_t const across = (shape.width + tw - 1) / tw;
  plan.writers = std::max(1, std::min<int>(4, threads / int(std::max<index_t>(1, across))));
  if (options.memory_bytes > 0) {
    // The host holds five bands (three for the row computing, two decoded ahead) and the rows of
    // labels: `writers` rows being written, as many waiting, and the one computing. The window takes the in-memory
    // pipeline's 42 bytes a pixel and the component labels beside it, on the device, or beside the
    // rest on a host backend. The encoded tiles a writer keeps until those before them are written
    // (labels compressed tens of times) are not counted.
    auto const window_bytes = [&](index_t halo) { return 50 * double(tw + 2 * halo) * double(th + 2 * halo); };
    bool const window_on_host =
        context.resolve((tw + 2 * plan.halo) * (th + 2 * plan.halo), OpFamily::pipeline) != Backend::cuda;
    double const band = double(shape.width) * double(th) *
                        double(bytes_per_pixel(pixel_type(read_image_region(input, Region{0, 0, 1, 1}))));
    double const row = double(shape.width) * double(th) * sizeof(Label);
    double const budget = double(options.memory_bytes);
    auto const fits = [&](int writers, index_t halo) {
      double const host = 5 * band + (2 * writers + 1) * row;
      return window_on_host ? host + window_bytes(halo) <= budget : host <= budget && window_bytes(halo) <= budget;
    };
    if (!fits(1, plan.halo)) return plan;
    if (plan.retry_halo > 0 && !fits(1, plan.retry_halo)) plan.retry_halo = 0;
    while (plan.writers > 1 && !fits(plan.writers, std::max(plan.halo, plan.retry_halo))) --plan.writers;
  }
  plan.use = true;
  return plan;
}

std::vector<std::uint64_t> cells_histogram_by_bands(ExecutionContext const& context, std::string const& input,
                                                    CellsParams const& params, TiledOptions const& options,
                                                    TiledReport& report) {
  ImageShape const shape = image_shape(input);
  TileGrid const grid(shape.width, shape.height, options.tile_width, options.tile_height);
  index_t const halo = params.median_size > 1 ? params.median_size / 2 : 0;
  std::vector<std::uint64_t> counts(256, 0);
  DevicePeak const device_peak;
  for_each_tile_row(
      grid, input, shape,
      [&](index_t r, TileRowBands const& bands) {
        Region const core{0, r * grid.tile_height, grid.width,
                          std::min(grid.tile_height, grid.height - r * grid.tile_height)};
        index_t const y0 = std::max<index_t>(0, core.y - halo), y1 = std::min(grid.height, core.y + core.height + halo);
        Region const read{0, y0, grid.width, y1 - y0};
        on_backend(context, read.width * read.height, OpFamily::pipeline, [&](auto const& space) {
          using Memory = typename std::decay_t<decltype(space)>::memory_space;
          ImageView<std::uint8_t const, Memory> gray = bands.gray(space, read);
          if (params.median_size > 1) {
            ImageView<std::uint8_t, Memory> smooth("gigaseg::tiled::median", read.width, read.height);
            median(space, gray, smooth, params.median_size);
            gray = smooth;
          }
          Counts<Memory> row_counts("gigaseg::tiled::histogram", 256);
          histogram(space, gray.roi(0, core.y - read.y, core.width, core.height), row_counts);
          auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_counts);
          for (std::size_t b = 0; b < 256; ++b) counts[b] += host(b);
          device_peak.sample(space, report.peak_device_bytes);
        });
        return 0;
      },
      [](int) {}, report);
  report.passes += 1;
  return counts;
}

bool cells_by_windows(ExecutionContext const& context, std::string const& input, std::string const& output,
                      CellsParams const& params, TiledOptions const& options, CellsWindowsPlan const& plan,
                      TiledCellsResult& result) {
  ImageShape const shape = image_shape(input);
  TileGrid const grid(shape.width, shape.height, options.tile_width, options.tile_height);
  index_t const width = grid.width;
  int const threads = options.threads > 0 ? options.threads : io_threads();
  TiledReport& report = result.report;
  DevicePeak const device_peak;
  LabelParams components;
  components.connectivity = 8;
  int const writers = plan.writers;
  std::size_t const row_threads = std::size_t(std::max(1, threads / writers));
  std::atomic<std::size_t> written{0};
  // Tile t's window with `halo` pixels around its core, clipped to the image.
  auto around = [&](index_t t, index_t halo) { return grid.around(t, halo); };
  // A tile did not hold in its wider window, or a distance reached 256: the pass stops, reading no
  // more, and the rounds of tiles run.
  struct GivenUp {};
  index_t markers = 0;
  std::vector<OwnedRegion> row_owned;  // the regions of the row being computed
  // A region's number, by its first pixel's raster index: those of the rows above the one before,
  // which no window of the rows to come reaches, are dropped.
  std::unordered_map<index_t, Label> number;
  std::vector<index_t> numbered_above;  // the first pixels numbered with the row above
  Label numbered = 0;
  // Tile t computed in the window `w`; false when a component with a pixel in the core reaches the
  // window's frame.
  auto compute = [&](index_t t, Region const& w, TileRowBands const& bands, WindowTile& out) {
    Region const core = grid.core(t);
    index_t const cx = core.x - w.x, cy = core.y - w.y;
    bool held = true;
    on_backend(context, w.width * w.height, OpFamily::pipeline, [&](auto const& space) {
      using Memory = typename std::decay_t<decltype(space)>::memory_space;
      ImageView<std::uint8_t const, Memory> const gray = bands.gray(space, w);
      ImageView<std::uint8_t const, Memory> filtered = gray;
      if (params.median_size > 1) {
        ImageView<std::uint8_t, Memory> smooth("gigaseg::tiled::median", w.width, w.height);
        median(space, gray, smooth, params.median_size);
        filtered = smooth;
      }
      ImageView<std::uint8_t, Memory> mask("gigaseg::tiled::side", w.width, w.height);
      pipeline::side_mask(space, filtered, mask, result.threshold, result.dark);
      if (params.open_size > 1) {
        ImageView<std::uint8_t, Memory> opened("gigaseg::tiled::opened", w.width, w.height);
        MorphParams morph;
        morph.op = MorphOp::open;
        morph.size = params.open_size;
        morphology(space, ImageView<std::uint8_t const, Memory>(mask), opened, morph);
        mask = opened;
      }
      ImageView<std::uint8_t const, Memory> const mask_c = mask;
      {  // the components with a pixel in the core (their boxes meet it) must keep clear of the frame
        ImageView<Label, Memory> parts("gigaseg::tiled::components", w.width, w.height);
        index_t const n = label(space, mask_c, parts, components);
        std::vector<RegionTotals> const boxes = region_totals(space, ImageView<Label const, Memory>(parts), n, mask_c);
        std::uint64_t const m = std::uint64_t(plan.mask_halo + 1);
        std::uint64_t const left = w.x > 0 ? m : 0, top = w.y > 0 ? m : 0;
        std::uint64_t const right = w.x + w.width < grid.width ? m : 0;
        std::uint64_t const bottom = w.y + w.height < grid.height ? m : 0;
        for (RegionTotals const& b : boxes) {
          bool const meets_core = b.x0 < std::uint64_t(cx + core.width) && b.x1 >= std::uint64_t(cx) &&
                                  b.y0 < std::uint64_t(cy + core.height) && b.y1 >= std::uint64_t(cy);
          bool const cut = b.x0 < left || b.y0 < top || b.x1 + right >= std::uint64_t(w.width) ||
                           b.y1 + bottom >= std::uint64_t(w.height);
          if (meets_core && cut) {
            held = false;
            return;
          }
        }
      }
      ImageView<float, Memory> distance("gigaseg::tiled::distance", w.width, w.height);
      ImageView<Label, Memory> window_markers("gigaseg::tiled::markers", w.width, w.height);
      ImageView<Label, Memory> labels("gigaseg::tiled::labels", w.width, w.height);
      CellsResult window;
      // The relief as for an image whose distances all stay below 256 (16 bits); an image with a
      // distance of 256 or more floods a float relief, and the rounds of tiles compute it.
      CellsPart part;
      part.x = w.x;
      part.y = w.y;
      part.most_squared = 65535;
      segment_cells_from_mask(space, filtered, mask_c, distance, window_markers, labels, params, window, part);
      device_peak.sample(space, report.peak_device_bytes);
      if (window.markers > 0 &&
          value_range(space, ImageView<float const, Memory>(distance).roi(cx, cy, core.width, core.height)).second >=
              256.0)
        throw GivenUp{};
      auto const at = [&](index_t i) {  // a window raster index in the image
        return (w.y + i / w.width) * width + w.x + i % w.width;
      };
      auto const in_core = [&](index_t g) {
        index_t const y = g / width, x = g % width;
        return y >= core.y && y < core.y + core.height && x >= core.x && x < core.x + core.width;
      };
      out.tile = t;
      out.first.assign(std::size_t(window.components + 1), -1);
      if (window.markers > 0) {  // a window's regions may all have merged away, its markers not
        std::vector<index_t> const first_marker =
            first_pixels(space, ImageView<Label const, Memory>(window_markers), window.markers);
        for (index_t l = 1; l <= window.markers; ++l)  // every marker 1..M has pixels
          markers += in_core(at(first_marker[std::size_t(l)])) ? 1 : 0;
      }
      if (window.components > 0) {
        std::vector<index_t> const first =
            first_pixels(space, ImageView<Label const, Memory>(labels), window.components);
        std::vector<RegionTotals> totals =
            region_totals(space, ImageView<Label const, Memory>(labels), window.components, gray);
        for (index_t l = 1; l <= window.components; ++l) {
          index_t const g = at(first[std::size_t(l)]);
          out.first[std::size_t(l)] = g;
          if (!in_core(g)) continue;
          RegionTotals& region = totals[std::size_t(l - 1)];
          region.shift(w.x, w.y);
          row_owned.push_back(OwnedRegion{g, region});
        }
      }
      out.labels =
          clone<Kokkos::HostSpace>(space, labels.roi(cx, cy, core.width, core.height), "gigaseg::tiled::cells");
    });
    return held;
  };
  // One process (cells by windows runs on one rank): a TIFF or an OME-Zarr output.
  auto writer = std::make_unique<SharedTileWriter>(nullptr, output, grid.width, grid.height, PixelType::u32,
                                                   grid.tile_width, grid.tile_height, options.write);
  try {
    for_each_tile_row(
        grid, input, shape,
        [&](index_t r, TileRowBands const& bands) {
          RowBatch batch;
          row_owned.clear();
          for (index_t c = 0; c < grid.across; ++c) {
            index_t const t = r * grid.across + c;
            WindowTile tile;
            bool done = compute(t, around(t, plan.halo), bands, tile);
            if (!done && plan.retry_halo > 0) {
              ++result.window_retries;
              done = compute(t, around(t, plan.retry_halo), bands, tile);
            }
            if (!done) throw GivenUp{};
            batch.tiles.push_back(std::move(tile));
          }
          // The row's regions numbered in the raster order of their first pixels, after those above.
          std::sort(row_owned.begin(), row_owned.end(),
                    [](OwnedRegion const& a, OwnedRegion const& b) { return a.first < b.first; });
          for (OwnedRegion const& region : row_owned) {
            number.emplace(region.first, ++numbered);
            result.regions.push_back(region.totals.stats(numbered));
          }
          for (WindowTile const& tile : batch.tiles) {
            std::vector<Label> ids(tile.first.size(), 0);
            for (std::size_t l = 1; l < ids.size(); ++l) {
              auto const found = number.find(tile.first[l]);
              // A label of a component cut by the window has no number; none is in the core.
              ids[l] = found != number.end() ? found->second : std::numeric_limits<Label>::max();
            }
            batch.numbers.push_back(std::move(ids));
          }
          // The windows of the rows below start at most a tile's height above them (the halos
          // are at most that): the row above this one is out of their reach.
          for (index_t first : numbered_above) number.erase(first);
          numbered_above.clear();
          for (OwnedRegion const& region : row_owned) numbered_above.push_back(region.first);
          return batch;
        },
        [&](RowBatch&& batch) {
          // The row's tiles renumbered and written on up to `threads` threads.
          std::size_t const n = batch.tiles.size();
          std::vector<std::exception_ptr> failures(n);
          auto work = [&](std::size_t k) {
            try {
              WindowTile& tile = batch.tiles[k];
              std::vector<Label> const& ids = batch.numbers[k];
              for (index_t y = 0; y < tile.labels.height(); ++y)
                for (index_t x = 0; x < tile.labels.width(); ++x) {
                  Label& l = tile.labels(y, x);
                  l = ids[l];
                  GIGASEG_REQUIRE(l != std::numeric_limits<Label>::max(), ErrorKind::internal, "cells_by_windows",
                                  "a core pixel's region has no number");
                }
              writer->write_tile(tile.tile % grid.across, tile.tile / grid.across, AnyHostImage(tile.labels));
            } catch (...) {
              failures[k] = std::current_exception();
            }
          };
          std::size_t const lanes = std::min(n, row_threads);
          std::vector<std::thread> pool;
          try {
            for (std::size_t lane = 0; lane < lanes; ++lane)
              pool.emplace_back([&, lane] {
                for (std::size_t k = lane; k < n; k += lanes) work(k);
              });
          } catch (...) {  // no thread to be had: those started end first
            for (std::thread& thread : pool) thread.join();
            throw;
          }
          for (std::thread& thread : pool) thread.join();
          for (std::exception_ptr const& failure : failures)
            if (failure) std::rethrow_exception(failure);
          for (WindowTile const& tile : batch.tiles)
            written += std::size_t(tile.labels.width() * tile.labels.height()) * sizeof(Label);
        },
        report, writers);
  } catch (GivenUp const&) {
    report.passes += 1;
    result.regions.clear();
    return false;  // the writer's temporary file goes with it
  }
  report.passes += 1;
  report.pixel_bytes_written += written;
  writer->commit();
  result.markers = markers;
  result.components = index_t(numbered);
  result.window_halo = plan.halo;
  return true;
}

}  // namespace gigaseg::detail
