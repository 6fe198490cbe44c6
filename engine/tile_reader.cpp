// The tile engine's reads (detail::TileReader) and its way in for files that cannot be read by
// region (TiledInput, engine/tiled.hpp).
#include "gigaseg/engine/tile_reader.hpp"
#include "gigaseg/engine/tiled.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <utility>

namespace gigaseg::detail {

TileReader::TileReader(std::string path, ImageShape const& shape, index_t tile_width, index_t tile_height)
    : path_(std::move(path)),
      shape_(shape),
      tile_width_(tile_width),
      tile_height_(tile_height),
      banded_(shape.block_width > tile_width || shape.block_height > tile_height) {}

int TileReader::concurrent_reads(int threads) const {
  if (banded_ || threads <= 1) return 1;
  auto blocks = [](index_t tile, index_t block) { return block > 0 ? (tile + block - 1) / block : 1; };
  index_t const per_tile = blocks(tile_width_, shape_.block_width) * blocks(tile_height_, shape_.block_height);
  return int(std::clamp<index_t>(index_t(threads) / std::max<index_t>(per_tile, 1), 2, threads));
}

AnyHostImage TileReader::read(Region const& region) {
  if (!banded_) return read_image_region(path_, region);
  bool const inside = band_.height > 0 && region.y >= band_.y && region.y + region.height <= band_.y + band_.height;
  if (!inside) {
    index_t const rows = std::max<index_t>(1, shape_.block_height);
    index_t const y0 = region.y / rows * rows;
    index_t const y1 = std::min(shape_.height, (region.y + region.height + rows - 1) / rows * rows);
    // At most 4 bytes a pixel (32-bit gray and float; RGB takes 3): a bound for this check only.
    if (double(y1 - y0) * double(shape_.width) * 4.0 > band_limit_bytes) return read_image_region(path_, region);
    band_pixels_ = AnyHostImage();  // the band above is released before the next is read
    band_ = Region{0, y0, shape_.width, y1 - y0};
    band_pixels_ = read_image_region(path_, band_);
  }
  return std::visit(
      [&](auto const& band) {
        using Image = std::decay_t<decltype(band)>;
        Image part("gigaseg::tiled::tile", region.width, region.height);
        std::size_t const row_bytes = std::size_t(region.width) * sizeof(typename Image::value_type);
        for (index_t y = 0; y < region.height; ++y)
          std::memcpy(part.row(y), &band(region.y - band_.y + y, region.x), row_bytes);
        return AnyHostImage(std::move(part));
      },
      band_pixels_);
}

ScratchFile::ScratchFile(std::string const& folder, char const* tag) {
  static std::atomic<unsigned> made{0};
  path_ = (folder.empty() ? std::string(".") : folder) + "/.gigaseg-scratch-" + std::to_string(::getpid()) + "-" +
          std::to_string(made.fetch_add(1)) + "-" + tag + ".tif";
}

ScratchFile::~ScratchFile() { ::unlink(path_.c_str()); }

std::string folder_of(std::string const& path) {
  auto const slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string(".") : slash == 0 ? std::string("/") : path.substr(0, slash);
}

}  // namespace gigaseg::detail

namespace gigaseg {

TiledInput::TiledInput(std::string const& input, std::string const& scratch_folder, TiledOptions const& options)
    : path_(input) {
  if (detect_format(input) == ImageFormat::tiff) return;
  scratch_ = std::make_unique<detail::ScratchFile>(scratch_folder, "input");
  std::string const& scratch = scratch_->path();
  WriteOptions write;
  write.tiff_compression = TiffCompression::deflate;
  write.compression_level = 1;
  write_tiled_copy(input, scratch, options.tile_width, options.tile_height, write);
  path_ = scratch;
}

TiledInput::~TiledInput() = default;

}  // namespace gigaseg
