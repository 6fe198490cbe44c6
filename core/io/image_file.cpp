#include "gigaseg/core/io/image_file.hpp"

#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace gigaseg {

PixelType pixel_type(AnyHostImage const& image) {
  return std::visit(
      [](auto const& view) { return PixelTraits<typename std::decay_t<decltype(view)>::value_type>::type; }, image);
}
index_t width(AnyHostImage const& image) {
  return std::visit([](auto const& view) { return view.width(); }, image);
}
index_t height(AnyHostImage const& image) {
  return std::visit([](auto const& view) { return view.height(); }, image);
}

namespace {
std::atomic<index_t> pixel_limit{0};
}  // namespace

void set_read_pixel_limit(index_t pixels) noexcept { pixel_limit.store(pixels < 0 ? 0 : pixels); }
index_t read_pixel_limit() noexcept { return pixel_limit.load(); }

void detail::check_read_size(std::string const& path, index_t w, index_t h, char const* what) {
  index_t const limit = read_pixel_limit();
  if (limit == 0) return;
  // w and h come from 32-bit header fields: the product fits in 64 bits.
  GIGASEG_REQUIRE(w * h <= limit, ErrorKind::resource, path,
                  std::string(what) + " of " + std::to_string(w) + "x" + std::to_string(h) +
                      " pixels is past the reader limit of " + std::to_string(limit) + " pixels");
}

char const* to_string(ImageFormat format) noexcept {
  switch (format) {
    case ImageFormat::png: return "png";
    case ImageFormat::tiff: return "tiff";
    case ImageFormat::pnm: return "pnm";
  }
  return "?";
}

ImageFormat detect_format(std::string const& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  GIGASEG_REQUIRE(file != nullptr, ErrorKind::input, path, std::strerror(errno));
  unsigned char magic[8] = {};
  std::size_t const got = std::fread(magic, 1, sizeof magic, file.get());
  static unsigned char const png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (got == 8 && std::memcmp(magic, png_signature, 8) == 0) return ImageFormat::png;
  // Classic TIFF has version 42 after the byte-order mark, BigTIFF 43.
  if (got >= 4 && ((magic[0] == 'I' && magic[1] == 'I' && (magic[2] == 42 || magic[2] == 43) && magic[3] == 0) ||
                   (magic[0] == 'M' && magic[1] == 'M' && magic[2] == 0 && (magic[3] == 42 || magic[3] == 43))))
    return ImageFormat::tiff;
  if (got >= 2 && magic[0] == 'P' && std::strchr("2356", magic[1]) != nullptr && magic[1] != 0) return ImageFormat::pnm;
  GIGASEG_THROW(ErrorKind::input, path, got == 0 ? "file is empty" : "not a PNG, TIFF or PGM/PPM file");
}

AnyHostImage read_image(std::string const& path) {
  switch (detect_format(path)) {
    case ImageFormat::png: return detail::read_png(path);
    case ImageFormat::tiff: return detail::read_tiff(path);
    case ImageFormat::pnm: return detail::read_pnm(path);
  }
  GIGASEG_THROW(ErrorKind::internal, path, "unreachable format");
}

ImageFormat format_for_extension(std::string const& path) {
  auto const dot = path.find_last_of('.');
  auto const slash = path.find_last_of('/');
  std::string ext =
      (dot == std::string::npos || (slash != std::string::npos && dot < slash)) ? std::string() : path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == "png") return ImageFormat::png;
  if (ext == "tif" || ext == "tiff") return ImageFormat::tiff;
  if (ext == "pgm" || ext == "ppm" || ext == "pnm") return ImageFormat::pnm;
  GIGASEG_THROW(ErrorKind::usage, path, "unknown output format '" + ext + "' (use .png, .tif, .tiff, .pgm or .ppm)");
}

void write_image(std::string const& path, AnyHostImage const& image, WriteOptions options) {
  ImageFormat const format = format_for_extension(path);
  AtomicOutput output(path);
  switch (format) {
    case ImageFormat::png: detail::write_png(output.temp_path(), path, image); break;
    case ImageFormat::tiff: detail::write_tiff(output.temp_path(), path, image, options); break;
    case ImageFormat::pnm: detail::write_pnm(output.temp_path(), path, image); break;
  }
  output.commit();
}

}  // namespace gigaseg
