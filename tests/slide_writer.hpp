#pragma once
// A synthetic Aperio SVS written with libtiff, for the whole-slide tests and measurements: stained
// tissue (dark purple nuclei on a pink, unevenly stained background, with the scanner's white where
// there is no tissue), JPEG tiles (or uncompressed, for exact comparisons), level 0 and its reduced
// levels as further tiled directories, and the ImageDescription by which OpenSlide knows an Aperio
// slide (magnification and microns per pixel). The pixels are a function of their position, so no
// level is held whole: a row of tiles at a time, made on every core.
#include <cstdint>
#include <string>
#include <vector>

namespace gigaseg::test {

struct Rgb {
  std::uint8_t r, g, b;
};

// Level 0's pixel at (x, y), and the pixel of a level with downsample d: the mean of the d x d
// level-0 pixels it covers, rounded.
Rgb slide_pixel(std::int64_t x, std::int64_t y);
Rgb slide_level_pixel(std::int64_t x, std::int64_t y, int d);

struct SlideSpec {
  std::int64_t width = 0, height = 0;
  int tile = 240;                       // multiple of 16; Aperio writes 240
  std::vector<int> downsamples{4, 16};  // the reduced levels: level-0 size / d, rounded down
  double mpp = 0.25;                    // microns per pixel at level 0; 0 leaves MPP out
  bool jpeg = true;                     // JPEG (YCbCr 4:2:0) tiles; else uncompressed RGB
  int quality = 80;
};

// Throws std::runtime_error when the file cannot be written.
void write_svs(std::string const& path, SlideSpec const& spec);

}  // namespace gigaseg::test
