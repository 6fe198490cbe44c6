#pragma once
// Images larger than memory: operations streamed tile by tile from a TIFF to a tiled TIFF, with
// results equal, byte for byte, to the same operation on the whole image in memory.
//
// The input is read by region (read_image_region: only the strips or tiles a region overlaps are
// decoded; a file whose blocks are larger than a tile a band of block rows at a time,
// detail::TileReader), each tile with the halo its operation needs, computed on the backend the context
// picks for a tile, and written through TiffTileWriter: at no time is more than a tile and its
// halo (and a band of the file's block rows) in memory, whatever the image's size.
//
// Memory: the passes allocate and free buffers of a tile's size for every tile. glibc maps each
// allocation above 32 MB afresh and unmaps it when freed, so with 4096 x 4096 tiles every tile
// pays page faults and the kernel's zeroing of its pages; a program that runs the engine does
// better keeping such memory on the heap (mallopt(M_MMAP_MAX, 0) and a large M_TRIM_THRESHOLD, as
// the command line sets them, or GLIBC_TUNABLES=glibc.malloc.mmap_max=0).
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/algorithms/markers_types.hpp"
#include "gigaseg/algorithms/kmeans.hpp"
#include "gigaseg/algorithms/pipelines/cells.hpp"
#include "gigaseg/algorithms/pipelines/kmeans_segment.hpp"
#include "gigaseg/algorithms/pipelines/nuclei.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/algorithms/watershed_types.hpp"
#include "gigaseg/core/context.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/io/tile_writer.hpp"
#include "gigaseg/core/device_memory.hpp"
#include "gigaseg/core/scratch.hpp"
#include "gigaseg/engine/on_backend.hpp"
#include "gigaseg/engine/process_group.hpp"
#include "gigaseg/engine/tile_lanes.hpp"
#include "gigaseg/engine/tile_pipeline.hpp"
#include "gigaseg/engine/tile_reader.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace gigaseg {

struct TiledOptions {
  // The tiles the image is processed in, and the output's TIFF tiles: multiples of 16.
  index_t tile_width = 4096, tile_height = 4096;
  WriteOptions write = default_write_options();  // compression of the output (tiff_tile ignored)
  // Threads that read and decode tiles, and threads that compress and write them, beside the one
  // that computes: 0, io_threads() (core/io/image_file.hpp). Each holds a tile in flight.
  int threads = 0;
  // Host memory the labelling may keep between its passes: each tile's mask from the first pass,
  // one bit a pixel (pack_mask), so that the second does not read and decode the image again
  // (nothing kept in equal-value mode, where the values count). When the masks of the whole image
  // take more, the second pass reads the image again. 1 GiB by default: the masks of 8.6 Gpixel.
  std::size_t mask_cache_bytes = std::size_t(1) << 30;
  // Host memory a band of whole rows may take where a stage works in bands (the distance
  // transform inside segment_cells_tiled: its bands are then lowered to distance_band_rows); 0:
  // no limit, the bands as tall as the tiles.
  std::size_t memory_bytes = 0;
  // Called after each tile of each pass with (tiles done, tiles in all passes); for progress bars.
  std::function<void(index_t, index_t)> progress;
  // Tiles computed on the GPU take turns on this many CUDA streams, with pinned transfers, so that
  // a tile's download overlaps the next tile's upload and kernels (detail::TileLanes,
  // engine/tile_lanes.hpp); 0: the tiles' transfers go through pageable memory on the context's
  // stream and each waits for its copy. 0 to 16; no effect on the host backends.
  int lanes = 2;
  // The processes that share the run (engine/process_group.hpp), each calling the same driver with
  // the same arguments; null: this process alone. Each rank computes its run of tiles (distance_tiled:
  // of bands), and rank 0 writes the output, equal byte for byte to one process's. Every driver here
  // is distributed. The drivers that keep scratch images (distance_markers_tiled and
  // segment_cells_tiled) keep them in the output's folder, which every rank must then see (a
  // folder they do not share is an Error(usage) naming it); the statistics (region_stats_tiled,
  // and the regions of the results) are rank 0's, empty on the others, unless spread_regions. On a
  // group, progress counts this rank's tiles.
  ProcessGroup const* group = nullptr;
  // On a group: the regions of label_tiled and of the nuclei and kmeans pipelines are spread over
  // the ranks, each rank the regions of an even share of the labels in order (rank 0 the first),
  // so that no rank receives every region's sums and the ranks can write them in parallel
  // (detail::write_text_over_ranks). No effect without a group.
  bool spread_regions = false;
  // segment_cells_tiled computes each tile whole in a window of the image this many pixels wider
  // on every side, and where a component of the tile reaches past that, with a halo
  // CellsWindowsPlan::retry_factor times as wide (at most a tile's height); an image where that too
  // fails runs the rounds of tiles. 0: the rounds always. One process only (no group).
  index_t cells_window_halo = 128;
};

