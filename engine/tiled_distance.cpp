// The exact Euclidean distance transform under tiling (engine/tiled.hpp, distance_tiled): two
// passes over bands of whole rows.
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/distance.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/tile_writer.hpp"
#include "gigaseg/engine/on_backend.hpp"
#include "gigaseg/engine/tile_pipeline.hpp"
#include "gigaseg/engine/tile_reader.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace gigaseg {
namespace {

// For each column of a band's packed mask (pack_mask: bit set = nonzero pixel), the first and the
// last row holding a zero pixel, in image rows (the band starts at row y0); -1 where none.
void zero_extent(HostImage<std::uint32_t> const& bits, index_t width, index_t y0, std::int32_t* first,
                 std::int32_t* last) {
  index_t const words = bits.width(), rows = bits.height();
  for (index_t k = 0; k < words; ++k) {
    index_t const columns = std::min<index_t>(32, width - 32 * k);
    std::uint32_t const valid = columns == 32 ? ~std::uint32_t(0) : (std::uint32_t(1) << columns) - 1;
    for (index_t i = 0; i < columns; ++i) first[32 * k + i] = last[32 * k + i] = -1;
    std::uint32_t seen = 0;
    for (index_t y = 0; y < rows && seen != valid; ++y) {
      std::uint32_t fresh = ~bits(y, k) & valid & ~seen;
      seen |= fresh;
      for (; fresh != 0; fresh &= fresh - 1) first[32 * k + __builtin_ctz(fresh)] = std::int32_t(y0 + y);
    }
    seen = 0;
    for (index_t y = rows - 1; y >= 0 && seen != valid; --y) {
      std::uint32_t fresh = ~bits(y, k) & valid & ~seen;
      seen |= fresh;
      for (; fresh != 0; fresh &= fresh - 1) last[32 * k + __builtin_ctz(fresh)] = std::int32_t(y0 + y);
    }
  }
}

// What a band's read hands to its compute: the pixels read, or in the second pass its mask kept
// from the first.
struct BandInput {
  AnyHostImage pixels;
  HostImage<std::uint32_t> bits;
};

}  // namespace

index_t distance_band_rows(index_t width, std::size_t memory_bytes, int threads) {
  double const per_row = double(width) * (distance_band_bytes_per_pixel + 8.0 * double(std::max(1, threads)));
  index_t const rows = index_t(double(memory_bytes) / per_row) / 16 * 16;
  return std::clamp<index_t>(rows, 16, 4096);
}

