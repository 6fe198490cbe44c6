// TIFF through libtiff: strips or tiles, classic or BigTIFF, 8/16/32-bit unsigned and 32-bit
// float samples, gray, RGB, palette and JPEG-compressed YCbCr (what slide scanners write).
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"
#include "gigaseg/core/io/image_file.hpp"

#include <tiffio.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace gigaseg::detail {
namespace {

// libtiff reports through process-wide handlers; we keep the last message of this thread and put
// it into the Error we throw, instead of letting libtiff print to stderr.
thread_local char tiff_message[512];

void on_tiff_error(char const* module, char const* format, va_list arguments) {
  int const n = module ? std::snprintf(tiff_message, sizeof tiff_message, "%s: ", module) : 0;
  std::vsnprintf(tiff_message + n, sizeof tiff_message - std::size_t(n), format, arguments);
}
void on_tiff_warning(char const*, char const*, va_list) {}

struct HandlerScope {
  TIFFErrorHandler previous_error, previous_warning;
  HandlerScope()
      : previous_error(TIFFSetErrorHandler(on_tiff_error)), previous_warning(TIFFSetWarningHandler(on_tiff_warning)) {
    tiff_message[0] = '\0';
  }
  ~HandlerScope() {
    TIFFSetErrorHandler(previous_error);
    TIFFSetWarningHandler(previous_warning);
  }
};

struct TiffCloser {
  void operator()(TIFF* tif) const { TIFFClose(tif); }
};
using TiffHandle = std::unique_ptr<TIFF, TiffCloser>;

// A failed write: errno as the failing write() left it says whether the disk was full.
[[noreturn]] void fail_write(std::string const& path, std::string const& what) {
  int const error_number = errno;
  std::string reason = what;
  if (tiff_message[0] != '\0') reason += std::string(" (") + tiff_message + ")";
  throw_write_failure(path, reason, error_number);
}

// libtiff's last message, with a failed read's byte count (a negative size libtiff prints as an
// unsigned 64-bit number, "got 18446744073709551560 bytes, expected 4096") said in words.
std::string tiff_detail() {
  std::string message = tiff_message;
  auto const got = message.find("got ");
  if (got != std::string::npos) {
    auto const end = message.find(" bytes", got);
    std::string const count = end == std::string::npos ? "" : message.substr(got + 4, end - got - 4);
    if (count.size() >= 19 && count.find_first_not_of("0123456789") == std::string::npos)
      message.replace(got, std::string::npos, "the file ends before the data");
  }
  return message;
}

[[noreturn]] void fail(std::string const& path, std::string const& what) {
  std::string reason = what;
  if (tiff_message[0] != '\0') reason += " (" + tiff_detail() + ")";
  GIGASEG_THROW(ErrorKind::input, path, reason);
}

struct Layout {
  std::uint32_t width = 0, height = 0;
  std::uint16_t samples = 1, bits = 8, format = SAMPLEFORMAT_UINT, photometric = PHOTOMETRIC_MINISBLACK;
  std::uint16_t planar = PLANARCONFIG_CONTIG;
  std::uint16_t *red = nullptr, *green = nullptr, *blue = nullptr;  // palette
  int colour_channels = 1;  // samples that carry the image (1 or 3); the rest are extra (alpha)
};

// Copies one decoded block (strip or tile: `rows` rows of `block_width` pixels, samples
// interleaved) into the image at (x0, y0), clipped to the image, dropping extra samples.
template <class T, class Sample>
void place(HostImage<T> const& image, Layout const& layout, unsigned char const* block, std::uint32_t x0,
           std::uint32_t y0, std::uint32_t block_width, std::uint32_t rows) {
  auto const* samples = reinterpret_cast<Sample const*>(block);
  std::uint32_t const w = std::min<std::uint32_t>(block_width, layout.width - x0);
  std::uint32_t const h = std::min<std::uint32_t>(rows, layout.height - y0);
  int const stride = layout.samples;
  for (std::uint32_t r = 0; r < h; ++r) {
    Sample const* in = samples + std::size_t(r) * block_width * stride;
    T* out = image.row(y0 + r) + x0;
    for (std::uint32_t c = 0; c < w; ++c, in += stride) {
      if constexpr (std::is_same<T, Rgb8>::value) {
        if (layout.photometric == PHOTOMETRIC_PALETTE) {
          unsigned const i = in[0];
          out[c] = Rgb8{std::uint8_t(layout.red[i] >> 8), std::uint8_t(layout.green[i] >> 8),
                        std::uint8_t(layout.blue[i] >> 8)};
        } else if constexpr (sizeof(Sample) == 2) {
          out[c] = Rgb8{scale_16_to_8(in[0]), scale_16_to_8(in[1]), scale_16_to_8(in[2])};
        } else {
          out[c] = Rgb8{std::uint8_t(in[0]), std::uint8_t(in[1]), std::uint8_t(in[2])};
        }
      } else {
        T value = static_cast<T>(in[0]);
        if constexpr (std::is_integral<T>::value)
          if (layout.photometric == PHOTOMETRIC_MINISWHITE) value = static_cast<T>(~value);
        out[c] = value;
      }
    }
  }
}

template <class T, class Sample>
AnyHostImage decode(TIFF* tif, Layout const& layout, std::string const& path) {
  check_read_size(path, layout.width, layout.height);
  HostImage<T> image(path, layout.width, layout.height);
  if (TIFFIsTiled(tif)) {
    std::uint32_t tile_width = 0, tile_height = 0;
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tile_width);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &tile_height);
    if (tile_width == 0 || tile_height == 0) fail(path, "tiled TIFF without tile size");
    check_read_size(path, tile_width, tile_height, "a tile");
    std::vector<unsigned char> buffer(static_cast<std::size_t>(TIFFTileSize(tif)));
    for (std::uint32_t y = 0; y < layout.height; y += tile_height)
      for (std::uint32_t x = 0; x < layout.width; x += tile_width) {
        if (TIFFReadTile(tif, buffer.data(), x, y, 0, 0) < 0)
          fail(path, "corrupt or truncated tile at " + std::to_string(x) + "," + std::to_string(y));
        place<T, Sample>(image, layout, buffer.data(), x, y, tile_width, tile_height);
      }
  } else {
    std::uint32_t rows_per_strip = layout.height;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
    rows_per_strip = std::min(std::max<std::uint32_t>(rows_per_strip, 1), layout.height);
    std::vector<unsigned char> buffer(static_cast<std::size_t>(TIFFStripSize(tif)));
    tstrip_t const strips = TIFFNumberOfStrips(tif);
    for (tstrip_t s = 0; s < strips; ++s) {
      std::uint32_t const y = s * rows_per_strip;
      if (y >= layout.height) break;
      if (TIFFReadEncodedStrip(tif, s, buffer.data(), tmsize_t(buffer.size())) < 0)
        fail(path, "corrupt or truncated strip " + std::to_string(s));
      place<T, Sample>(image, layout, buffer.data(), 0, y, layout.width, rows_per_strip);
    }
  }
  return image;
}

}  // namespace