// The input of a tiled run as a file the engine reads by region: a TIFF as it is; a PNG or
// PGM/PPM (one stream of rows) decoded once, a band of rows at a time, into a scratch TIFF tiled as
// `options` say (write_tiled_copy, Deflate level 1) in `scratch_folder`, removed again when this
// object goes. The copy takes disk, never the whole image in memory: a full disk is an
// Error(resource) naming the scratch file.
class TiledInput {
 public:
  TiledInput(std::string const& input, std::string const& scratch_folder, TiledOptions const& options);
  ~TiledInput();
  TiledInput(TiledInput const&) = delete;
  TiledInput& operator=(TiledInput const&) = delete;
  std::string const& path() const noexcept { return path_; }     // what the engine reads
  bool decoded() const noexcept { return scratch_ != nullptr; }  // a scratch copy was made

 private:
  std::string path_;
  std::unique_ptr<detail::ScratchFile> scratch_;
};

// What a tiled run did: the tiles of each pass, the most memory a tile's buffers held (the pixels
// of the tile, its halo and its labels), the most GPU memory in use while a tile was computed
// (above what was in use when the run began, sampled after each tile's work with its images still
// held; 0 on host backends), the bytes of pixels read and written, and how long each stage was busy.
struct TiledReport {
  index_t tiles = 0;   // tiles in the image
  index_t passes = 0;  // passes over the tiles
  std::size_t peak_tile_bytes = 0;
  std::size_t peak_device_bytes = 0;
  std::size_t kept_mask_bytes = 0;  // the first pass's masks kept for the second (0: it read the image again)
  std::size_t pixel_bytes_read = 0, pixel_bytes_written = 0;
  StageSeconds seconds;  // over all passes
  // This rank's share of the image (TiledOptions::group): the tiles it computed and their pixels
  // (a run of tiles, or of bands for distance_tiled); the whole image without a group.
  index_t rank_tiles = 0, rank_pixels = 0;
  // Wall seconds between the passes where the tiles' results meet (label_tiled: gathering the
  // edges and sums from the ranks, joining and numbering the components), done alike on every rank.
  double join_seconds = 0;

  // A stage's report added to a run's made of several: its passes, bytes and busy time summed,
  // the peaks the larger of the two.
  void add(TiledReport const& stage) {
    passes += stage.passes;
    pixel_bytes_read += stage.pixel_bytes_read;
    pixel_bytes_written += stage.pixel_bytes_written;
    peak_tile_bytes = std::max(peak_tile_bytes, stage.peak_tile_bytes);
    peak_device_bytes = std::max(peak_device_bytes, stage.peak_device_bytes);
    kept_mask_bytes = std::max(kept_mask_bytes, stage.kept_mask_bytes);
    seconds.read += stage.seconds.read;
    seconds.compute += stage.seconds.compute;
    seconds.write += stage.seconds.write;
  }
};

