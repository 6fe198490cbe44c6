// PGM/PPM (Netpbm): P2/P5 gray and P3/P6 colour, maxval up to 65535. The format is a few lines
// of header and a raster, so it is read here directly; every read is bounds-checked, and a short
// or malformed file is an input error naming the file.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/io/read_ahead.hpp"

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace gigaseg::detail {
namespace {

using FileHandle = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

class PnmReader {
 public:
  PnmReader(std::FILE* file, std::string const& path) : file_(file), path_(path) {}

  // Next unsigned decimal number, skipping whitespace and '#' comments.
  std::uint64_t number(char const* what) {
    int c = skip_space();
    if (c == EOF) truncated(what);
    if (!std::isdigit(c)) corrupt(std::string("expected a number for ") + what);
    std::uint64_t value = 0;
    while (c != EOF && std::isdigit(c)) {
      value = value * 10 + std::uint64_t(c - '0');
      if (value > 0xffffffffULL) corrupt(std::string(what) + " is too large");
      c = std::fgetc(file_);
    }
    last_ = c;
    return value;
  }
  // After maxval exactly one whitespace byte separates header from a binary raster.
  void end_of_header() {
    if (last_ == EOF || !std::isspace(last_)) corrupt("no whitespace after the header");
  }
  void raw(void* out, std::size_t bytes) {
    if (std::fread(out, 1, bytes, file_) != bytes) truncated("pixel data");
  }
  [[noreturn]] void truncated(char const* what) {
    GIGASEG_THROW(ErrorKind::input, path_, std::string("truncated PGM/PPM file (") + what + " missing)");
  }
  [[noreturn]] void corrupt(std::string const& what) {
    GIGASEG_THROW(ErrorKind::input, path_, "corrupt PGM/PPM file: " + what);
  }

 private:
  int skip_space() {
    int c = last_ != 0 ? last_ : std::fgetc(file_);
    last_ = 0;
    for (;;) {
      while (c != EOF && std::isspace(c)) c = std::fgetc(file_);
      if (c != '#') return c;
      while (c != EOF && c != '\n' && c != '\r') c = std::fgetc(file_);
    }
  }
  std::FILE* file_;
  std::string const& path_;
  int last_ = 0;
};

// The raster into one image, or with `bands` into a band of band_rows rows handed over each time
// it is full.
template <class T, int Channels>
AnyHostImage read_raster(PnmReader& in, bool ascii, index_t w, index_t h, unsigned maxval, std::string const& path,
                         Bands const* bands, index_t band_rows) {
  using Stored = std::conditional_t<Channels == 3, Rgb8, T>;
  check_read_size(path, w, h);
  index_t const rows = bands != nullptr ? std::min(band_rows, h) : h;
  HostImage<Stored> image = new_host_image<Stored>(path, w, rows);
  std::size_t const samples = std::size_t(w) * Channels;
  std::vector<unsigned char> bytes(ascii ? 0 : samples * sizeof(T));
  std::vector<unsigned> values(samples);
  for (index_t y = 0; y < h; ++y) {
    if (ascii) {
      for (auto& v : values) v = unsigned(in.number("pixel value"));
    } else {
      in.raw(bytes.data(), bytes.size());
      for (std::size_t i = 0; i < samples; ++i)  // 16-bit samples are big-endian
        values[i] = sizeof(T) == 1 ? bytes[i] : (unsigned(bytes[2 * i]) << 8) | bytes[2 * i + 1];
    }
    for (auto v : values)
      if (v > maxval) in.corrupt("sample " + std::to_string(v) + " exceeds maxval " + std::to_string(maxval));
    Stored* row = image.row(y % rows);
    for (index_t x = 0; x < w; ++x) {
      if constexpr (Channels == 3) {
        unsigned const* v = &values[std::size_t(x) * 3];
        row[x] = sizeof(T) == 1 ? Rgb8{std::uint8_t(v[0]), std::uint8_t(v[1]), std::uint8_t(v[2])}
                                : Rgb8{scale_16_to_8(v[0]), scale_16_to_8(v[1]), scale_16_to_8(v[2])};
      } else {
        row[x] = static_cast<T>(values[std::size_t(x)]);
      }
    }
    if (bands != nullptr && ((y + 1) % rows == 0 || y + 1 == h)) {
      index_t const first = y - y % rows;
      (*bands)(AnyHostImage(image.roi(0, 0, w, y + 1 - first)), first);
    }
  }
  if (bands != nullptr) return AnyHostImage();
  return image;
}

}  // namespace

namespace {

// The header of a PGM/PPM: its type and size; `file` is left at the first byte of the raster.
struct PnmHeader {
  bool ascii = false, colour = false, wide = false;
  index_t width = 0, height = 0;
  unsigned maxval = 0;
};

PnmHeader read_pnm_header(PnmReader& in, std::FILE* file, std::string const& path) {
  char magic[2];
  GIGASEG_REQUIRE(std::fread(magic, 1, 2, file) == 2 && magic[0] == 'P', ErrorKind::input, path, "not a PGM/PPM file");
  GIGASEG_REQUIRE(std::strchr("2356", magic[1]) != nullptr, ErrorKind::input, path,
                  std::string("unsupported Netpbm type P") + magic[1]);
  PnmHeader header;
  header.ascii = magic[1] == '2' || magic[1] == '3';
  header.colour = magic[1] == '3' || magic[1] == '6';
  header.width = index_t(in.number("width"));
  header.height = index_t(in.number("height"));
  header.maxval = unsigned(in.number("maxval"));
  if (header.width == 0 || header.height == 0) in.corrupt("zero width or height");
  if (header.maxval == 0 || header.maxval > 65535)
    in.corrupt("maxval " + std::to_string(header.maxval) + " outside 1..65535");
  header.wide = header.maxval > 255;
  return header;
}

}  // namespace

ImageShape pnm_shape(std::string const& path, std::string const& source) {
  FileHandle file(std::fopen((source.empty() ? path : source).c_str(), "rb"), &std::fclose);
  GIGASEG_REQUIRE(file != nullptr, ErrorKind::input, path, std::strerror(errno));
  PnmReader in(file.get(), path);
  PnmHeader const header = read_pnm_header(in, file.get(), path);
  return ImageShape{header.width, header.height, header.width, header.height};
}

AnyHostImage read_pnm(std::string const& path, std::string const& source, Bands const* bands, index_t band_rows) {
  FileHandle file(std::fopen((source.empty() ? path : source).c_str(), "rb"), &std::fclose);
  GIGASEG_REQUIRE(file != nullptr, ErrorKind::input, path, std::strerror(errno));
  PnmReader in(file.get(), path);
  PnmHeader const header = read_pnm_header(in, file.get(), path);
  bool const ascii = header.ascii, colour = header.colour, wide = header.wide;
  index_t const w = header.width, h = header.height;
  unsigned const maxval = header.maxval;
  if (!ascii) {
    in.end_of_header();
    // A binary raster's size is known: a short file fails here, before its pixels are allocated.
    std::uint64_t const needed = std::uint64_t(w) * std::uint64_t(h) * (colour ? 3u : 1u) * (wide ? 2u : 1u);
    long const here = std::ftell(file.get());
    if (here >= 0 && std::fseek(file.get(), 0, SEEK_END) == 0) {
      long const end = std::ftell(file.get());
      if (end >= here && std::uint64_t(end - here) < needed) in.truncated("pixel data");
      std::fseek(file.get(), here, SEEK_SET);
    }
  }
  if (colour)
    return wide ? read_raster<std::uint16_t, 3>(in, ascii, w, h, maxval, path, bands, band_rows)
                : read_raster<std::uint8_t, 3>(in, ascii, w, h, maxval, path, bands, band_rows);
  return wide ? read_raster<std::uint16_t, 1>(in, ascii, w, h, maxval, path, bands, band_rows)
              : read_raster<std::uint8_t, 1>(in, ascii, w, h, maxval, path, bands, band_rows);
}

void write_pnm(std::string const& temp_path, std::string const& path, AnyHostImage const& image) {
  PixelType const type = pixel_type(image);
  GIGASEG_REQUIRE(type == PixelType::u8 || type == PixelType::u16 || type == PixelType::rgb8, ErrorKind::usage, path,
                  std::string("PGM/PPM cannot hold ") + to_string(type) + " pixels (write a .tif instead)");
  bool const colour = type == PixelType::rgb8;
  auto const dot = path.find_last_of('.');
  std::string const ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  GIGASEG_REQUIRE(!(colour && (ext == "pgm" || ext == "PGM")), ErrorKind::usage, path,
                  "a colour image needs .ppm, not .pgm");
  GIGASEG_REQUIRE(colour || !(ext == "ppm" || ext == "PPM"), ErrorKind::usage, path,
                  "a gray image needs .pgm, not .ppm");
  FileHandle file(std::fopen(temp_path.c_str(), "wb"), &std::fclose);
  GIGASEG_REQUIRE(file != nullptr, ErrorKind::input, path, std::string("cannot create: ") + std::strerror(errno));
  index_t const w = width(image), h = height(image);
  errno = 0;
  bool ok = std::fprintf(file.get(), "%s\n%lld %lld\n%d\n", colour ? "P6" : "P5", (long long)w, (long long)h,
                         type == PixelType::u16 ? 65535 : 255) > 0;
  std::vector<unsigned char> row_bytes(std::size_t(w) * (type == PixelType::u8 ? 1 : type == PixelType::u16 ? 2 : 3));
  for (index_t y = 0; y < h && ok; ++y) {
    std::visit(
        [&](auto const& view) {
          using T = typename std::decay_t<decltype(view)>::value_type;
          auto const* row = view.row(y);
          if constexpr (std::is_same<T, std::uint16_t>::value) {
            for (index_t x = 0; x < w; ++x) {  // big-endian
              row_bytes[2 * x] = std::uint8_t(row[x] >> 8);
              row_bytes[2 * x + 1] = std::uint8_t(row[x] & 0xff);
            }
          } else {
            std::memcpy(row_bytes.data(), row, row_bytes.size());
          }
        },
        image);
    ok = std::fwrite(row_bytes.data(), 1, row_bytes.size(), file.get()) == row_bytes.size();
    if (ok) start_writeback(file.get(), row_bytes.size());
  }
  int const write_errno = errno;
  bool const closed = std::fclose(file.release()) == 0;
  if (!ok || !closed) throw_write_failure(path, "write failed", ok ? errno : write_errno);
}

}  // namespace gigaseg::detail
