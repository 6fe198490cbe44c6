// kmeans_fit_tiled (engine/tiled.hpp): K-means of an image read tile by tile, through the
// KMeansModel of algorithms/kmeans.hpp on the image's colour histogram, so that its centres and
// inertia are kmeans()'s on the whole image.
#include "gigaseg/engine/tile_rings.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gigaseg {
namespace {

// The counts of one tile's colours, kept by the reading thread that decoded it in a small
// open-addressing table (2^16 slots, 768 KiB: in the core's cache), added to the image's histogram
// of 2^24 counts (atomically: the reading threads share it) when the table is half full and at the
// end. Atomic adds of every run of pixels straight into the histogram had the reading threads
// contend for the few cache lines that hold a stained image's common colours.
class ColourCounter {
 public:
  explicit ColourCounter(std::vector<std::uint64_t>& histogram)
      : histogram_(histogram), keys_(slots, empty), counts_(slots, 0) {}
  void add(std::uint32_t colour, std::uint64_t n) {
    std::size_t slot = std::size_t((colour * 2654435761u) >> (32 - bits));
    while (keys_[slot] != colour) {
      if (keys_[slot] == empty) {
        if (used_ == slots / 2) {  // half full: hand the counts over and start again
          flush();
          return add(colour, n);
        }
        keys_[slot] = colour;
        ++used_;
        break;
      }
      slot = (slot + 1) & (slots - 1);
    }
    counts_[slot] += n;
  }
  void flush() {
    for (std::size_t slot = 0; slot < slots; ++slot)
      if (keys_[slot] != empty) {
        __atomic_fetch_add(&histogram_[keys_[slot]], counts_[slot], __ATOMIC_RELAXED);
        keys_[slot] = empty;
        counts_[slot] = 0;
      }
    used_ = 0;
  }

 private:
  static constexpr int bits = 16;
  static constexpr std::size_t slots = std::size_t(1) << bits;
  static constexpr std::uint32_t empty = ~std::uint32_t(0);  // no colour has the top byte set
  std::vector<std::uint64_t>& histogram_;
  std::vector<std::uint32_t> keys_;
  std::vector<std::uint64_t> counts_;
  std::size_t used_ = 0;
};

}  // namespace