namespace detail {
// Error(usage) naming TiledOptions::tile_width unless both tile sides are multiples of 16 (they
// are the output's TIFF tiles).
inline void require_tile_sizes(TiledOptions const& options) {
  GIGASEG_REQUIRE(options.tile_width >= 16 && options.tile_width % 16 == 0 && options.tile_height >= 16 &&
                      options.tile_height % 16 == 0,
                  ErrorKind::usage, "TiledOptions::tile_width",
                  "tile sizes must be multiples of 16 (they are the output's TIFF tiles)");
}

// The reading threads of a pass whose tiles carry several images or a ring (the rounds, the
// markers' sums, the relief, the statistics): at most four, however many the files allow (`allowed`),
// since each holds a tile's inputs in flight (up to 14 bytes a pixel: 235 MB for a 4096 x 4096 tile
// of the watershed) and the memory limit bounds what the run holds.
constexpr int most_ring_readers = 4;
inline int ring_readers(int allowed) { return std::max(1, std::min(allowed, most_ring_readers)); }

// The GPU memory a tiled run holds above what was in use when it began (TiledReport).
class DevicePeak {
 public:
  DevicePeak() : baseline_(current_device_memory().used) {}
  // On a device backend, while the tile's images on `space` are alive: the peak so far in `peak`.
  template <class Space>
  void sample(Space const&, std::size_t& peak) const {
    if constexpr (!std::is_same<typename Space::memory_space, Kokkos::HostSpace>::value) {
      std::size_t const used = current_device_memory().used;
      if (used > baseline_) peak = std::max(peak, used - baseline_);
    }
  }

 private:
  std::size_t baseline_;
};
}  // namespace detail

// An image-to-image operation of the 8-bit gray image (colour becomes BT.601 gray) whose output
// pixel depends only on the input pixels within `halo` of it, the image's border handled by the
// operation itself (median, Gaussian, Sobel): compute(space, in, out) fills `out` (OutT, in's size)
// on the backend the context picks for a tile. Each tile is read with its halo (clipped to the
// image), computed as an image of its own, and its core written: at internal tile edges the halo
// holds the real neighbours and the operation's border rule touches only halo pixels, so the output
// equals compute on the whole image, byte for byte. One pass.
template <class OutT, class Compute>
TiledReport filter_tiled(ExecutionContext const& context, std::string const& input, std::string const& output,
                         index_t halo, OpFamily family, Compute&& compute, TiledOptions const& options = {}) {
  detail::require_tile_sizes(options);
  GIGASEG_REQUIRE(halo >= 0, ErrorKind::usage, "filter_tiled(halo)", "must be 0 or more");
  ImageShape const shape = image_shape(input);
  index_t const across = (shape.width + options.tile_width - 1) / options.tile_width;
  TiledReport report;
  report.tiles = across * ((shape.height + options.tile_height - 1) / options.tile_height);
  report.passes = 1;
  std::vector<std::size_t> const mine = detail::owned_tiles(std::size_t(report.tiles), options.group);
  std::unique_ptr<detail::SharedTileWriter> writer;
  // Tile t: its core at (x, y), w x h, inside the region read, `extended`.
  auto extended_of = [&](std::size_t t, Region* core) {
    index_t const c = index_t(t) % across, r = index_t(t) / across;
    index_t const x = c * options.tile_width, y = r * options.tile_height;
    *core =
        Region{x, y, std::min(options.tile_width, shape.width - x), std::min(options.tile_height, shape.height - y)};
    index_t const x0 = std::max<index_t>(0, x - halo), y0 = std::max<index_t>(0, y - halo);
    index_t const x1 = std::min(shape.width, core->x + core->width + halo);
    index_t const y1 = std::min(shape.height, core->y + core->height + halo);
    return Region{x0, y0, x1 - x0, y1 - y0};
  };
  int const threads = options.threads > 0 ? options.threads : io_threads();
  detail::DevicePeak const device_peak;
  report.rank_tiles = index_t(mine.size());
  for (std::size_t t : mine) {
    Region core;
    extended_of(t, &core);
    report.rank_pixels += core.width * core.height;
  }
  detail::collectively(options.group, [&] {
    writer = std::make_unique<detail::SharedTileWriter>(options.group, output, shape.width, shape.height,
                                                        PixelTraits<OutT>::type, options.tile_width,
                                                        options.tile_height, options.write);
    detail::TileReader reader(input, shape, options.tile_width, options.tile_height);
    detail::TileLanes lanes(context, options.lanes);  // on the GPU: pinned uploads, downloads overlapping the next tile
    detail::pipeline_tiles(
        mine.size(),
        [&](std::size_t i) {
          Region core;
          return lanes.stage(reader.read(extended_of(mine[i], &core)), family);
        },
        [&](std::size_t i, InputImage&& tile) {
          std::size_t const t = mine[i];
          Region core;
          Region const extended = extended_of(t, &core);
          report.pixel_bytes_read +=
              std::size_t(extended.width * extended.height * bytes_per_pixel(pixel_type(tile.pixels)));
          detail::TileOutput<OutT> computed;
          lanes.run(extended.width * extended.height, family, [&](auto const& space) {
            using Space = std::decay_t<decltype(space)>;
            using Memory = typename Space::memory_space;
            ImageView<std::uint8_t const, Memory> in = lanes.gray8(space, tile, input);
            ScratchImage<OutT, Space> const out(space, "gigaseg::tiled::filtered", in.width(), in.height());
            compute(space, in, out.view());
            computed = lanes.download(space, out.view());
            device_peak.sample(space, report.peak_device_bytes);
          });
          report.pixel_bytes_written += std::size_t(core.width * core.height) * sizeof(OutT);
          report.peak_tile_bytes =
              std::max(report.peak_tile_bytes, std::size_t(extended.width * extended.height) * (4 + sizeof(OutT)));
          if (options.progress) options.progress(index_t(i) + 1, index_t(mine.size()));
          computed.image = computed.image.roi(core.x - extended.x, core.y - extended.y, core.width, core.height);
          return computed;
        },
        [&](std::size_t i, detail::TileOutput<OutT>&& core) {
          core.wait();
          writer->write_tile(index_t(mine[i]) % across, index_t(mine[i]) / across, core.image);
        },
        detail::PipelineWorkers{reader.concurrent_reads(threads), threads, &report.seconds});
  });
  writer->commit();
  return report;
}

