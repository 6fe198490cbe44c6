// kmeans_fit_tiled (engine/tiled.hpp): K-means of an image read tile by tile, through the
// KMeansModel of algorithms/kmeans.hpp, so that its centres and inertia are kmeans()'s on the
// whole image.
#include "gigaseg/algorithms/histogram.hpp"
#include "gigaseg/engine/tile_rings.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gigaseg {

TiledKMeansFit kmeans_fit_tiled(ExecutionContext const& context, std::string const& input, KMeansParams const& params,
                                TiledOptions const& options) {
  detail::require_tile_sizes(options);
  ImageShape const shape = image_shape(input);
  detail::TileGrid const grid(shape.width, shape.height, options.tile_width, options.tile_height);
  std::vector<std::size_t> const mine = detail::owned_tiles(std::size_t(grid.tiles()), options.group);
  int const threads = options.threads > 0 ? options.threads : io_threads();
  bool const shared = detail::group_size(options.group) > 1;
  int const k = params.k;
  TiledKMeansFit fit;
  TiledReport& report = fit.report;
  report.tiles = grid.tiles();
  report.rank_tiles = index_t(mine.size());
  for (std::size_t t : mine) report.rank_pixels += grid.core(index_t(t)).width * grid.core(index_t(t)).height;
  // Progress over the most passes the run can take: per attempt the sample, the steps and the last.
  index_t const most_passes = index_t(params.attempts) * (index_t(params.iterations) + 2);
  detail::DevicePeak const device_peak;

  // One pass over `tiles` (positions in `mine`): each tile read as RGB (gray as R = G = B, the
  // in-memory pipeline's rgb8_of), then work(i, lanes, core, tile) on the computing thread.
  auto pass = [&](std::vector<std::size_t> const& tiles, auto&& work) {
    detail::collectively(options.group, [&] {
      detail::TileReader reader(input, shape, grid.tile_width, grid.tile_height);
      detail::TileLanes lanes(context, options.lanes);
      detail::pipeline_tiles(
          tiles.size(),
          [&](std::size_t i) {
            AnyHostImage raw = reader.read(grid.core(index_t(mine[tiles[i]])));
            return lanes.stage(rgb8_of(raw, input, "the kmeans pipeline"), OpFamily::pipeline);
          },
          [&](std::size_t i, InputImage&& tile) {
            Region const core = grid.core(index_t(mine[tiles[i]]));
            report.pixel_bytes_read += std::size_t(core.width * core.height) * sizeof(Rgb8);
            report.peak_tile_bytes = std::max(report.peak_tile_bytes, std::size_t(core.width * core.height) * 4);
            work(i, lanes, core, tile);
            if (options.progress)
              options.progress(report.passes * index_t(mine.size()) + index_t(i) + 1,
                               most_passes * index_t(mine.size()));
            return 0;
          },
          [](std::size_t, int) {}, detail::PipelineWorkers{reader.concurrent_reads(threads), 1, &report.seconds});
    });
    report.passes += 1;
  };
  std::vector<std::size_t> every(mine.size());
  for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
  // tile(space, lanes, tile): the tile's RGB in the space's memory.
  auto rgb_on = [](auto const& space, detail::TileLanes& lanes, InputImage const& tile) {
    return lanes.upload(space, std::get<HostImage<Rgb8>>(tile.pixels), tile.memory);
  };

  for (int attempt = 0; attempt < params.attempts; ++attempt) {
    KMeansModel model = kmeans_model(params, shape.width, shape.height, attempt);
    // The sample: the pixels at its raster indices, taken from the tiles (of this rank) that hold
    // them; on a group each sample lies in one rank's tile, and the packed pixels are summed.
    std::vector<std::vector<std::size_t>> in_tile(mine.size());
    std::vector<std::size_t> position(std::size_t(grid.tiles()), mine.size());
    for (std::size_t i = 0; i < mine.size(); ++i) position[mine[i]] = i;
    for (std::size_t s = 0; s < model.sample_pixels.size(); ++s) {
      index_t const p = model.sample_pixels[s], y = p / shape.width, x = p % shape.width;
      std::size_t const t = std::size_t((y / grid.tile_height) * grid.across + x / grid.tile_width);
      if (position[t] < mine.size()) in_tile[position[t]].push_back(s);
    }
    std::vector<std::size_t> sampled;
    for (std::size_t i = 0; i < mine.size(); ++i)
      if (!in_tile[i].empty()) sampled.push_back(i);
    std::vector<std::uint64_t> packed(model.sample.size(), 0);
    pass(sampled, [&](std::size_t i, detail::TileLanes&, Region const& core, InputImage const& tile) {
      HostImage<Rgb8> const& rgb = std::get<HostImage<Rgb8>>(tile.pixels);
      for (std::size_t s : in_tile[sampled[i]]) {
        index_t const p = model.sample_pixels[s];
        Rgb8 const v = rgb(p / shape.width - core.y, p % shape.width - core.x);
        packed[s] = std::uint64_t(v.r) | std::uint64_t(v.g) << 8 | std::uint64_t(v.b) << 16;
      }
    });
    if (shared) options.group->sum(packed.data(), packed.size());
    for (std::size_t s = 0; s < packed.size(); ++s)
      model.sample[s] = Rgb8{std::uint8_t(packed[s]), std::uint8_t(packed[s] >> 8), std::uint8_t(packed[s] >> 16)};
    kmeans_initialise(model);

    // The update steps: each a pass summing every tile's members.
    while (!model.done()) {
      std::vector<std::uint64_t> sums(kmeans_sums_size(k), 0);
      pass(every, [&](std::size_t, detail::TileLanes& lanes, Region const& core, InputImage const& tile) {
        lanes.run(core.width * core.height, OpFamily::pipeline, [&](auto const& space) {
          kmeans_add_sums(space, rgb_on(space, lanes, tile), model, sums);
          device_peak.sample(space, report.peak_device_bytes);
        });
      });
      if (shared) options.group->sum(sums.data(), sums.size());
      kmeans_update(model, sums);
    }

    // The labels' inertia and the classes' pixels.
    std::vector<std::uint64_t> totals(std::size_t(k) + 1, 0);  // the k counts, then the inertia
    pass(every, [&](std::size_t, detail::TileLanes& lanes, Region const& core, InputImage const& tile) {
      lanes.run(core.width * core.height, OpFamily::pipeline, [&](auto const& space) {
        using Space = std::decay_t<decltype(space)>;
        using Memory = typename Space::memory_space;
        ScratchImage<std::uint8_t, Space> const classes(space, "gigaseg::tiled::classes", core.width, core.height);
        totals[std::size_t(k)] += kmeans_assign(space, rgb_on(space, lanes, tile), model, classes.view());
        Counts<Memory> counts("gigaseg::tiled::class_counts", 256);
        histogram(space, ImageView<std::uint8_t const, Memory>(classes.view()), counts);
        auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
        for (int c = 0; c < k; ++c) totals[std::size_t(c)] += host(c);
        device_peak.sample(space, report.peak_device_bytes);
      });
    });
    if (shared) options.group->sum(totals.data(), totals.size());
    // The least inertia wins, the earlier attempt on a tie (kmeans()'s rule, on the same integers).
    KMeansResult result = model.result(totals[std::size_t(k)]);
    if (attempt == 0 || result.inertia < fit.clusters.inertia) {
      fit.clusters = std::move(result);
      fit.model = std::move(model);
      fit.class_pixels.assign(totals.begin(), totals.begin() + k);
    }
  }
  return fit;
}

}  // namespace gigaseg
