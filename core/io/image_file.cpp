#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/io/tile_writer.hpp"

#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
std::atomic<int> writer_threads{0};
std::mutex write_options_mutex;
WriteOptions write_options;
}  // namespace

char const* to_string(TiffCompression compression) noexcept {
  switch (compression) {
    case TiffCompression::none: return "none";
    case TiffCompression::deflate: return "deflate";
    case TiffCompression::zstd: return "zstd";
  }
  return "?";
}

void set_default_write_options(WriteOptions const& options) {
  std::lock_guard<std::mutex> lock(write_options_mutex);
  write_options = options;
}
WriteOptions default_write_options() {
  std::lock_guard<std::mutex> lock(write_options_mutex);
  return write_options;
}

void set_io_threads(int threads) noexcept { writer_threads.store(threads < 0 ? 0 : threads); }
int io_threads() noexcept {
  if (int const set = writer_threads.load(); set > 0) return set;
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (sched_getaffinity(0, sizeof cpus, &cpus) == 0) return std::max(1, CPU_COUNT(&cpus));
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

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
    case ImageFormat::fits: return "fits";
    case ImageFormat::slide: return "slide";
    case ImageFormat::zarr: return "zarr";
  }
  return "?";
}

namespace {

ImageFormat format_of(unsigned char const* magic, std::size_t got) {
  static unsigned char const png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (got == 8 && std::memcmp(magic, png_signature, 8) == 0) return ImageFormat::png;
  // Classic TIFF has version 42 after the byte-order mark, BigTIFF 43.
  if (got >= 4 && ((magic[0] == 'I' && magic[1] == 'I' && (magic[2] == 42 || magic[2] == 43) && magic[3] == 0) ||
                   (magic[0] == 'M' && magic[1] == 'M' && magic[2] == 0 && (magic[3] == 42 || magic[3] == 43))))
    return ImageFormat::tiff;
  if (got >= 2 && magic[0] == 'P' && magic[1] != 0 && std::strchr("2356", magic[1]) != nullptr) return ImageFormat::pnm;
  if (got == 8 && std::memcmp(magic, "SIMPLE  ", 8) == 0) return ImageFormat::fits;  // a FITS primary header
  throw std::invalid_argument(got == 0 ? "file is empty" : "not a PNG, TIFF, PGM/PPM, FITS or whole-slide image file");
}

// Where a reader finds the bytes of `path`: the path itself for a regular file; for a pipe, a
// FIFO or a character device (`/dev/stdin`, `<(command)`), which can be read only once and not
// seeked, a copy of the whole stream in an anonymous memory file, read through /proc/self/fd.
// A directory or a missing file fails here, with the system's words.
class InputSource {
 public:
  explicit InputSource(std::string const& path) : path_(path) {
    struct stat st {};
    GIGASEG_REQUIRE(::stat(path.c_str(), &st) == 0, ErrorKind::input, path, std::strerror(errno));
    GIGASEG_REQUIRE(!S_ISDIR(st.st_mode), ErrorKind::input, path, "is a directory, not an image file");
    if (S_ISREG(st.st_mode)) {
      open_path_ = path;
      return;
    }
    copy_stream();
  }
  ~InputSource() {
    if (copy_ >= 0) ::close(copy_);
  }
  InputSource(InputSource const&) = delete;
  InputSource& operator=(InputSource const&) = delete;

  std::string const& open_path() const { return open_path_; }
  ImageFormat format() const {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(open_path_.c_str(), "rb"), &std::fclose);
    GIGASEG_REQUIRE(file != nullptr, ErrorKind::input, path_, std::strerror(errno));
    unsigned char magic[8] = {};
    std::size_t const got = std::fread(magic, 1, sizeof magic, file.get());
    GIGASEG_REQUIRE(!std::ferror(file.get()), ErrorKind::input, path_, std::strerror(errno));
    file.reset();
    std::string unknown;
    ImageFormat format = ImageFormat::tiff;
    try {
      format = format_of(magic, got);
    } catch (std::invalid_argument const& e) {
      unknown = e.what();
    }
    // A TIFF that a slide scanner wrote, or a slide in a format of its own (MIRAX, Hamamatsu VMS):
    // OpenSlide's. A stream's copy is never a slide (OpenSlide opens files by name, some several).
    if ((format == ImageFormat::tiff || !unknown.empty()) && copy_ < 0) {
      std::string const vendor = detail::slide_vendor(open_path_);
      if (!vendor.empty() && vendor != "generic-tiff") return ImageFormat::slide;
    }
    GIGASEG_REQUIRE(unknown.empty(), ErrorKind::input, path_, unknown);
    return format;
  }