struct TiledLabelResult {
  index_t components = 0;
  std::vector<RegionStats> regions;  // when asked for: as region_stats on the whole image
  TiledReport report;
};

// Connected components of the TIFF `input` (8/16/32-bit gray or 8-bit RGB, taken to gray as
// read_image's users do), written to `output` (.tif, 32-bit labels, tiled): labels equal to label()
// on the whole image, canonical (components numbered by their first pixel in raster order), under
// 4- or 8-connectivity (diagonal neighbours across tile corners included) and in equal-value mode.
//
// Two passes, each tile's work on the backend the context picks for it. The first labels each
// tile on its own and keeps the labels and values of its four edges and each tile-local
// component's sums (region_totals, in image coordinates); tile-local components that touch across
// tile edges and corners are then joined (union-find whose root is the component's first pixel),
// their sums merged (a pixel edge on a seam between two pixels of one component is taken off the
// perimeter) and numbered in raster order of their first pixels. The second pass labels each tile
// again (labelling is deterministic), renumbers it on the backend and writes it: only the edges and
// the sums come back from the first pass, and nothing per pixel is kept between the passes.
// With `stats`, the regions' statistics against the input's intensities (8- or 16-bit), equal to
// region_stats() on the whole image.
//
// On a group of ranks (TiledOptions::group) each rank labels its run of tiles and keeps its
// components' sums; the tiles' edges (and the first rows of the components on them) go to every
// rank, which joins the components on the edges alike; each rank numbers the sets whose first
// pixel lies in its tiles, from per-(row, tile column) counts summed over the ranks, and the
// numbers of the sets on edges go to every rank. The statistics meet on rank 0 only: `regions` is
// rank 0's (empty elsewhere), `components` every rank's; with TiledOptions::spread_regions each
// rank's `regions` are those of its share of the labels, their sums sent to it by the other ranks.
//
// Errors as read_image_region and TiffTileWriter: Error(input) naming the file and the tile for a
// corrupt tile, Error(resource) for a full disk, and nothing under `output` on any failure.
TiledLabelResult label_tiled(ExecutionContext const& context, std::string const& input, std::string const& output,
                             LabelParams const& params = {}, bool stats = false, TiledOptions const& options = {});

// The 256-bin histogram of a TIFF's 8-bit gray (colour as BT.601 gray) read tile by tile: the
// counts histogram() gives on the whole image. One pass; its stages' busy time is added to
// `seconds` when given.
std::vector<std::uint64_t> histogram_tiled(ExecutionContext const& context, std::string const& input,
                                           TiledOptions const& options = {}, StageSeconds* seconds = nullptr);

