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

// A failed write of `path`: Error(resource) when the disk is full (errno as the failed write left
// it), else Error(input); with libtiff's last message.
[[noreturn]] void fail_write(std::string const& path, std::string const& what);
// `what`, with this thread's last libtiff message in parentheses.
std::string with_detail(std::string const& what);

}  // namespace gigaseg::detail