 private:
  void copy_stream() {
    int const in = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    GIGASEG_REQUIRE(in >= 0, ErrorKind::input, path_, std::strerror(errno));
    copy_ = ::memfd_create("gigaseg-input", MFD_CLOEXEC);
    if (copy_ < 0) {
      int const e = errno;
      ::close(in);
      GIGASEG_THROW(ErrorKind::resource, path_, std::string("cannot hold a copy of the stream: ") + std::strerror(e));
    }
    std::vector<unsigned char> buffer(1 << 20);
    std::size_t total = 0;
    for (;;) {
      ssize_t const n = ::read(in, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int const e = errno;
        ::close(in);
        GIGASEG_THROW(ErrorKind::input, path_, std::strerror(e));
      }
      if (n == 0) break;
      // An endless stream that is no image (/dev/zero, /dev/urandom) fails on its first bytes.
      if (total == 0) {
        try {
          (void)format_of(buffer.data(), std::min<std::size_t>(std::size_t(n), 8));
        } catch (std::invalid_argument const& e) {
          if (n >= 8) {
            ::close(in);
            GIGASEG_THROW(ErrorKind::input, path_, e.what());
          }
        }
      }
      for (ssize_t done = 0; done < n;) {
        ssize_t const w = ::write(copy_, buffer.data() + done, std::size_t(n - done));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
          int const e = errno;
          ::close(in);
          GIGASEG_THROW(ErrorKind::resource, path_,
                        std::string("cannot hold a copy of the stream: ") + std::strerror(e));
        }
        done += w;
      }
      total += std::size_t(n);
    }
    ::close(in);
    open_path_ = "/proc/self/fd/" + std::to_string(copy_);
  }

  std::string path_, open_path_;
  int copy_ = -1;
};

}  // namespace

// A Zarr input is a folder (InputSource takes files): each entry point asks first.
ImageFormat detect_format(std::string const& path) {
  return is_zarr_folder(path) ? ImageFormat::zarr : InputSource(path).format();
}

AnyHostImage read_image(std::string const& path) {
  if (is_zarr_folder(path)) return detail::read_zarr(path);
  InputSource const source(path);
  switch (source.format()) {
    case ImageFormat::png: return detail::read_png(path, source.open_path());
    case ImageFormat::tiff: return detail::read_tiff(path, source.open_path());
    case ImageFormat::pnm: return detail::read_pnm(path, source.open_path());
    case ImageFormat::fits: return detail::read_fits(path, source.open_path());
    case ImageFormat::slide: return detail::read_slide(path, source.open_path());
    case ImageFormat::zarr: break;
  }
  GIGASEG_THROW(ErrorKind::internal, path, "unreachable format");
}

SlideInfo slide_info(std::string const& path) {
  InputSource const source(path);
  GIGASEG_REQUIRE(source.format() == ImageFormat::slide, ErrorKind::input, path,
                  "is not a whole-slide image (OpenSlide names no slide vendor for it)");
  return detail::read_slide_info(path, source.open_path());
}

namespace {
void require_region_readable(std::string const& path, ImageFormat format) {
  GIGASEG_REQUIRE(format == ImageFormat::tiff || format == ImageFormat::fits || format == ImageFormat::slide,
                  ErrorKind::input, path,
                  std::string("a ") + (format == ImageFormat::png ? "PNG" : "PGM/PPM") +
                      " file cannot be read by region (its rows are one stream); convert it to a tiled TIFF");
}
}  // namespace

AnyHostImage read_image_region(std::string const& path, Region const& region) {
  if (is_zarr_folder(path)) return detail::read_zarr(path, &region);
  InputSource const source(path);
  ImageFormat const format = source.format();
  require_region_readable(path, format);
  if (format == ImageFormat::fits) return detail::read_fits(path, source.open_path(), &region);
  if (format == ImageFormat::slide) return detail::read_slide(path, source.open_path(), &region);
  return detail::read_tiff(path, source.open_path(), &region);
}

ImageShape image_shape(std::string const& path) {
  if (is_zarr_folder(path)) return detail::zarr_shape(path);
  InputSource const source(path);
  switch (source.format()) {
    case ImageFormat::png: return detail::png_shape(path, source.open_path());
    case ImageFormat::tiff: return detail::tiff_shape(path, source.open_path());
    case ImageFormat::pnm: return detail::pnm_shape(path, source.open_path());
    case ImageFormat::fits: return detail::fits_shape(path, source.open_path());
    case ImageFormat::slide: return detail::slide_shape(path, source.open_path());
    case ImageFormat::zarr: break;
  }
  GIGASEG_THROW(ErrorKind::internal, path, "unreachable format");
}

