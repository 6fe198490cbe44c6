// Writes a synthetic tissue mosaic larger than memory as a tiled TIFF, tile by tile, for measuring
// the tile engine: each 4096 x 4096 tile is its own synthetic tissue (pipelines/synthetic.hpp,
// seeded by its position), so the whole image never exists in memory.
//
//   tiled_mosaic OUT.tif WIDTH HEIGHT
#include "gigaseg/algorithms/pipelines/synthetic.hpp"
#include "gigaseg/core/io/tile_writer.hpp"
#include "gigaseg/core/runtime.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: tiled_mosaic OUT.tif WIDTH HEIGHT\n");
    return 2;
  }
  try {
    gigaseg::Runtime runtime(gigaseg::RuntimeOptions{});
    gigaseg::index_t const width = std::atoll(argv[2]), height = std::atoll(argv[3]), tile = 4096;
    gigaseg::TiffTileWriter writer(argv[1], width, height, gigaseg::PixelType::u8, tile, tile);
    for (gigaseg::index_t r = 0; r < writer.tiles_down(); ++r)
      for (gigaseg::index_t c = 0; c < writer.tiles_across(); ++c) {
        gigaseg::SyntheticParams params;
        params.width = std::min(tile, width - c * tile);
        params.height = std::min(tile, height - r * tile);
        params.seed = std::uint64_t(r * writer.tiles_across() + c + 1);
        writer.write_tile(c, r, gigaseg::AnyHostImage(gigaseg::synthetic_tissue(params).image));
      }
    writer.commit();
  } catch (std::exception const& e) {
    std::fprintf(stderr, "tiled_mosaic: %s\n", e.what());
    return 1;
  }
  return 0;
}