TiledReport distance_tiled(ExecutionContext const& context, std::string const& input, std::string const& output,
                           TiledOptions const& options) {
  detail::require_tile_sizes(options);
  ImageShape const shape = image_shape(input);
  GIGASEG_REQUIRE(shape.width <= (index_t(1) << 30) && shape.height <= (index_t(1) << 30), ErrorKind::input, input,
                  "the distance transform takes sides up to 2^30 pixels");
  index_t const width = shape.width, height = shape.height, band_rows = options.tile_height;
  index_t const bands = (height + band_rows - 1) / band_rows;
  index_t const across = (width + options.tile_width - 1) / options.tile_width;
  auto band_of = [&](std::size_t b) {
    index_t const y = index_t(b) * band_rows;
    return Region{0, y, width, std::min(band_rows, height - y)};
  };
  TiledReport report;
  report.tiles = across * bands;
  report.passes = 2;
  // This rank's bands (all of them without a group).
  std::vector<std::size_t> const mine = detail::owned_tiles(std::size_t(bands), options.group);
  index_t const per_pass = index_t(mine.size());
  report.rank_tiles = per_pass * across;
  for (std::size_t b : mine) report.rank_pixels += band_of(b).width * band_of(b).height;
  auto note_band = [&](std::size_t bytes_read, std::size_t band_bytes, index_t done) {
    report.pixel_bytes_read += bytes_read;
    report.peak_tile_bytes = std::max(report.peak_tile_bytes, band_bytes);
    if (options.progress) options.progress(done, 2 * per_pass);
  };
  // The masks of this rank's bands, one bit a pixel, kept for the second pass when they fit the cache.
  std::size_t mask_bytes = 0;
  for (std::size_t b : mine) mask_bytes += std::size_t(packed_mask_width(width) * band_of(b).height) * 4;
  bool const keep_masks = mask_bytes <= options.mask_cache_bytes;
  report.kept_mask_bytes = keep_masks ? mask_bytes : 0;
  std::vector<HostImage<std::uint32_t>> masks(keep_masks ? std::size_t(bands) : 0);
  // Per band and column, the nearest zero pixel above the band and below it: after the first pass
  // the band's own first and last zero row (-1: none), turned into those carries after it.
  std::vector<std::int32_t> above(std::size_t(bands * width)), below(std::size_t(bands * width));
  std::size_t const columns = static_cast<std::size_t>(width);
  std::vector<std::int32_t> running(columns, -1);
  int const threads = options.threads > 0 ? options.threads : io_threads();
  detail::DevicePeak const device_peak;
  // A band's pixels as 8-bit gray on the backend, from the file or from its kept mask.
  auto gray_band = [&](auto const& space, BandInput const& in, Region const& band) {
    using Memory = typename std::decay_t<decltype(space)>::memory_space;
    if (in.bits.empty()) return ImageView<std::uint8_t const, Memory>(gray8_on(space, in.pixels, input));
    ImageView<std::uint8_t, Memory> mask("gigaseg::tiled::mask", band.width, band.height);
    unpack_mask(space, ImageView<std::uint32_t const, Memory>(upload(space, in.bits)), mask);
    return ImageView<std::uint8_t const, Memory>(mask);
  };

  // Pass 1: each band's mask and each column's first and last zero pixel in it.
  detail::collectively(options.group, [&] {
    detail::TileReader first_reader(input, shape, width, band_rows);
    detail::pipeline_tiles(
        mine.size(),
        [&](std::size_t i) {
          return BandInput{first_reader.read(band_of(mine[i])), {}};
        },
        [&](std::size_t i, BandInput&& in) {
          std::size_t const b = mine[i];
          Region const band = band_of(b);
          std::size_t const read_bytes = std::size_t(band.width * band.height * bytes_per_pixel(pixel_type(in.pixels)));
          HostImage<std::uint32_t> bits;
          on_backend(context, band.width * band.height, OpFamily::distance, [&](auto const& space) {
            using Memory = typename std::decay_t<decltype(space)>::memory_space;
            ImageView<std::uint32_t, Memory> packed("gigaseg::tiled::mask_bits", packed_mask_width(width), band.height);
            pack_mask(space, gray_band(space, in, band), packed);
            bits = download(space, packed);
            device_peak.sample(space, report.peak_device_bytes);
          });
          zero_extent(bits, width, band.y, below.data() + b * columns, above.data() + b * columns);
          if (keep_masks) masks[b] = bits;
          note_band(read_bytes, std::size_t(band.width * band.height) * (1 + 4), index_t(i) + 1);
          return 0;
        },
        [](std::size_t, int) {}, detail::PipelineWorkers{first_reader.concurrent_reads(threads), 1, &report.seconds});
  });
  // Every rank's bands' first and last zero rows, on every rank.
  if (detail::group_size(options.group) > 1) {
    std::vector<unsigned char> bytes;
    for (std::size_t b : mine) {
      detail::append_bytes(bytes, below.data() + b * columns, columns);
      detail::append_bytes(bytes, above.data() + b * columns, columns);
    }
    std::vector<std::vector<unsigned char>> const all = options.group->all_gather(bytes);
    for (int r = 0; r < options.group->size(); ++r) {
      std::size_t at = 0;
      for (std::size_t b : detail::owned_tiles(std::size_t(bands), r, options.group->size()))
        for (auto* line : {below.data() + b * columns, above.data() + b * columns}) {
          std::memcpy(line, all[std::size_t(r)].data() + at, columns * sizeof(std::int32_t));
          at += columns * sizeof(std::int32_t);
        }
    }
  }
  // Each band's nearest zero above: the last zero of the nearest band above that has one.
  for (index_t b = 0; b < bands; ++b) {
    std::int32_t* const band_above = above.data() + std::size_t(b) * columns;
    for (index_t x = 0; x < width; ++x) {
      std::int32_t const last = band_above[x];
      band_above[x] = running[std::size_t(x)];
      if (last >= 0) running[std::size_t(x)] = last;
    }
  }
  bool any = false;
  for (std::int32_t const r : running) any = any || r >= 0;
  GIGASEG_REQUIRE(any, ErrorKind::input, input, "the image has no zero pixel, so no distance to one is defined");
  // Each band's nearest zero below: the first zero of the nearest band below that has one.
  std::fill(running.begin(), running.end(), -1);
  for (index_t b = bands - 1; b >= 0; --b) {
    std::int32_t* const band_below = below.data() + std::size_t(b * width);
    for (index_t x = 0; x < width; ++x) std::swap(running[std::size_t(x)], band_below[x]);
    for (index_t x = 0; x < width; ++x)
      if (band_below[x] >= 0 && running[std::size_t(x)] < 0) running[std::size_t(x)] = band_below[x];
  }

  // Pass 2: each band transformed with its carries, its tiles written.
  std::unique_ptr<detail::SharedTileWriter> writer;
  detail::collectively(options.group, [&] {
    writer = std::make_unique<detail::SharedTileWriter>(options.group, output, width, height, PixelType::f32,
                                                        options.tile_width, band_rows, options.write);
    detail::TileReader second_reader(input, shape, width, band_rows);
    detail::pipeline_tiles(
        mine.size(),
        [&](std::size_t i) {
          std::size_t const b = mine[i];
          return keep_masks ? BandInput{AnyHostImage(), masks[b]} : BandInput{second_reader.read(band_of(b)), {}};
        },
        [&](std::size_t i, BandInput&& in) {
          std::size_t const b = mine[i];
          Region const band = band_of(b);
          std::size_t const read_bytes =
              keep_masks ? 0 : std::size_t(band.width * band.height * bytes_per_pixel(pixel_type(in.pixels)));
          if (keep_masks) masks[b] = HostImage<std::uint32_t>();  // `in` holds the last reference
          HostImage<float> distances;
          on_backend(context, band.width * band.height, OpFamily::distance, [&](auto const& space) {
            using Memory = typename std::decay_t<decltype(space)>::memory_space;
            using Carry = Kokkos::View<std::int32_t*, Memory>;
            auto carry = [&](std::vector<std::int32_t> const& all, char const* name) {
              Kokkos::View<std::int32_t const*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> const host(
                  all.data() + b * std::size_t(width), std::size_t(width));
              Carry on_space(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)), columns);
              Kokkos::deep_copy(space, on_space, host);
              return on_space;
            };
            DistanceBand<Memory> const carries{band.y, height, carry(above, "gigaseg::tiled::zero_above"),
                                               carry(below, "gigaseg::tiled::zero_below")};
            ImageView<float, Memory> out("gigaseg::tiled::distance", band.width, band.height);
            distance_transform_band(space, gray_band(space, in, band), carries, out);
            distances = download(space, out);
            device_peak.sample(space, report.peak_device_bytes);
          });
          report.pixel_bytes_written += std::size_t(band.width * band.height) * sizeof(float);
          note_band(read_bytes, std::size_t(band.width * band.height) * std::size_t(distance_band_bytes_per_pixel),
                    per_pass + index_t(i) + 1);
          return distances;
        },
        [&](std::size_t i, HostImage<float>&& distances) {
          for (index_t c = 0; c < across; ++c) {
            index_t const x = c * options.tile_width;
            writer->write_tile(c, index_t(mine[i]),
                               distances.roi(x, 0, std::min(options.tile_width, width - x), distances.height()));
          }
        },
        detail::PipelineWorkers{keep_masks ? 1 : second_reader.concurrent_reads(threads), threads, &report.seconds});
  });
  writer->commit();
  return report;
}

}  // namespace gigaseg
