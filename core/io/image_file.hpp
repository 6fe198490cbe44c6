#pragma once
// Reading and writing image files: PNG (libpng), TIFF (libtiff) and PGM/PPM.
//
// Files are read into host images of the pixel type they hold; the format is recognised from
// the file's first bytes, not its name. Writing picks the format from the extension and is
// atomic (AtomicOutput). Every failure is an Error(input) naming the file.
//
// Conventions (docs/cli.md repeats them for users):
//  - alpha channels are dropped; gray+alpha reads as gray;
//  - colour images are 8-bit RGB; 16-bit colour is scaled to 8 bits (v * 255 / 65535, rounded);
//  - palette images are expanded to RGB; PGM/PPM values are kept as stored (no maxval scaling).
#include "gigaseg/core/image.hpp"

#include <cstdint>
#include <string>
#include <variant>

namespace gigaseg {

using AnyHostImage = std::variant<HostImage<std::uint8_t>, HostImage<std::uint16_t>, HostImage<std::uint32_t>,
                                  HostImage<float>, HostImage<Rgb8>>;

PixelType pixel_type(AnyHostImage const& image);
index_t width(AnyHostImage const& image);
index_t height(AnyHostImage const& image);

enum class ImageFormat { png, tiff, pnm };
char const* to_string(ImageFormat format) noexcept;

struct WriteOptions {
  bool force_bigtiff = false;  // BigTIFF even below 4 GiB (it is chosen automatically above)
  index_t tiff_tile = 0;       // write TIFF in square tiles of this size (multiple of 16); 0: strips
};

// Reads `path`. Throws Error(input) if it is missing, a directory, unreadable, truncated, corrupt
// or holds a pixel layout gigaseg does not support; Error(resource) if the image does not fit in
// memory. A pipe, FIFO or `/dev/stdin` is read once, into memory, then decoded.
AnyHostImage read_image(std::string const& path);
ImageFormat detect_format(std::string const& path);

// The largest image (width x height, and a TIFF tile) the readers accept: a larger one is an
// Error(resource) naming the file, raised before any pixel memory is allocated. The default, 0,
// sets no limit beyond memory (whole-slide images are large). A service that reads untrusted
// files, and the fuzzers (tests/fuzz), set one: a corrupt header can claim any size. Process-wide.
void set_read_pixel_limit(index_t pixels) noexcept;
index_t read_pixel_limit() noexcept;

// Writes `image` to `path` in the format its extension names (.png, .tif/.tiff, .pgm/.ppm).
// Throws Error(usage) for an unknown extension or a pixel type the format cannot hold.
void write_image(std::string const& path, AnyHostImage const& image, WriteOptions options = {});
ImageFormat format_for_extension(std::string const& path);

namespace detail {
// Throws Error(resource) naming `path` when w x h passes read_pixel_limit().
void check_read_size(std::string const& path, index_t w, index_t h, char const* what = "image");
// The readers name `path` in their errors and read the bytes at `source` (empty: `path` itself);
// read_image passes a copy of a pipe's stream as `source`.
AnyHostImage read_png(std::string const& path, std::string const& source = {});
AnyHostImage read_tiff(std::string const& path, std::string const& source = {});
AnyHostImage read_pnm(std::string const& path, std::string const& source = {});
void write_png(std::string const& temp_path, std::string const& path, AnyHostImage const& image);
void write_tiff(std::string const& temp_path, std::string const& path, AnyHostImage const& image,
                WriteOptions const& options);
void write_pnm(std::string const& temp_path, std::string const& path, AnyHostImage const& image);
// 16-bit colour to 8 bits, the rounding libpng's png_set_scale_16 uses.
constexpr std::uint8_t scale_16_to_8(std::uint32_t v) noexcept {
  return static_cast<std::uint8_t>((v * 255u + 32767u) / 65535u);
}
}  // namespace detail

}  // namespace gigaseg
