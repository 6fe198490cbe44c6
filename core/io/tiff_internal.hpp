#pragma once
// What the TIFF writers of core/io share (tiff_file.cpp, ome_tiff.cpp): libtiff's messages caught
// instead of printed, owned handles, and failures that name the output.
#include <tiffio.h>

#include <memory>
#include <string>

namespace gigaseg::detail {

// While any scope is alive (on any thread), libtiff's errors go to this thread's last message, which
// the errors we throw carry, and its warnings are dropped; the previous handlers come back after the
// last scope.
struct TiffHandlerScope {
  TiffHandlerScope();
  ~TiffHandlerScope();
  TiffHandlerScope(TiffHandlerScope const&) = delete;
  TiffHandlerScope& operator=(TiffHandlerScope const&) = delete;
};

struct TiffCloser {
  void operator()(TIFF* tif) const { TIFFClose(tif); }
};
using TiffHandle = std::unique_ptr<TIFF, TiffCloser>;

// A new TIFF at `path` for writing (libtiff's mode "w", or "w8" for BigTIFF), as TIFFOpen makes it,
// whose bytes reach the file in write calls of at most 64 KiB: libtiff hands over a whole strip or
// tile in one call, and on the Linux 6.18 VM of docs/performance.md writes of 1 MiB into the page
// cache ran at 0.5 to 1.2 GB/s against 4 to 5 GB/s for writes of 64 or 256 KiB (an uncompressed
// 1 GiB float TIFF took 1.7 s to write instead of 1.1 s). nullptr with errno set when the file cannot
// be made.
TIFF* open_tiff_for_writing(std::string const& path, char const* mode);

// A failed write of `path`: Error(resource) when the disk is full (errno as the failed write left
// it), else Error(input); with libtiff's last message.
[[noreturn]] void fail_write(std::string const& path, std::string const& what);
// `what`, with this thread's last libtiff message in parentheses.
std::string with_detail(std::string const& what);

// The marker of a reserved tile's bytes, passed to libtiff as its data: the writing procedures
// leave room for the tile instead of writing (TiffTileWriter::reserve_tile).
extern unsigned char reserved_tile_bytes[1];

}  // namespace gigaseg::detail