// The exact Euclidean distance transform (algorithms/distance.hpp) of a TIFF's 8-bit gray (colour
// as BT.601 gray; zero pixels are the background), written to `output` (.tif, 32-bit float,
// tiled): equal, value for value, to distance_transform() on the whole image.
//
// Two passes over bands of whole rows, options.tile_height rows each (the output's tiles are
// options.tile_width x options.tile_height). The first reads each band and keeps, per column, its
// first and last zero row (and the band's mask, one bit a pixel, when the masks of the whole image
// fit options.mask_cache_bytes); from those each band's carries follow: in every column, the
// nearest zero pixel above the band and below it. The second reads each band again (or unpacks
// its mask) and transforms it with its carries (distance_transform_band): the column pass
// continues from the carries, and the row pass needs nothing beyond the band's whole rows. Exact,
// so equal to the in-memory transform whatever the band height; a band's work takes about
// distance_band_bytes_per_pixel bytes a pixel, and the carries 8 bytes per column and band.
// Error(input) naming the file when the image has no zero pixel, or as label_tiled for a corrupt
// block; nothing under `output` on any failure. On a group of ranks (TiledOptions::group) each
// takes a run of bands, and the bands' first and last zero rows (8 bytes a column and band) go to
// every rank between the passes.
TiledReport distance_tiled(ExecutionContext const& context, std::string const& input, std::string const& output,
                           TiledOptions const& options = {});

// The memory a band of distance_tiled takes while it is computed, a pixel: its pixels as read (at
// most 4 bytes), the gray mask (1), the column pass's nearest rows (4), the distances (4) and their
// copy on the host (4).
constexpr double distance_band_bytes_per_pixel = 17;

// The rows of a band (a multiple of 16, 16 to 4096) such that distance_tiled's bands in flight fit
// `memory_bytes` for an image `width` pixels wide, with `threads` threads reading and writing (each
// holding a band's pixels or distances, 4 bytes a pixel, on top of the one computed).
index_t distance_band_rows(index_t width, std::size_t memory_bytes, int threads);

struct TiledWatershedResult {
  index_t rounds = 0;             // rounds over the tiles until no border changed
  index_t tile_computations = 0;  // tiles computed in all
  TiledReport report;             // passes: rounds + 1
};

// The marker-based watershed (algorithms/watershed.hpp) of the TIFFs `relief` (8/16-bit or
// float), `markers` (8/16/32-bit labels, 0 = unlabelled) and `mask` (empty: none; gray, 0 =
// outside), all of one size, written to `output` (.tif, 32-bit labels, tiled): equal, label for
// label, to watershed() on the whole images.
//
// The watershed is global (a flood can cross the image), so each tile is computed with a ring of
// one pixel around it (watershed_tile): its neighbours' border keys and labels as known so far,
// kept between rounds for the rows and columns on either side of every seam (12 bytes a pixel of
// those lines). Round 1 computes every tile; each later round the tiles whose ring changed, in
// raster order, a tile seeing the borders computed before it in the round. Keys only fall, so the
// rounds end at the whole image's keys and labels. Each computation's labels go to a scratch file
// beside `output` (4 bytes a pixel, removed afterwards); a tile's last computation had its final
// ring, so a last pass writes those labels. The rounds needed grow with the tiles a flood path crosses (a spiral
// plateau through every tile takes about one round per crossing).
TiledWatershedResult watershed_tiled(ExecutionContext const& context, std::string const& relief,
                                     std::string const& markers, std::string const& mask, std::string const& output,
                                     WatershedParams const& params = {}, TiledOptions const& options = {});

struct TiledMarkersResult {
  index_t markers = 0;                                    // M
  index_t reconstruction_rounds = 0, plateau_rounds = 0;  // rounds of tiles with rings
  index_t tile_computations = 0;                          // in the rounds
  TiledReport report;                                     // over every pass
};

// distance_markers() (algorithms/markers.hpp) of the float TIFF `distance` (the distance
// transform, distance_tiled), written to `output` (.tif, 32-bit labels, tiled): equal, label for
// label, to distance_markers() on the whole image.
//
// The reconstruction by dilation (h-maxima) and the spread of the non-maximum flags over plateaus
// are global fixpoints: each runs in rounds of tiles with rings (h_maxima_tile,
// regional_maxima_tile), as watershed_tiled's keys do; each tile's reconstruction and flags from its
// last computation wait in scratch files (5 bytes a pixel). A pass then writes the peaks (regional
// maxima) and the foreground to scratch TIFFs beside `output` (all removed afterwards), and
// label_tiled numbers the peaks as label() does. With a minimum separation, the foreground's
// components are labelled too, a pass sums each marker's pixels and takes its height and
// component, the host decides as in memory (separate_markers), and a last pass renumbers.
TiledMarkersResult distance_markers_tiled(ExecutionContext const& context, std::string const& distance,
                                          std::string const& output, MarkerParams const& params = {},
                                          TiledOptions const& options = {});