AnyHostImage read_tiff(std::string const& path, std::string const& source) {
  HandlerScope handlers;
  // Opened by descriptor so that libtiff's messages name `path`, not the source's.
  int const fd = ::open((source.empty() ? path : source).c_str(), O_RDONLY | O_CLOEXEC);
  GIGASEG_REQUIRE(fd >= 0, ErrorKind::input, path, std::strerror(errno));
  TiffHandle tif(TIFFFdOpen(fd, path.c_str(), "r"));
  if (!tif) {
    ::close(fd);
    fail(path, "cannot open as TIFF");
  }
  Layout layout;
  TIFFGetField(tif.get(), TIFFTAG_IMAGEWIDTH, &layout.width);
  TIFFGetField(tif.get(), TIFFTAG_IMAGELENGTH, &layout.height);
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_SAMPLESPERPIXEL, &layout.samples);
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_BITSPERSAMPLE, &layout.bits);
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_SAMPLEFORMAT, &layout.format);
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_PLANARCONFIG, &layout.planar);
  if (!TIFFGetField(tif.get(), TIFFTAG_PHOTOMETRIC, &layout.photometric))
    layout.photometric = layout.samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
  std::uint16_t compression = COMPRESSION_NONE;
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_COMPRESSION, &compression);
  if (layout.width == 0 || layout.height == 0) fail(path, "TIFF has no pixels");
  // Gray, gray+alpha, RGB and RGBA, with room for a few extra samples. The strip and tile buffers
  // grow with the sample count: a 216-byte file claiming 65279 samples made them 17 GB (found by
  // tests/fuzz).
  if (layout.samples == 0 || layout.samples > 8)
    fail(path, "unsupported TIFF: " + std::to_string(layout.samples) + " samples per pixel (at most 8 are read)");
  if (layout.samples > 1 && layout.planar != PLANARCONFIG_CONTIG)
    fail(path, "unsupported TIFF: separate colour planes (PlanarConfiguration=2)");

  if (layout.photometric == PHOTOMETRIC_YCBCR && compression == COMPRESSION_JPEG) {
    // Let libjpeg convert YCbCr to RGB, as slide viewers do.
    TIFFSetField(tif.get(), TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    layout.photometric = PHOTOMETRIC_RGB;
  }
  std::string const what = std::to_string(layout.samples) + " samples of " + std::to_string(layout.bits) +
                           " bits, photometric " + std::to_string(layout.photometric);
  bool const is_float = layout.format == SAMPLEFORMAT_IEEEFP;
  if (!is_float && layout.format != SAMPLEFORMAT_UINT)
    fail(path, "unsupported TIFF sample format " + std::to_string(layout.format) + " (signed integers)");

  if (layout.photometric == PHOTOMETRIC_PALETTE) {
    if (layout.bits != 8 || layout.samples != 1) fail(path, "unsupported TIFF palette: " + what);
    if (!TIFFGetField(tif.get(), TIFFTAG_COLORMAP, &layout.red, &layout.green, &layout.blue))
      fail(path, "palette TIFF without a colour map");
    return decode<Rgb8, std::uint8_t>(tif.get(), layout, path);
  }
  if (layout.photometric == PHOTOMETRIC_RGB && layout.samples >= 3 && !is_float) {
    layout.colour_channels = 3;
    if (layout.bits == 8) return decode<Rgb8, std::uint8_t>(tif.get(), layout, path);
    if (layout.bits == 16) return decode<Rgb8, std::uint16_t>(tif.get(), layout, path);
  }
  if ((layout.photometric == PHOTOMETRIC_MINISBLACK || layout.photometric == PHOTOMETRIC_MINISWHITE) &&
      layout.samples <= 2) {
    if (is_float && layout.bits == 32) {
      if (layout.photometric == PHOTOMETRIC_MINISWHITE) fail(path, "unsupported TIFF: inverted float");
      return decode<float, float>(tif.get(), layout, path);
    }
    if (!is_float && layout.bits == 8) return decode<std::uint8_t, std::uint8_t>(tif.get(), layout, path);
    if (!is_float && layout.bits == 16) return decode<std::uint16_t, std::uint16_t>(tif.get(), layout, path);
    if (!is_float && layout.bits == 32) {
      if (layout.photometric == PHOTOMETRIC_MINISWHITE) fail(path, "unsupported TIFF: inverted 32-bit");
      return decode<std::uint32_t, std::uint32_t>(tif.get(), layout, path);
    }
  }
  fail(path, "unsupported TIFF pixel layout: " + what);
}

