#pragma once
// Writing a TIFF tile by tile, for images that are never whole in memory: the tile engine hands
// over each tile as it is computed, from any thread and in any order.
#include "gigaseg/core/io/image_file.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gigaseg {

// The bytes TiffTileWriter stores for a tile (padded to the tile size, the predictor applied,
// compressed as the options say), made without a file: processes that compute tiles of one output
// away from the process writing it encode them here and hand over the bytes (write_encoded_tile).
class TiffTileEncoder {
 public:
  // As TiffTileWriter's constructor; `path` only names the output in errors.
  TiffTileEncoder(std::string const& path, index_t width, index_t height, PixelType type, index_t tile_width,
                  index_t tile_height, WriteOptions const& options = default_write_options());
  ~TiffTileEncoder();
  TiffTileEncoder(TiffTileEncoder&&) noexcept;

  index_t tile_width() const noexcept { return tile_width_; }
  index_t tile_height() const noexcept { return tile_height_; }
  index_t tiles_across() const noexcept { return (width_ + tile_width_ - 1) / tile_width_; }
  index_t tiles_down() const noexcept { return (height_ + tile_height_ - 1) / tile_height_; }

  // Tile (column, row) of min(tile_width, width - x) x min(tile_height, height - y) pixels of the
  // encoder's type, as stored in the file, into `bytes` (its memory reused). Thread-safe.
  // Error(usage) for a tile outside the grid or of the wrong size or type.
  void encode(index_t column, index_t row, AnyHostImage const& pixels, std::vector<unsigned char>& bytes) const;

 private:
  struct State;
  std::string path_;
  index_t width_, height_;
  PixelType type_;
  index_t tile_width_, tile_height_;
  std::unique_ptr<State> state_;
};

class TiffTileWriter {
 public:
  // Creates the temporary file of `path` (.tif or .tiff) for a width x height image of `type`
  // in tiles of tile_width x tile_height pixels (multiples of 16), compressed as `options` say
  // (options.tiff_tile is ignored); BigTIFF past 4 GiB of pixels or when options ask for it.
  // Error(usage) for a bad size or extension, Error(input) when the folder is missing.
  TiffTileWriter(std::string const& path, index_t width, index_t height, PixelType type, index_t tile_width,
                 index_t tile_height, WriteOptions const& options = default_write_options());
  // Without commit() (an exception, a failed rank) the temporary file is removed: nothing is left
  // under `path`.
  ~TiffTileWriter();
  TiffTileWriter(TiffTileWriter const&) = delete;
  TiffTileWriter& operator=(TiffTileWriter const&) = delete;

  index_t tile_width() const noexcept { return encoder_.tile_width(); }
  index_t tile_height() const noexcept { return encoder_.tile_height(); }
  index_t tiles_across() const noexcept { return encoder_.tiles_across(); }
  index_t tiles_down() const noexcept { return encoder_.tiles_down(); }
  TiffTileEncoder const& encoder() const noexcept { return encoder_; }

  // Compresses, on the calling thread, and stores tile (column, row): `pixels` holds its
  // min(tile_width, width - x) x min(tile_height, height - y) pixels of the writer's type (edge tiles are
  // padded with zeros in the file). Thread-safe; every tile exactly once, in any order. The file
  // holds the tiles in raster order, so its bytes do not depend on the order they came in: a tile
  // that comes before its turn waits in memory, encoded, until those before it came.
  // Error(usage) for a tile outside the grid, of the wrong size or type, or written twice;
  // Error(resource) when the disk is full.
  void write_tile(index_t column, index_t row, AnyHostImage const& pixels);
  // Stores tile (column, row) as an encoder of the same size, type and options made it.
  void write_encoded_tile(index_t column, index_t row, unsigned char const* data, std::size_t size);
  // Leaves room for tile (column, row) of `size` encoded bytes where the file would hold it, for
  // another process to write there (at tile_offset, into temp_path) before commit(): the file's
  // bytes are then those of writing the tile here. The tile counts as written.
  void reserve_tile(index_t column, index_t row, std::size_t size);
  // Where tile (column, row) starts in the file, once the tiles before it are in (every tile is,
  // once each was written or reserved). Error(usage) before that.
  std::uint64_t tile_offset(index_t column, index_t row) const;
  // The temporary file being written, renamed to the output's path by commit().
  std::string const& temp_path() const noexcept;

  // Checks that every tile was written, writes the directory, flushes the file to disk and
  // renames it to `path`.
  void commit();

 private:
  void store_tile(index_t column, index_t row, unsigned char const* data, std::size_t size, bool reserved);
  struct State;
  std::string path_;
  TiffTileEncoder encoder_;
  std::unique_ptr<State> state_;
};

// Writing an OME-Zarr output (is_ome_zarr_name) tile by tile: each tile is a chunk of the
// full-resolution array, a file of its own, so tiles come from any thread and any process in any
// order. commit() checks that every tile is there, makes the reduced levels from the full
// resolution (read back a band of 1024 rows at a time), writes the NGFF metadata and renames the
// temporary folder into place (core/io/zarr_file.cpp says the layout).
class ZarrTileWriter {
 public:
  // Creates the temporary folder of `path` with the full-resolution array's header, chunks of
  // tile_width x tile_height, compressed unless options say none; a folder there already is
  // replaced at commit() only if it is a Zarr image. With `joined`, the temporary folder another
  // process's writer made (its temp_path()), which this one writes tiles into and does not own
  // (an Error(resource) when this process cannot see it).
  ZarrTileWriter(std::string const& path, index_t width, index_t height, PixelType type, index_t tile_width,
                 index_t tile_height, WriteOptions const& options = default_write_options(),
                 std::string const& joined = {});
  // Without commit(), the owner's temporary folder is removed.
  ~ZarrTileWriter();
  ZarrTileWriter(ZarrTileWriter const&) = delete;
  ZarrTileWriter& operator=(ZarrTileWriter const&) = delete;

  std::string const& temp_path() const noexcept;
  index_t tiles_across() const noexcept;
  index_t tiles_down() const noexcept;
  // Encodes and stores tile (column, row), flushed to disk, on the calling thread: its
  // min(tile_width, width - x) x min(tile_height, height - y) pixels of the writer's type.
  // Thread-safe. Error(usage) for a tile outside the grid or of the wrong size or type.
  void write_tile(index_t column, index_t row, AnyHostImage const& pixels);
  // The owner's: Error(usage) naming a tile never written; then the levels, metadata and rename.
  void commit();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gigaseg