// merge_small_regions() (algorithms/markers.hpp) of the label TIFF `labels` (regions 1..count),
// written to `output` (.tif, 32-bit, tiled): equal to it on the whole image. Three passes on the
// host: the regions' areas and first pixels; the pixel edges between different regions where one is
// small (each tile read with the column to its right and the row below); the new numbers written.
// Returns the regions left; the passes and bytes are added to `report` when given.
index_t merge_small_regions_tiled(std::string const& labels, std::string const& output, index_t count, index_t min_area,
                                  TiledOptions const& options = {}, TiledReport* report = nullptr);

// region_stats() of the label TIFF `labels` (regions 1..count) against the TIFF `intensity` (8- or
// 16-bit gray, or 8-bit RGB taken as BT.601 gray), tile by tile: equal to region_stats() on the whole
// images (the perimeter counts pixel edges to other labels across tile edges, each tile read with a
// ring of one pixel). One pass on the host.
std::vector<RegionStats> region_stats_tiled(std::string const& labels, index_t count, std::string const& intensity,
                                            TiledOptions const& options = {}, TiledReport* report = nullptr);

struct TiledCellsResult {
  int threshold = 0;
  bool dark = false;
  index_t markers = 0, components = 0;
  std::vector<RegionStats> regions;
  index_t reconstruction_rounds = 0, plateau_rounds = 0, watershed_rounds = 0;
  // Computed by windows (TiledOptions::cells_window_halo): the halo (0: by the rounds of tiles),
  // and the tiles computed again in the wider window.
  index_t window_halo = 0, window_retries = 0;
  TiledReport report;  // over every pass of every stage
  // The wall seconds of each stage, in the order run: histogram, mask, distance, markers, relief,
  // watershed, merge, statistics.
  std::vector<std::pair<std::string, double>> stage_seconds;
};

// The `cells` pipeline (algorithms/pipelines/cells.hpp, the distance relief) on a TIFF (8-bit gray or
// RGB) tile by tile, equal, label for label and statistic for statistic, to segment_cells() on the
// whole image.
//
// By windows (one process, TiledOptions::cells_window_halo > 0, the bands below within
// memory_bytes): the image is read in bands of whole tile rows, each decoded once per pass, and
// 1. the histogram of the median-filtered bands gives Otsu's threshold and the side;
// 2. each tile is computed whole in a window `cells_window_halo` pixels wider around it (the
//    median, the mask, segment_cells_from_mask, the statistics) and kept when every mask component
//    with a pixel in the tile stays inside the window (engine/tiled_cells_windows.cpp says why that
//    gives the whole image's labels); else in a wider window; each finished row of tiles is
//    numbered and written. Two passes, no scratch files.
// When a tile's components reach past the wider window too (a component larger than it, a
// distance longer), or a distance reaches 256 (the in-memory pipeline then floods a float relief),
// the output of that pass is dropped and the rounds below run instead. A halo above the tile
// height, or not above the median's and the opening's reach plus one, runs the rounds.
//
// By rounds of tiles: each global stage runs under the engine, its intermediate images in scratch
// TIFFs beside `output` (uncompressed, about 15 bytes a pixel, removed afterwards):
//   1. the histogram of the median-filtered tiles (read with the median's halo): Otsu's threshold
//      and the side, as in memory;
//   2. the mask: median, the side, the opening, on tiles read with the halos of both;
//   3. distance_tiled on the mask (bands lowered to distance_band_rows within options.memory_bytes);
//   4. distance_markers_tiled on the distances;
//   5. the relief (65535 - squared distance in 16 bits while the distances stay below 256, the
//      negated distance beyond) and watershed_tiled inside the mask;
//   6. merge_small_regions_tiled into `output`, and region_stats_tiled against the gray.
// The gradient relief is a usage error here.
TiledCellsResult segment_cells_tiled(ExecutionContext const& context, std::string const& input,
                                     std::string const& output, CellsParams const& params = {},
                                     TiledOptions const& options = {});