void write_tiff(std::string const& temp_path, std::string const& path, AnyHostImage const& image,
                WriteOptions const& options) {
  HandlerScope handlers;
  PixelType const type = pixel_type(image);
  index_t const w = width(image), h = height(image);
  GIGASEG_REQUIRE(w > 0 && h > 0 && w <= 0xffffffffLL && h <= 0xffffffffLL, ErrorKind::usage, path,
                  "TIFF dimensions must be between 1 and 2^32-1");
  GIGASEG_REQUIRE(options.tiff_tile % 16 == 0 && options.tiff_tile >= 0, ErrorKind::usage, path,
                  "TIFF tile size must be a multiple of 16");
  index_t const row_bytes = w * bytes_per_pixel(type);
  // Classic TIFF addresses 4 GiB; leave room for the directory and strip tables.
  bool const big = options.force_bigtiff || row_bytes * h > (index_t(1) << 32) - (index_t(64) << 20);
  TiffHandle tif(TIFFOpen(temp_path.c_str(), big ? "w8" : "w"));
  if (!tif) fail_write(path, "cannot create");
  int const samples = type == PixelType::rgb8 ? 3 : 1;
  int const bits = type == PixelType::rgb8 ? 8 : bytes_per_pixel(type) * 8;
  TIFFSetField(tif.get(), TIFFTAG_IMAGEWIDTH, std::uint32_t(w));
  TIFFSetField(tif.get(), TIFFTAG_IMAGELENGTH, std::uint32_t(h));
  TIFFSetField(tif.get(), TIFFTAG_SAMPLESPERPIXEL, samples);
  TIFFSetField(tif.get(), TIFFTAG_BITSPERSAMPLE, bits);
  TIFFSetField(tif.get(), TIFFTAG_SAMPLEFORMAT, type == PixelType::f32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
  TIFFSetField(tif.get(), TIFFTAG_PHOTOMETRIC, samples == 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif.get(), TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif.get(), TIFFTAG_COMPRESSION, COMPRESSION_NONE);

  auto row_of = [&](index_t y) {
    return std::visit([y](auto const& view) { return reinterpret_cast<unsigned char const*>(view.row(y)); }, image);
  };
  if (options.tiff_tile > 0) {
    auto const tile = std::uint32_t(options.tiff_tile);
    TIFFSetField(tif.get(), TIFFTAG_TILEWIDTH, tile);
    TIFFSetField(tif.get(), TIFFTAG_TILELENGTH, tile);
    index_t const pixel = bytes_per_pixel(type);
    std::vector<unsigned char> buffer(std::size_t(tile) * tile * pixel);
    for (index_t y = 0; y < h; y += tile)
      for (index_t x = 0; x < w; x += tile) {
        std::fill(buffer.begin(), buffer.end(), 0);  // edge tiles are padded with zeros
        index_t const cw = std::min<index_t>(tile, w - x), ch = std::min<index_t>(tile, h - y);
        for (index_t r = 0; r < ch; ++r)
          std::memcpy(buffer.data() + r * tile * pixel, row_of(y + r) + x * pixel, std::size_t(cw * pixel));
        if (TIFFWriteTile(tif.get(), buffer.data(), std::uint32_t(x), std::uint32_t(y), 0, 0) < 0)
          fail_write(path, "cannot write tile");
      }
  } else {
    // About 1 MiB strips: few enough entries for huge images, small enough to stream.
    index_t const rows_per_strip = std::max<index_t>(1, std::min<index_t>(h, (index_t(1) << 20) / row_bytes));
    TIFFSetField(tif.get(), TIFFTAG_ROWSPERSTRIP, std::uint32_t(rows_per_strip));
    std::vector<unsigned char> buffer(std::size_t(rows_per_strip * row_bytes));
    for (index_t y = 0, strip = 0; y < h; y += rows_per_strip, ++strip) {
      index_t const rows = std::min(rows_per_strip, h - y);
      for (index_t r = 0; r < rows; ++r)
        std::memcpy(buffer.data() + r * row_bytes, row_of(y + r), std::size_t(row_bytes));
      if (TIFFWriteEncodedStrip(tif.get(), tstrip_t(strip), buffer.data(), tmsize_t(rows * row_bytes)) < 0)
        fail_write(path, "cannot write strip " + std::to_string(strip));
    }
  }
  if (!TIFFWriteDirectory(tif.get())) fail_write(path, "cannot write TIFF directory");
  TIFF* raw = tif.release();
  errno = 0;
  TIFFClose(raw);
  if (tiff_message[0] != '\0') fail_write(path, "write failed");
}

}  // namespace gigaseg::detail
