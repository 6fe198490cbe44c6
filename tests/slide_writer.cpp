// A synthetic Aperio SVS written with libtiff (slide_writer.hpp).
#include "tests/slide_writer.hpp"

#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gigaseg::test {
namespace {

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace

// Level 0's pixel at (x, y): nuclei one to a 40-pixel square (15% empty), radius 7 to 16, inside a
// tissue whose edge is a slow wave; outside it the scanner's white.
Rgb slide_pixel(std::int64_t x, std::int64_t y) {
  double const edge = 0.5 + 0.08 * std::sin(double(y) * 0.0007) + 0.05 * std::sin(double(x) * 0.0011);
  std::uint64_t const noise = mix(std::uint64_t(x) * 0x9e3779b97f4a7c15ULL ^ std::uint64_t(y) * 0xbf58476d1ce4e5b9ULL);
  int const jitter = int(noise % 17) - 8;
  // Tissue covers most of the slide but for bands along its edges, as a real section does.
  double const fx = double(x) * 0.00013, fy = double(y) * 0.00017;
  bool const tissue = std::sin(fx * 6.1 + 1.3) * std::cos(fy * 5.3 + 0.4) > -edge;
  if (!tissue) return {std::uint8_t(242 + jitter / 3), std::uint8_t(242 + jitter / 3), std::uint8_t(244 + jitter / 3)};
  std::int64_t const sx = x / 40, sy = y / 40;
  std::uint64_t const h = mix(std::uint64_t(sx) * 0x632be59bd9b4e019ULL + std::uint64_t(sy) * 0x85157af5ULL + 7);
  bool nucleus = false;
  int stain = 0;
  if (h % 100 >= 15) {
    double const radius = 7 + double((h >> 8) % 10);
    double const cx = double(sx * 40) + 20 + double(int((h >> 16) % 9) - 4);
    double const cy = double(sy * 40) + 20 + double(int((h >> 24) % 9) - 4);
    double const dx = double(x) - cx, dy = double(y) - cy;
    nucleus = dx * dx + dy * dy <= radius * radius;
    stain = int((h >> 32) % 40);
  }
  double const wash = 0.5 + 0.5 * std::sin(double(x) * 0.002 + double(y) * 0.0013);
  if (nucleus)
    return {std::uint8_t(std::clamp(70 + stain + jitter, 0, 255)),
            std::uint8_t(std::clamp(40 + stain / 2 + jitter, 0, 255)),
            std::uint8_t(std::clamp(120 + stain + jitter, 0, 255))};
  return {std::uint8_t(std::clamp(int(225 - 15 * wash) + jitter, 0, 255)),
          std::uint8_t(std::clamp(int(160 - 25 * wash) + jitter, 0, 255)),
          std::uint8_t(std::clamp(int(200 - 10 * wash) + jitter, 0, 255))};
}

Rgb slide_level_pixel(std::int64_t x, std::int64_t y, int d) {
  if (d == 1) return slide_pixel(x, y);
  unsigned r = 0, g = 0, b = 0;
  for (int j = 0; j < d; ++j)
    for (int i = 0; i < d; ++i) {
      Rgb const p = slide_pixel(x * d + i, y * d + j);
      r += p.r;
      g += p.g;
      b += p.b;
    }
  unsigned const n = unsigned(d * d);
  return {std::uint8_t((r + n / 2) / n), std::uint8_t((g + n / 2) / n), std::uint8_t((b + n / 2) / n)};
}

namespace {
[[noreturn]] void fail(std::string const& what) { throw std::runtime_error("make_slide: " + what); }

void write_level(TIFF* tiff, std::int64_t width, std::int64_t height, int downsample, int tile, bool jpeg, int quality,
                 std::string const& description) {
  TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, std::uint32_t(width));
  TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, std::uint32_t(height));
  TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, 8);
  TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, 3);
  TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tiff, TIFFTAG_TILEWIDTH, std::uint32_t(tile));
  TIFFSetField(tiff, TIFFTAG_TILELENGTH, std::uint32_t(tile));
  if (!description.empty()) TIFFSetField(tiff, TIFFTAG_IMAGEDESCRIPTION, description.c_str());
  if (jpeg) {
    TIFFSetField(tiff, TIFFTAG_COMPRESSION, COMPRESSION_JPEG);
    TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_YCBCR);
    TIFFSetField(tiff, TIFFTAG_YCBCRSUBSAMPLING, 2, 2);
    TIFFSetField(tiff, TIFFTAG_JPEGQUALITY, quality);
    TIFFSetField(tiff, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
  } else {
    TIFFSetField(tiff, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
    TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
  }
  std::int64_t const across = (width + tile - 1) / tile, down = (height + tile - 1) / tile;
  std::size_t const tile_bytes = std::size_t(tile) * std::size_t(tile) * 3;
  std::vector<std::uint8_t> row(std::size_t(across) * tile_bytes);
  unsigned const threads = std::max(1u, std::thread::hardware_concurrency());
  for (std::int64_t ty = 0; ty < down; ++ty) {
    // The row of tiles on every core (edge tiles padded with white), then encoded in order.
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (std::int64_t tx = t; tx < across; tx += threads) {
          std::uint8_t* out = row.data() + std::size_t(tx) * tile_bytes;
          for (int j = 0; j < tile; ++j)
            for (int i = 0; i < tile; ++i, out += 3) {
              std::int64_t const x = tx * tile + i, y = ty * tile + j;
              Rgb const p = x < width && y < height ? slide_level_pixel(x, y, downsample) : Rgb{255, 255, 255};
              out[0] = p.r;
              out[1] = p.g;
              out[2] = p.b;
            }
        }
      });
    for (auto& thread : pool) thread.join();
    for (std::int64_t tx = 0; tx < across; ++tx)
      if (TIFFWriteEncodedTile(tiff, TIFFComputeTile(tiff, std::uint32_t(tx * tile), std::uint32_t(ty * tile), 0, 0),
                               row.data() + std::size_t(tx) * tile_bytes, tsize_t(tile_bytes)) < 0)
        fail("cannot write a tile");
  }
  if (!TIFFWriteDirectory(tiff)) fail("cannot write a directory");
}

}  // namespace

