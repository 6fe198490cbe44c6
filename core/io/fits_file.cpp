// FITS images through cfitsio (image_file.hpp): the first HDU that holds an image, 2-D, read whole
// or by region (fits_read_subset decodes only the rows, or for a tile-compressed image the tiles,
// the rectangle overlaps). Pixels in the file's order: FITS row 1 is y = 0, as astropy's data array
// has it (viewers that draw row 1 at the bottom show the image upside down).
//   - 8-bit, unsigned 16-bit (BITPIX 16 with BZERO 32768) and unsigned 32-bit (BITPIX 32 with BZERO
//     2^31) integers: u8, u16, u32 as they are;
//   - everything else (signed integers, BSCALE/BZERO that do not make an unsigned type, 32 and
//     64-bit floats): 32-bit float with BSCALE and BZERO applied by cfitsio, integer pixels equal
//     to BLANK as NaN, NaN kept: "no data", which the thresholds never take as foreground and the
//     histograms leave out.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/io/read_ahead.hpp"

#include <fitsio.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gigaseg::detail {
namespace {

// cfitsio built without its reentrant option shares state between threads: its calls then take
// turns.
std::unique_lock<std::mutex> fits_turn() {
  static std::mutex mutex;
  return fits_is_reentrant() ? std::unique_lock<std::mutex>() : std::unique_lock<std::mutex>(mutex);
}

[[noreturn]] void fits_fail(std::string const& path, int status, std::string const& what) {
  char text[FLEN_STATUS] = {};
  fits_get_errstatus(status, text);
  char message[FLEN_ERRMSG] = {};
  std::string detail = text;
  // The most specific message cfitsio stacked, when it has one.
  if (fits_read_errmsg(message) != 0 && message[0] != 0) detail = message;
  fits_clear_errmsg();
  GIGASEG_THROW(ErrorKind::input, path, what + ": " + detail);
}

struct FitsCloser {
  void operator()(fitsfile* f) const {
    int status = 0;
    fits_close_file(f, &status);
  }
};
using FitsHandle = std::unique_ptr<fitsfile, FitsCloser>;

// An open image HDU and what gigaseg makes of it.
struct FitsImage {
  FitsHandle file;
  index_t width = 0, height = 0;
  PixelType type = PixelType::f32;
  index_t block_width = 0, block_height = 0;
};

FitsImage open_fits(std::string const& path, std::string const& source) {
  FitsImage image;
  int status = 0;
  fitsfile* raw = nullptr;
  // fits_open_image goes to the first HDU that holds an image (a compressed image lies in an
  // extension behind an empty primary HDU).
  if (fits_open_image(&raw, (source.empty() ? path : source).c_str(), READONLY, &status) != 0) {
    if (raw != nullptr) {
      int ignored = 0;
      fits_close_file(raw, &ignored);
    }
    fits_fail(path, status, "cannot open as a FITS image");
  }
  image.file.reset(raw);
  int axes = 0, equivalent = 0;
  long size[3] = {0, 0, 0};
  if (fits_get_img_dim(raw, &axes, &status) != 0 || fits_get_img_equivtype(raw, &equivalent, &status) != 0)
    fits_fail(path, status, "cannot read the image header");
  GIGASEG_REQUIRE(axes == 2, ErrorKind::input, path,
                  "a FITS image of " + std::to_string(axes) + " axes; gigaseg reads 2-D images");
  if (fits_get_img_size(raw, 2, size, &status) != 0) fits_fail(path, status, "cannot read the image size");
  GIGASEG_REQUIRE(size[0] > 0 && size[1] > 0, ErrorKind::input, path, "FITS image has no pixels");
  image.width = size[0];
  image.height = size[1];
  check_read_size(path, image.width, image.height);
  image.type = equivalent == BYTE_IMG     ? PixelType::u8
               : equivalent == USHORT_IMG ? PixelType::u16
               : equivalent == ULONG_IMG  ? PixelType::u32
                                          : PixelType::f32;
  // The unit the file is decoded in: a compressed image's tiles, else rows.
  image.block_width = image.width;
  image.block_height = 1;
  if (fits_is_compressed_image(raw, &status)) {
    long tile[2] = {0, 0};
    int found = 0;
    for (int k = 0; k < 2; ++k) {
      char key[FLEN_KEYWORD];
      std::snprintf(key, sizeof key, "ZTILE%d", k + 1);
      int s = 0;
      if (fits_read_key(raw, TLONG, key, &tile[k], nullptr, &s) == 0) ++found;
    }
    if (found == 2 && tile[0] > 0 && tile[1] > 0) image.block_width = tile[0], image.block_height = tile[1];
  }
  return image;
}

template <class T>
AnyHostImage read_pixels(FitsImage const& image, std::string const& path, Region const& region, int datatype) {
  HostImage<T> out = new_host_image<T>("gigaseg::fits", region.width, region.height);
  std::vector<T> rows(std::size_t(region.width * region.height));
  long first[2] = {long(region.x + 1), long(region.y + 1)};
  long last[2] = {long(region.x + region.width), long(region.y + region.height)};
  long step[2] = {1, 1};
  int status = 0, any_null = 0;
  T blank{};
  if constexpr (std::is_same<T, float>::value) blank = std::numeric_limits<float>::quiet_NaN();
  if (fits_read_subset(image.file.get(), datatype, first, last, step, &blank, rows.data(), &any_null, &status) != 0)
    fits_fail(path, status, "cannot read the pixels");
  for (index_t y = 0; y < region.height; ++y)
    std::memcpy(out.row(y), rows.data() + std::size_t(y * region.width), std::size_t(region.width) * sizeof(T));
  return AnyHostImage(std::move(out));
}

}  // namespace

ImageShape fits_shape(std::string const& path, std::string const& source) {
  auto const turn = fits_turn();
  FitsImage const image = open_fits(path, source);
  return ImageShape{image.width, image.height, image.block_width, image.block_height};
}

AnyHostImage read_fits(std::string const& path, std::string const& source, Region const* region) {
  auto const turn = fits_turn();
  FitsImage const image = open_fits(path, source);
  Region const whole{0, 0, image.width, image.height};
  Region const r = region != nullptr ? *region : whole;
  GIGASEG_REQUIRE(r.width > 0 && r.height > 0 && r.x >= 0 && r.y >= 0 && r.x + r.width <= image.width &&
                      r.y + r.height <= image.height,
                  ErrorKind::usage, path,
                  "region " + std::to_string(r.width) + "x" + std::to_string(r.height) + " at " + std::to_string(r.x) +
                      "," + std::to_string(r.y) + " is not inside the " + std::to_string(image.width) + "x" +
                      std::to_string(image.height) + " image");
  switch (image.type) {
    case PixelType::u8: return read_pixels<std::uint8_t>(image, path, r, TBYTE);
    case PixelType::u16: return read_pixels<std::uint16_t>(image, path, r, TUSHORT);
    case PixelType::u32: return read_pixels<std::uint32_t>(image, path, r, TUINT);
    default: return read_pixels<float>(image, path, r, TFLOAT);
  }
}

}  // namespace gigaseg::detail