namespace detail {
// Whether segment_cells_tiled computes by windows, and with which halos.
struct CellsWindowsPlan {
  static constexpr index_t retry_factor = 8;
  bool use = false;
  index_t halo = 0, retry_halo = 0;  // retry_halo 0: no second window
  index_t mask_halo = 0;             // the pixels the median and the opening read around a pixel
  int writers = 1;                   // rows of tiles written at once
};
CellsWindowsPlan cells_windows_plan(ExecutionContext const& context, std::string const& input, ImageShape const& shape,
                                    CellsParams const& params, TiledOptions const& options);
// Pass 1 by windows: the histogram of the median-filtered image, read in bands of tile rows.
std::vector<std::uint64_t> cells_histogram_by_bands(ExecutionContext const& context, std::string const& input,
                                                    CellsParams const& params, TiledOptions const& options,
                                                    TiledReport& report);
// Pass 2 by windows, with result.threshold and result.dark set: the labels into `output`, and the
// markers, components and regions into `result`; false (nothing written, no regions) when a tile
// did not hold in its wider window.
bool cells_by_windows(ExecutionContext const& context, std::string const& input, std::string const& output,
                      CellsParams const& params, TiledOptions const& options, CellsWindowsPlan const& plan,
                      TiledCellsResult& result);
}  // namespace detail

struct TiledKMeansFit {
  KMeansModel model;                        // the winning attempt's, done
  KMeansResult clusters;                    // as kmeans() on the whole image returns them
  std::vector<std::uint64_t> class_pixels;  // pixels of each class (label order), k of them
  TiledReport report;                       // one pass
};

// kmeans() (algorithms/kmeans.hpp) of a TIFF (8-bit RGB, or gray taken as R = G = B) read tile by
// tile: the same centres, iterations, inertia and attempt as on the whole image, through
// KMeansModel. One pass over the tiles counts the image's colours (a histogram of 2^24 counts,
// 128 MiB, filled by the reading threads) and takes every attempt's sample pixels; K-means' steps
// depend on a pixel's colour only, so the update steps and the final assignment then run on the
// colours present, on the host, not on the image again. On a group of ranks each rank counts its
// own tiles' colours, and the samples, each step's sums and the final totals are summed over the
// ranks. No output is written.
TiledKMeansFit kmeans_fit_tiled(std::string const& input, KMeansParams const& params, TiledOptions const& options = {});

struct TiledKMeansResult {
  KMeansResult clusters;
  int object_class = 0;
  index_t components = 0;
  std::vector<RegionStats> regions;
  TiledReport report;
};

// The `kmeans` pipeline (algorithms/pipelines/kmeans_segment.hpp) on a TIFF (8-bit RGB or gray)
// tile by tile, equal, label for label and statistic for statistic, to segment_kmeans() on the
// whole image: kmeans_fit_tiled, the object class from its class counts as in memory, then
// label_tiled's two passes on each tile's mask of that class (its classes assigned on the backend
// from the final centres, kmeans_assign), the statistics against the tile's BT.601 gray. Three
// passes, as the nuclei pipeline.
TiledKMeansResult segment_kmeans_tiled(ExecutionContext const& context, std::string const& input,
                                       std::string const& output, KMeansSegmentParams const& params = {},
                                       TiledOptions const& options = {});

struct TiledNucleiResult {
  int threshold = 0;
  bool dark = false;  // the side taken
  index_t components = 0;
  std::vector<RegionStats> regions;
  TiledReport report;
};

// The `nuclei` pipeline (algorithms/pipelines/nuclei.hpp) on a TIFF (8-bit gray or RGB) tile by
// tile, equal to segment_nuclei on the whole image: a first pass takes the histogram of every
// tile, Otsu's threshold and the side from it as the in-memory pipeline does; then label_tiled's
// two passes on each tile's mask, with the statistics against the gray image. Three passes.
TiledNucleiResult segment_nuclei_tiled(ExecutionContext const& context, std::string const& input,
                                       std::string const& output, NucleiParams const& params = {},
                                       TiledOptions const& options = {});

}  // namespace gigaseg