void write_svs(std::string const& path, SlideSpec const& spec) {
  std::int64_t const width = spec.width, height = spec.height;
  int const tile = spec.tile;
  if (width <= 0 || height <= 0 || tile <= 0 || tile % 16 != 0) fail("bad size or tile");
  double const bytes = double(width) * double(height) * 3;
  TIFF* tiff = TIFFOpen(path.c_str(), bytes > 3.5e9 ? "w8" : "w");  // BigTIFF past classic TIFF's 4 GiB
  if (tiff == nullptr) fail("cannot create " + path);
  // Aperio's description: the first line names the library, then |-separated key = value pairs.
  std::string description =
      "Aperio Image Library v12.0.15 \r\n" + std::to_string(width) + "x" + std::to_string(height) + " [0,0 " +
      std::to_string(width) + "x" + std::to_string(height) + "] (" + std::to_string(tile) + "x" + std::to_string(tile) +
      ") " + (spec.jpeg ? "JPEG/RGB Q=" + std::to_string(spec.quality) : std::string("RAW")) + "|AppMag = 40";
  if (spec.mpp > 0) description += "|MPP = " + std::to_string(spec.mpp);
  write_level(tiff, width, height, 1, tile, spec.jpeg, spec.quality, description);
  for (int d : spec.downsamples) {
    if (d < 2 || width / d == 0 || height / d == 0) fail("bad downsample " + std::to_string(d));
    write_level(tiff, width / d, height / d, d, tile, spec.jpeg, spec.quality,
                "Aperio Image Library v12.0.15 \r\nreduced");
  }
  TIFFClose(tiff);
}

}  // namespace gigaseg::test
