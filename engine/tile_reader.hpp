#pragma once
// The tile engine's reads: the rectangles of a TIFF's tiles, in the raster order of the tiles.
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/engine/process_group.hpp"

#include <cstddef>
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

// A scratch file's name in `folder` (".gigaseg-scratch-HOST-PID-N-TAG.tif"; "." when empty):
// unique in the process and across processes and hosts. The file is removed when this object goes.
//
// With a group of ranks (ProcessGroup, collective), one name for all of them, rank 0's, for an
// image rank 0 writes and every rank reads: rank 0 creates the file (empty until written) and
// removes it; every other rank checks that it sees it, as the ranks then read the image from the
// folder. A folder the ranks do not share (a local disk on each node) is an Error(usage) naming it
// on every rank.
class ScratchFile {
 public:
  ScratchFile(std::string const& folder, char const* tag);
  ScratchFile(std::string const& folder, char const* tag, ProcessGroup const* group);
  ~ScratchFile();
  ScratchFile(ScratchFile const&) = delete;
  ScratchFile& operator=(ScratchFile const&) = delete;
  std::string const& path() const noexcept { return path_; }

 private:
  std::string path_;
  bool owner_ = true;  // removes the file
};

// Images of tiles kept between the passes of a stage (what a round computed, so that a later pass
// reads it instead of computing the tile again): a scratch file in `folder` of one fixed slot of
// slot_pixels pixels of T per tile, removed when this object goes. put(t, image) writes tile t's
// slot again each time the tile is computed, get(t, w, h) reads back the last one written. Calls
// from any thread (positioned reads and writes); a full disk is an Error(resource).
class TileStoreFile {
 public:
  TileStoreFile(std::string const& folder, char const* tag, std::size_t slot_bytes);
  ~TileStoreFile();
  TileStoreFile(TileStoreFile const&) = delete;
  TileStoreFile& operator=(TileStoreFile const&) = delete;
  // Slot t from / into `rows` rows of row_bytes bytes each, the rows `pitch` bytes apart in memory.
  void put(index_t t, void const* first, index_t rows, std::size_t row_bytes, std::size_t pitch);
  void get(index_t t, void* first, index_t rows, std::size_t row_bytes, std::size_t pitch) const;

 private:
  ScratchFile file_;
  std::size_t slot_bytes_;
  int fd_ = -1;
};

template <class T>
class TileStore {
 public:
  TileStore(std::string const& folder, char const* tag, index_t slot_pixels)
      : file_(folder, tag, std::size_t(slot_pixels) * sizeof(T)) {}
  void put(index_t t, ImageView<T const, Kokkos::HostSpace> const& image) {
    file_.put(t, image.data(), image.height(), std::size_t(image.width()) * sizeof(T),
              std::size_t(image.pitch_bytes()));
  }
  HostImage<T> get(index_t t, index_t width, index_t height) const {
    HostImage<T> image("gigaseg::tiled::stored", width, height);
    file_.get(t, image.data(), height, std::size_t(width) * sizeof(T), std::size_t(image.pitch_bytes()));
    return image;
  }

 private:
  TileStoreFile file_;
};

// How the engine writes the scratch TIFFs of a run that keeps about `bytes` of them (uncompressed)
// in `folder` at once: uncompressed where that takes at most half the folder's free space (the
// fastest), else Zstd level 1 (masks and label images shrink tens of times, distances a few), so
// that a large image does not fill the disk. With a group of more than one rank, Zstd level 1
// always: the other ranks' tiles of a scratch image travel to rank 0, which writes them, and
// compressed they are a fraction of the bytes; and every rank encodes alike, whatever its own
// view of the disk.
WriteOptions scratch_write_options(std::string const& folder, double bytes, ProcessGroup const* group = nullptr);

// The folder of `path` ("." for a bare file name).
std::string folder_of(std::string const& path);

}  // namespace gigaseg::detail
