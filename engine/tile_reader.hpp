#pragma once
// The tile engine's reads: the rectangles of a TIFF's tiles, in the raster order of the tiles.
#include "gigaseg/core/io/image_file.hpp"

#include <string>

namespace gigaseg::detail {

// Reads rectangles of one TIFF, each row of tiles after the one above (calls from one thread).
// Where the file's blocks (its tiles, or strips) are wider or taller than the engine's tiles, a
// block would be decoded again for every tile it overlaps: the reader then decodes the band of
// whole block rows the rectangle lies in, the full width, once, and cuts the rectangles of the
// tiles from it; a band that would take more than band_limit_bytes (a file of one huge strip) is
// not kept, and each rectangle is read on its own. Else each rectangle is read by region.
class TileReader {
 public:
  static constexpr double band_limit_bytes = 1024.0 * 1024.0 * 1024.0;
  TileReader(std::string path, ImageShape const& shape, index_t tile_width, index_t tile_height);
  AnyHostImage read(Region const& region);
  // The reads that may run at once, from several threads, with `threads` threads for reading in
  // all: one for a banded reader (its band is shared state); else enough that `threads` decoders
  // are busy, as a read decodes the file blocks of its rectangle on up to io_threads() threads
  // itself (at least two, so that one read's tail overlaps the next).
  int concurrent_reads(int threads) const;

 private:
  std::string path_;
  ImageShape shape_;
  index_t tile_width_, tile_height_;
  bool banded_ = false;
  Region band_{0, 0, 0, 0};
  AnyHostImage band_pixels_;
};

// A scratch file's name in `folder` (".gigaseg-scratch-PID-N-TAG.tif"; "." when empty): unique in
// the process and across processes. The file is removed when this object goes.
class ScratchFile {
 public:
  ScratchFile(std::string const& folder, char const* tag);
  ~ScratchFile();
  ScratchFile(ScratchFile const&) = delete;
  ScratchFile& operator=(ScratchFile const&) = delete;
  std::string const& path() const noexcept { return path_; }

 private:
  std::string path_;
};

// The folder of `path` ("." for a bare file name).
std::string folder_of(std::string const& path);

}  // namespace gigaseg::detail
