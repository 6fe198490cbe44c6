// Writes a large 8-bit image as a tiled TIFF, tile by tile, for measuring and checking the tile
// engine: the whole image never exists in memory.
//
//   tiled_mosaic OUT.tif WIDTH HEIGHT [KIND]
//
// KIND:
//   tissue (default)  each 4096 x 4096 tile its own synthetic tissue (pipelines/synthetic.hpp,
//                     seeded by its position);
//   photo:PATH        the photograph PATH (gray, colour as BT.601 gray) repeated and mirrored
//                     across the image, so that its content runs on across every tile edge;
//   spiral            an adversarial mask (255 / 0): one Archimedean spiral band two pixels wide
//                     winding across the whole image (a single component through every tile, with
//                     long thin arms), a one-pixel spiral between its turns (connected only
//                     diagonally in places: one component under 8-connectivity, many under 4),
//                     and around every point (16a, 16b) the spiral does not touch, a pair of
//                     pixels meeting only at their corners on that point (a one-pixel diagonal
//                     bridge over every tile corner any tile size of multiples of 16 makes),
//                     alternately "\" and "/";
//   far               a mask (255) whose only zero pixels are the 4 x 4 pixels of its top left
//                     corner: distances up to the whole diagonal, every row below the fourth
//                     taking its nearest zero from far above (the distance transform's worst case
//                     for carries between bands).
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/pipelines/synthetic.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/io/tile_writer.hpp"
#include "gigaseg/core/runtime.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using gigaseg::HostImage;
using gigaseg::index_t;

// 0 <= i < 2n, mirrored: 0 1 .. n-1 n-1 .. 1 0.
index_t mirrored(index_t i, index_t n) {
  index_t const k = i % (2 * n);
  return k < n ? k : 2 * n - 1 - k;
}

HostImage<std::uint8_t> gray_photo(std::string const& path) {
  gigaseg::AnyHostImage image = gigaseg::read_image(path);
  if (auto* gray = std::get_if<HostImage<std::uint8_t>>(&image)) return *gray;
  auto* rgb = std::get_if<HostImage<gigaseg::Rgb8>>(&image);
  if (rgb == nullptr) throw std::runtime_error(path + ": needs an 8-bit gray or RGB photograph");
  HostImage<std::uint8_t> gray("photo", rgb->width(), rgb->height());
  for (index_t y = 0; y < gray.height(); ++y)
    for (index_t x = 0; x < gray.width(); ++x) gray(y, x) = gigaseg::detail::luma_bt601((*rgb)(y, x));
  return gray;
}

// The spiral and its ring at (x, y) of a width x height image.
bool on_spiral(index_t x, index_t y, index_t width, index_t height) {
  double const cx = double(width) / 2, cy = double(height) / 2;
  double const dx = double(x) - cx, dy = double(y) - cy;
  double const r = std::sqrt(dx * dx + dy * dy), theta = std::atan2(dy, dx);
  double const pitch = 23.0;  // pixels between the spiral's turns
  double const phase = r - pitch * (theta + M_PI) / (2 * M_PI);
  double const band = phase - pitch * std::floor(phase / pitch);
  return band < 2.0 || (band >= 11.0 && band < 12.0);  // the spiral, two pixels wide; the ring, one
}

// The spiral mask's pixel at (x, y): the spiral, except in the 4 x 4 blocks around the points
// (16a, 16b) that it does not touch, which hold a diagonal pair in their middle 2 x 2.
std::uint8_t spiral(index_t x, index_t y, index_t width, index_t height) {
  index_t const a = (x + 2) / 16, b = (y + 2) / 16;
  bool const in_block = a > 0 && b > 0 && (x + 2) % 16 < 4 && (y + 2) % 16 < 4;
  if (in_block) {
    bool touched = false;
    for (index_t by = 16 * b - 2; by < 16 * b + 2 && !touched; ++by)
      for (index_t bx = 16 * a - 2; bx < 16 * a + 2 && !touched; ++bx)
        touched = bx < width && by < height && on_spiral(bx, by, width, height);
    if (!touched) {
      index_t const ix = x - (16 * a - 2), iy = y - (16 * b - 2);  // 0..3 in the block
      if (ix == 0 || ix == 3 || iy == 0 || iy == 3) return 0;
      bool const left = ix == 1, top = iy == 1;
      bool const backslash = (a + b) % 2 == 0;
      return (backslash ? left == top : left != top) ? 255 : 0;
    }
  }
  return on_spiral(x, y, width, height) ? 255 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: tiled_mosaic OUT.tif WIDTH HEIGHT [tissue|photo:PATH|spiral|far]\n");
    return 2;
  }
  try {
    gigaseg::Runtime runtime(gigaseg::RuntimeOptions{});
    index_t const width = std::atoll(argv[2]), height = std::atoll(argv[3]), tile = 4096;
    std::string const kind = argc == 5 ? argv[4] : "tissue";
    HostImage<std::uint8_t> photo;
    if (kind.rfind("photo:", 0) == 0)
      photo = gray_photo(kind.substr(6));
    else if (kind != "tissue" && kind != "spiral" && kind != "far")
      throw std::runtime_error("unknown kind '" + kind + "': tissue, photo:PATH, spiral or far");
    gigaseg::TiffTileWriter writer(argv[1], width, height, gigaseg::PixelType::u8, tile, tile);
    index_t const across = writer.tiles_across(), tiles = across * writer.tiles_down();
    // Tile t of the image, written (the writer compresses on the calling thread).
    auto make = [&](index_t t) {
      index_t const c = t % across, r = t / across;
      index_t const w = std::min(tile, width - c * tile), h = std::min(tile, height - r * tile);
      if (kind == "tissue") {
        gigaseg::SyntheticParams params;
        params.width = w;
        params.height = h;
        params.seed = std::uint64_t(t + 1);
        writer.write_tile(c, r, gigaseg::AnyHostImage(gigaseg::synthetic_tissue(params).image));
        return;
      }
      HostImage<std::uint8_t> pixels("tile", w, h);
      for (index_t y = 0; y < h; ++y)
        for (index_t x = 0; x < w; ++x) {
          index_t const gx = c * tile + x, gy = r * tile + y;
          pixels(y, x) = kind == "spiral" ? spiral(gx, gy, width, height)
                         : kind == "far"  ? std::uint8_t(gx < 4 && gy < 4 ? 0 : 255)
                                          : photo(mirrored(gy, photo.height()), mirrored(gx, photo.width()));
        }
      writer.write_tile(c, r, gigaseg::AnyHostImage(pixels));
    };
    if (kind == "tissue") {  // synthetic_tissue runs on the host backend's threads itself
      for (index_t t = 0; t < tiles; ++t) make(t);
    } else {  // tiles made and compressed on every core
      std::atomic<index_t> next{0};
      std::exception_ptr failure;
      std::mutex mutex;
      std::vector<std::thread> pool;
      for (unsigned k = 0; k < std::max(1u, std::thread::hardware_concurrency()); ++k)
        pool.emplace_back([&] {
          try {
            for (index_t t = next++; t < tiles; t = next++) make(t);
          } catch (...) {
            std::lock_guard<std::mutex> lock(mutex);
            if (!failure) failure = std::current_exception();
            next = tiles;
          }
        });
      for (std::thread& thread : pool) thread.join();
      if (failure) std::rethrow_exception(failure);
    }
    writer.commit();
  } catch (std::exception const& e) {
    std::fprintf(stderr, "tiled_mosaic: %s\n", e.what());
    return 1;
  }
  return 0;
}