void write_tiled_copy(std::string const& input, std::string const& output, index_t tile_width, index_t tile_height,
                      WriteOptions const& options) {
  bool const zarr = is_zarr_folder(input);  // a folder, which InputSource does not take
  std::optional<InputSource> source;
  if (!zarr) source.emplace(input);
  ImageFormat const format = zarr ? ImageFormat::zarr : source->format();
  ImageShape const shape = format == ImageFormat::zarr    ? detail::zarr_shape(input)
                           : format == ImageFormat::tiff  ? detail::tiff_shape(input, source->open_path())
                           : format == ImageFormat::fits  ? detail::fits_shape(input, source->open_path())
                           : format == ImageFormat::slide ? detail::slide_shape(input, source->open_path())
                           : format == ImageFormat::png   ? detail::png_shape(input, source->open_path())
                                                          : detail::pnm_shape(input, source->open_path());
  std::unique_ptr<TiffTileWriter> writer;
  // Each band: its tiles, the row of tiles below the one before.
  detail::Bands const bands = [&](AnyHostImage const& band, index_t first) {
    if (!writer)
      writer = std::make_unique<TiffTileWriter>(output, shape.width, shape.height, pixel_type(band), tile_width,
                                                tile_height, options);
    index_t const row = first / tile_height;
    std::visit(
        [&](auto const& pixels) {
          for (index_t c = 0; c < writer->tiles_across(); ++c) {
            index_t const x = c * tile_width;
            writer->write_tile(c, row,
                               AnyHostImage(pixels.roi(x, 0, std::min(tile_width, shape.width - x), pixels.height())));
          }
        },
        band);
  };
  switch (format) {
    case ImageFormat::png: detail::read_png(input, source->open_path(), &bands, tile_height); break;
    case ImageFormat::pnm: detail::read_pnm(input, source->open_path(), &bands, tile_height); break;
    case ImageFormat::tiff:
    case ImageFormat::fits:
    case ImageFormat::slide:
    case ImageFormat::zarr:
      for (index_t y = 0; y < shape.height; y += tile_height) {
        Region const band{0, y, shape.width, std::min(tile_height, shape.height - y)};
        bands(format == ImageFormat::zarr    ? detail::read_zarr(input, &band)
              : format == ImageFormat::fits  ? detail::read_fits(input, source->open_path(), &band)
              : format == ImageFormat::slide ? detail::read_slide(input, source->open_path(), &band)
                                             : detail::read_tiff(input, source->open_path(), &band),
              y);
      }
      break;
  }
  writer->commit();
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
  if (ext == "zarr") {
    GIGASEG_REQUIRE(is_ome_zarr_name(path), ErrorKind::usage, path, "Zarr outputs are OME-Zarr: name them .ome.zarr");
    return ImageFormat::zarr;
  }
  GIGASEG_THROW(ErrorKind::usage, path,
                "unknown output format '" + ext + "' (use .png, .tif, .tiff, .pgm, .ppm or .ome.zarr)");
}

void write_image(std::string const& path, AnyHostImage const& image) {
  write_image(path, image, default_write_options());
}

void write_image(std::string const& path, AnyHostImage const& image, WriteOptions const& options) {
  ImageFormat const format = format_for_extension(path);
  if (format == ImageFormat::zarr) return detail::write_ome_zarr(path, image, options);
  if (format == ImageFormat::tiff && is_ome_tiff_name(path)) {
    // The full-resolution image tiled into a temporary of the output (never committed: removed),
    // then the pyramid assembled under the output's own temporary name.
    AtomicOutput level0(path);
    WriteOptions tiled = options;
    if (tiled.tiff_tile == 0) tiled.tiff_tile = 512;
    detail::write_tiff(level0.temp_path(), path, image, tiled);
    AtomicOutput output(path);
    detail::write_ome_tiff(level0.temp_path(), output.temp_path(), path, options);
    output.commit();
    return;
  }
  AtomicOutput output(path);
  switch (format) {
    case ImageFormat::png: detail::write_png(output.temp_path(), path, image); break;
    case ImageFormat::tiff: detail::write_tiff(output.temp_path(), path, image, options); break;
    case ImageFormat::pnm: detail::write_pnm(output.temp_path(), path, image); break;
    case ImageFormat::fits:
    case ImageFormat::slide:
    case ImageFormat::zarr: GIGASEG_THROW(ErrorKind::internal, path, "FITS and slides are read, not written");
  }
  output.commit();
}

}  // namespace gigaseg