TiledKMeansFit kmeans_fit_tiled(std::string const& input, KMeansParams const& params, TiledOptions const& options) {
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
  // The attempts' samples: the tiles (of this rank) holding each attempt's sample pixels.
  std::vector<std::size_t> position(std::size_t(grid.tiles()), mine.size());
  for (std::size_t i = 0; i < mine.size(); ++i) position[mine[i]] = i;
  std::vector<KMeansModel> models;
  struct Pick {
    std::size_t attempt, sample;
  };
  std::vector<std::vector<Pick>> picks(mine.size());
  for (int attempt = 0; attempt < params.attempts; ++attempt) {
    models.push_back(kmeans_model(params, shape.width, shape.height, attempt));
    std::vector<index_t> const& pixels = models.back().sample_pixels;
    for (std::size_t s = 0; s < pixels.size(); ++s) {
      index_t const y = pixels[s] / shape.width, x = pixels[s] % shape.width;
      std::size_t const t = std::size_t((y / grid.tile_height) * grid.across + x / grid.tile_width);
      if (position[t] < mine.size()) picks[position[t]].push_back({std::size_t(attempt), s});
    }
  }
  std::vector<std::vector<std::uint64_t>> packed(models.size());
  for (std::size_t a = 0; a < models.size(); ++a) packed[a].assign(models[a].sample.size(), 0);

  // The one pass over the image: every tile's colours counted into this rank's histogram (the reader
  // threads count the tiles they decode, a run of equal pixels at a time, ColourCounter), the
  // samples' pixels taken.
  std::vector<std::uint64_t> histogram;  // 0xBBGGRR
  auto colour = [](Rgb8 v) { return std::size_t(v.r) | std::size_t(v.g) << 8 | std::size_t(v.b) << 16; };
  detail::collectively(options.group, [&] {
    histogram.assign(std::size_t(1) << 24, 0);
    detail::TileReader reader(input, shape, grid.tile_width, grid.tile_height);
    detail::pipeline_tiles(
        mine.size(),
        [&](std::size_t i) {
          HostImage<Rgb8> rgb = rgb8_of(reader.read(grid.core(index_t(mine[i]))), input, "the kmeans pipeline");
          ColourCounter counter(histogram);
          for (index_t y = 0; y < rgb.height(); ++y) {
            Rgb8 const* row = rgb.row(y);
            index_t x = 0;
            while (x < rgb.width()) {
              index_t end = x + 1;
              while (end < rgb.width() && colour(row[end]) == colour(row[x])) ++end;
              counter.add(std::uint32_t(colour(row[x])), std::uint64_t(end - x));
              x = end;
            }
          }
          counter.flush();
          return rgb;
        },
        [&](std::size_t i, HostImage<Rgb8>&& rgb) {
          Region const core = grid.core(index_t(mine[i]));
          for (Pick const& pick : picks[i]) {
            index_t const p = models[pick.attempt].sample_pixels[pick.sample];
            packed[pick.attempt][pick.sample] = colour(rgb(p / shape.width - core.y, p % shape.width - core.x));
          }
          report.pixel_bytes_read += std::size_t(core.width * core.height) * sizeof(Rgb8);
          report.peak_tile_bytes = std::max(report.peak_tile_bytes, std::size_t(core.width * core.height) * 3);
          if (options.progress) options.progress(index_t(i) + 1, index_t(mine.size()));
          return 0;
        },
        [](std::size_t, int) {}, detail::PipelineWorkers{reader.concurrent_reads(threads), 1, &report.seconds});
  });
  report.passes = 1;
  // The colours present and their counts (12 bytes a colour), the histogram's memory given back.
  std::vector<Rgb8> colours;
  std::vector<std::uint64_t> counts;
  detail::collectively(options.group, [&] {
    std::size_t const present =
        std::size_t(std::count_if(histogram.begin(), histogram.end(), [](std::uint64_t n) { return n != 0; }));
    colours.reserve(present);
    counts.reserve(present);
    for (std::size_t c = 0; c < histogram.size(); ++c)
      if (histogram[c] != 0) {
        colours.push_back(Rgb8{std::uint8_t(c), std::uint8_t(c >> 8), std::uint8_t(c >> 16)});
        counts.push_back(histogram[c]);
      }
    std::vector<std::uint64_t>().swap(histogram);
  });

  // Each attempt on the histogram: on a group, each rank's sums of its own colours summed over the ranks.
  auto compute_start = std::chrono::steady_clock::now();
  for (std::size_t a = 0; a < models.size(); ++a) {
    KMeansModel& model = models[a];
    if (shared) options.group->sum(packed[a].data(), packed[a].size());  // each sample lies in one rank's tile
    for (std::size_t s = 0; s < packed[a].size(); ++s)
      model.sample[s] =
          Rgb8{std::uint8_t(packed[a][s]), std::uint8_t(packed[a][s] >> 8), std::uint8_t(packed[a][s] >> 16)};
    kmeans_initialise(model);
    while (!model.done()) {
      std::vector<std::uint64_t> sums(kmeans_sums_size(k), 0);
      kmeans_add_sums(model, colours, counts, sums);
      if (shared) options.group->sum(sums.data(), sums.size());
      kmeans_update(model, sums);
    }
    std::vector<std::uint64_t> totals(std::size_t(k), 0);  // the k classes' pixels, then the inertia
    std::uint64_t const inertia = kmeans_assign(model, colours, counts, totals);
    totals.push_back(inertia);
    if (shared) options.group->sum(totals.data(), totals.size());
    // The least inertia wins, the earlier attempt on a tie (kmeans()'s rule, on the same integers).
    KMeansResult result = model.result(totals[std::size_t(k)]);
    if (a == 0 || result.inertia < fit.clusters.inertia) {
      fit.clusters = std::move(result);
      fit.model = std::move(model);
      fit.class_pixels.assign(totals.begin(), totals.begin() + k);
    }
  }
  report.seconds.compute += std::chrono::duration<double>(std::chrono::steady_clock::now() - compute_start).count();
  return fit;
}

}  // namespace gigaseg
