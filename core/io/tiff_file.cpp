// TIFF through libtiff: strips or tiles, classic or BigTIFF, 8/16/32-bit unsigned and 32-bit
// float samples, gray, RGB, palette and JPEG-compressed YCbCr (what slide scanners write).
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"
#include "gigaseg/core/io/tiff_internal.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/io/read_ahead.hpp"
#include "gigaseg/core/io/ordered_chunks.hpp"
#include "gigaseg/core/io/tile_writer.hpp"

#include <libdeflate.h>
#include <tiffio.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gigaseg {
namespace detail {
namespace {

// libtiff reports through process-wide handlers; we keep the last message of this thread and put
// it into the Error we throw, instead of letting libtiff print to stderr.
thread_local char tiff_message[512];

void on_tiff_error(char const* module, char const* format, va_list arguments) {
  int const n = module ? std::snprintf(tiff_message, sizeof tiff_message, "%s: ", module) : 0;
  std::vsnprintf(tiff_message + n, sizeof tiff_message - std::size_t(n), format, arguments);
}
void on_tiff_warning(char const*, char const*, va_list) {}

// Our handlers are installed while any scope is alive on any thread (a tile engine reads one file
// while it writes another), and the previous ones restored when the last scope ends.
std::mutex handler_mutex;
int handler_scopes = 0;
TIFFErrorHandler previous_error = nullptr, previous_warning = nullptr;

}  // namespace

TiffHandlerScope::TiffHandlerScope() {
  std::lock_guard<std::mutex> lock(handler_mutex);
  if (handler_scopes++ == 0) {
    previous_error = TIFFSetErrorHandler(on_tiff_error);
    previous_warning = TIFFSetWarningHandler(on_tiff_warning);
  }
  tiff_message[0] = '\0';
}
TiffHandlerScope::~TiffHandlerScope() {
  std::lock_guard<std::mutex> lock(handler_mutex);
  if (--handler_scopes == 0) {
    TIFFSetErrorHandler(previous_error);
    TIFFSetWarningHandler(previous_warning);
  }
}

// A failed write: errno as the failing write() left it says whether the disk was full.
[[noreturn]] void fail_write(std::string const& path, std::string const& what) {
  int const error_number = errno;
  std::string reason = what;
  if (tiff_message[0] != '\0') reason += std::string(" (") + tiff_message + ")";
  throw_write_failure(path, reason, error_number);
}

namespace {
using HandlerScope = TiffHandlerScope;

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

}  // namespace

// `what`, with this thread's last libtiff message in parentheses.
std::string with_detail(std::string const& what) {
  return tiff_message[0] != '\0' ? what + " (" + tiff_detail() + ")" : what;
}

// The marker of a reserved tile's bytes (TiffTileWriter::reserve_tile): write_proc leaves room.
unsigned char reserved_tile_bytes[1];

namespace {

// The file procedures of a TIFF opened for writing (libtiff's tif_unix.c, with writes cut into
// pieces). The handle is the file descriptor.
constexpr std::size_t write_piece = std::size_t(64) << 10;
int descriptor(thandle_t handle) { return int(reinterpret_cast<std::intptr_t>(handle)); }
tmsize_t read_proc(thandle_t handle, void* data, tmsize_t size) {
  std::size_t done = 0;
  while (done < std::size_t(size)) {
    ssize_t const n = ::read(descriptor(handle), static_cast<char*>(data) + done, std::size_t(size) - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    done += std::size_t(n);
  }
  return tmsize_t(done);
}
tmsize_t write_proc(thandle_t handle, void* data, tmsize_t size) {
  if (data == detail::reserved_tile_bytes) {
    // A reserved tile (TiffTileWriter::reserve_tile): the file grows past it, its bytes unwritten
    // (a hole another process fills), so libtiff places what follows where it would have.
    off_t const at = ::lseek(descriptor(handle), 0, SEEK_CUR);
    if (at < 0 || ::ftruncate(descriptor(handle), at + off_t(size)) != 0 ||
        ::lseek(descriptor(handle), at + off_t(size), SEEK_SET) < 0)
      return -1;
    return size;
  }
  std::size_t done = 0;
  while (done < std::size_t(size)) {
    ssize_t const n = ::write(descriptor(handle), static_cast<char const*>(data) + done,
                              std::min(write_piece, std::size_t(size) - done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;  // errno as the write left it (ENOSPC: the disk is full)
    done += std::size_t(n);
  }
  if (off_t const end = ::lseek(descriptor(handle), 0, SEEK_CUR); end > 0)
    start_writeback(descriptor(handle), std::uint64_t(end), std::uint64_t(size));
  return size;
}
toff_t seek_proc(thandle_t handle, toff_t offset, int whence) {
  off_t const at = ::lseek(descriptor(handle), off_t(offset), whence);
  return at < 0 ? toff_t(-1) : toff_t(at);
}
int close_proc(thandle_t handle) { return ::close(descriptor(handle)); }
toff_t size_proc(thandle_t handle) {
  struct stat st {};
  return ::fstat(descriptor(handle), &st) == 0 ? toff_t(st.st_size) : toff_t(0);
}
int map_proc(thandle_t, void**, toff_t*) { return 0; }
void unmap_proc(thandle_t, void*, toff_t) {}

}  // namespace

TIFF* open_tiff_for_writing(std::string const& path, char const* mode) {
  // As TIFFOpen opens for "w": read and write, created or truncated, 0666 less the umask.
  int const fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return nullptr;
  TIFF* tif = TIFFClientOpen(path.c_str(), mode, reinterpret_cast<thandle_t>(std::intptr_t(fd)), read_proc, write_proc,
                             seek_proc, close_proc, size_proc, map_proc, unmap_proc);
  if (tif == nullptr) {
    int const error_number = errno;
    ::close(fd);
    errno = error_number;
  }
  return tif;
}

namespace {

[[noreturn]] void fail(std::string const& path, std::string const& what) {
  GIGASEG_THROW(ErrorKind::input, path, with_detail(what));
}

struct Layout {
  std::uint32_t width = 0, height = 0;
  std::uint16_t samples = 1, bits = 8, format = SAMPLEFORMAT_UINT, photometric = PHOTOMETRIC_MINISBLACK;
  std::uint16_t planar = PLANARCONFIG_CONTIG;
  std::uint16_t *red = nullptr, *green = nullptr, *blue = nullptr;  // palette
  int colour_channels = 1;  // samples that carry the image (1 or 3); the rest are extra (alpha)
  Region region;            // the rectangle read (the whole image unless a region was asked for)
};

// Copies the part of one decoded block (strip or tile: `rows` rows of `block_width` pixels,
// samples interleaved, its top-left pixel at (x0, y0) of the file's image) that falls inside the
// region read into `image` (the region's pixels), dropping extra samples.
template <class T, class Sample>
void place(HostImage<T> const& image, Layout const& layout, unsigned char const* block, std::uint32_t x0,
           std::uint32_t y0, std::uint32_t block_width, std::uint32_t rows) {
  Region const& region = layout.region;
  index_t const left = std::max<index_t>(x0, region.x), top = std::max<index_t>(y0, region.y);
  index_t const right = std::min<index_t>(index_t(x0) + block_width, region.x + region.width);
  index_t const bottom = std::min<index_t>(index_t(y0) + rows, region.y + region.height);
  if (left >= right || top >= bottom) return;
  auto const* samples = reinterpret_cast<Sample const*>(block);
  int const stride = layout.samples;
  for (index_t y = top; y < bottom; ++y) {
    Sample const* in = samples + (std::size_t(y - y0) * block_width + std::size_t(left - x0)) * stride;
    T* out = image.row(y - region.y) + (left - region.x);
    for (index_t c = 0; c < right - left; ++c, in += stride) {
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

// Opens another handle on the file being read (the first directory, set up as the first handle
// is), or returns null: each thread that decodes strips or tiles reads through its own handle.
using Reopen = std::function<TIFF*()>;

template <class T, class Sample>
AnyHostImage decode(TIFF* tif, Layout const& layout, std::string const& path, Reopen const& reopen) {
  Region const& region = layout.region;
  check_read_size(path, region.width, region.height,
                  region.width == layout.width && region.height == layout.height ? "image" : "region");
  HostImage<T> image = new_host_image<T>(path, region.width, region.height);
  bool const tiled = TIFFIsTiled(tif);
  std::uint32_t block_width = layout.width, block_height = layout.height;
  if (tiled) {
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &block_width);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &block_height);
    if (block_width == 0 || block_height == 0) fail(path, "tiled TIFF without tile size");
    check_read_size(path, block_width, block_height, "a tile");
  } else {
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &block_height);
    block_height = std::min(std::max<std::uint32_t>(block_height, 1), layout.height);
  }
  // The blocks the region overlaps: columns [first_column, first_column + across) of tiles (one
  // column of strips) and rows [first_row, first_row + down).
  std::size_t const first_column = tiled ? std::size_t(region.x) / block_width : 0;
  std::size_t const across =
      tiled ? (std::size_t(region.x + region.width) + block_width - 1) / block_width - first_column : 1;
  std::size_t const first_row = std::size_t(region.y) / block_height;
  std::size_t const down = (std::size_t(region.y + region.height) + block_height - 1) / block_height - first_row;
  std::size_t const chunks = across * down;
  std::size_t const buffer_size = std::size_t(tiled ? TIFFTileSize(tif) : TIFFStripSize(tif));
  // Reads chunk i (tile in raster order, or strip) through `handle` into the image; false with a
  // message on failure.
  // The buffer is left uninitialised (libtiff fills it; a vector would zero it for every region).
  using Buffer = std::unique_ptr<unsigned char[]>;
  auto read_chunk = [&](TIFF* handle, std::size_t i, Buffer& buffer, std::string& failure) {
    if (!buffer) buffer.reset(new unsigned char[buffer_size]);
    std::size_t const column = first_column + i % across, row = first_row + i / across;
    std::uint32_t const x = std::uint32_t(column) * block_width, y = std::uint32_t(row) * block_height;
    bool const ok = tiled ? TIFFReadTile(handle, buffer.get(), x, y, 0, 0) >= 0
                          : TIFFReadEncodedStrip(handle, tstrip_t(row), buffer.get(), tmsize_t(buffer_size)) >= 0;
    if (!ok) {
      failure = with_detail(tiled ? "corrupt or truncated tile at " + std::to_string(x) + "," + std::to_string(y)
                                  : "corrupt or truncated strip " + std::to_string(row));
      return false;
    }
    place<T, Sample>(image, layout, buffer.get(), x, y, block_width, block_height);
    return true;
  };
  // Images of 4 MiB and more are decoded on io_threads(), a handle each; the error reported is
  // that of the first bad chunk in file order, as on one thread.
  int const threads = image.pixel_count() * index_t(sizeof(T)) >= (index_t(4) << 20)
                          ? int(std::min<std::size_t>(chunks, std::size_t(io_threads())))
                          : 1;
  std::string failure;
  if (threads <= 1) {
    Buffer buffer;
    for (std::size_t i = 0; i < chunks; ++i)
      if (!read_chunk(tif, i, buffer, failure)) GIGASEG_THROW(ErrorKind::input, path, failure);
    return image;
  }
  std::atomic<std::size_t> next{0};
  std::size_t first_bad = chunks;
  std::mutex mutex;
  auto worker = [&](bool own_handle) {
    TiffHandle mine(own_handle ? reopen() : nullptr);
    TIFF* handle = own_handle ? mine.get() : tif;
    Buffer buffer;
    std::string message;
    for (;;) {
      std::size_t const i = next.fetch_add(1);
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (i >= chunks || i > first_bad) return;
      }
      if (handle != nullptr && read_chunk(handle, i, buffer, message)) continue;
      std::lock_guard<std::mutex> lock(mutex);
      if (i < first_bad) {
        first_bad = i;
        failure = handle != nullptr ? message : with_detail("cannot open the file again to read it in parallel");
      }
      return;
    }
  };
  {
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker, true);
    worker(false);  // the calling thread reads through the first handle
    for (auto& thread : pool) thread.join();
  }
  if (first_bad < chunks) GIGASEG_THROW(ErrorKind::input, path, failure);
  return image;
}

// Compressed TIFF is encoded by gigaseg, a strip or tile per task on io_threads(), and handed to
// libtiff as raw strips and tiles (TIFFWriteRawStrip/Tile) in order: libtiff's own encoders run on
// the one thread that owns the file. The bytes are what libtiff's codecs read: a zlib stream
// (Compression=8, Adobe Deflate) through libdeflate, or a Zstandard frame (Compression=50000),
// over the samples as they are or, where WriteOptions::tiff_predictor asks, with the horizontal
// predictor (integers, in the file's native byte order) or the floating-point predictor (floats)
// applied.
struct Codec {
  TiffCompression compression = TiffCompression::none;
  int level = 0;
  std::uint16_t predictor = PREDICTOR_NONE;  // or horizontal for integers, floating point for floats
};

template <class Sample>
void difference_rows(unsigned char* data, std::size_t rows, std::size_t width, int samples) {
  for (std::size_t r = 0; r < rows; ++r) {
    Sample* row = reinterpret_cast<Sample*>(data) + r * width * std::size_t(samples);
    for (std::size_t i = width * std::size_t(samples) - 1; i >= std::size_t(samples); --i)
      row[i] = static_cast<Sample>(row[i] - row[i - std::size_t(samples)]);
  }
}

// The floating-point predictor (Predictor=3, as libtiff decodes it): each row's samples split
// into byte planes, most significant first, then every byte minus the byte one pixel before it
// across the whole row of planes. Smooth float images (distances) turn into long runs.
void float_difference_rows(unsigned char* data, std::size_t rows, std::size_t width, int samples,
                           std::vector<unsigned char>& scratch) {
  std::size_t const count = width * std::size_t(samples), row_bytes = count * 4, stride = std::size_t(samples);
  scratch.resize(row_bytes);
  for (std::size_t r = 0; r < rows; ++r) {
    unsigned char* row = data + r * row_bytes;
    std::memcpy(scratch.data(), row, row_bytes);
    for (std::size_t i = 0; i < count; ++i)
      for (std::size_t byte = 0; byte < 4; ++byte) row[(3 - byte) * count + i] = scratch[4 * i + byte];
    for (std::size_t k = row_bytes - 1; k >= stride; --k) row[k] = static_cast<unsigned char>(row[k] - row[k - stride]);
  }
}

void apply_predictor(unsigned char* data, std::size_t rows, std::size_t width, int samples, int bytes_per_sample) {
  if (width < 2) return;
  switch (bytes_per_sample) {
    case 1: difference_rows<std::uint8_t>(data, rows, width, samples); break;
    case 2: difference_rows<std::uint16_t>(data, rows, width, samples); break;
    case 4: difference_rows<std::uint32_t>(data, rows, width, samples); break;
    default: break;
  }
}

struct DeflateCompressor {
  libdeflate_compressor* compressor = nullptr;
  int level = 0;
  ~DeflateCompressor() { libdeflate_free_compressor(compressor); }
};
struct ZstdContext {
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ~ZstdContext() { ZSTD_freeCCtx(context); }
};

// Compresses into a scratch buffer of this thread that only grows (a vector's resize would fill the
// whole bound with zeros for every block), then copies the compressed bytes, usually a small
// fraction, to `out`.
void compress(Codec const& codec, unsigned char const* data, std::size_t length, std::vector<unsigned char>& out,
              std::string const& path) {
  thread_local std::vector<unsigned char> scratch;
  if (codec.compression == TiffCompression::deflate) {
    thread_local DeflateCompressor deflate;
    int const level = codec.level > 0 ? codec.level : 1;
    if (deflate.compressor == nullptr || deflate.level != level) {
      libdeflate_free_compressor(deflate.compressor);
      deflate.compressor = libdeflate_alloc_compressor(level);
      deflate.level = level;
      if (deflate.compressor == nullptr) GIGASEG_THROW(ErrorKind::resource, path, "libdeflate: out of memory");
    }
    std::size_t const bound = libdeflate_zlib_compress_bound(deflate.compressor, length);
    if (scratch.size() < bound) scratch.resize(bound);
    std::size_t const size = libdeflate_zlib_compress(deflate.compressor, data, length, scratch.data(), bound);
    if (size == 0) GIGASEG_THROW(ErrorKind::internal, path, "libdeflate could not compress a block");
    out.assign(scratch.data(), scratch.data() + size);
  } else {
    thread_local ZstdContext zstd;
    if (zstd.context == nullptr) GIGASEG_THROW(ErrorKind::resource, path, "zstd: out of memory");
    std::size_t const bound = ZSTD_compressBound(length);
    if (scratch.size() < bound) scratch.resize(bound);
    std::size_t const size =
        ZSTD_compressCCtx(zstd.context, scratch.data(), bound, data, length, codec.level > 0 ? codec.level : 1);
    if (ZSTD_isError(size)) GIGASEG_THROW(ErrorKind::internal, path, std::string("zstd: ") + ZSTD_getErrorName(size));
    out.assign(scratch.data(), scratch.data() + size);
  }
}

}  // namespace

namespace {
// The physical size of a pixel: an OME-TIFF's OME-XML (whose errors are the file's), else the
// resolution tags in pixels per inch or centimetre.
void physical_size(TIFF* tif, std::string const& path, double& microns_x, double& microns_y) {
  microns_x = microns_y = 0;
  char const* description = nullptr;
  if (TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &description) && description != nullptr &&
      std::strstr(description, "<OME") != nullptr) {
    ome_physical_size(path, description, microns_x, microns_y);
    return;
  }
  std::uint16_t unit = RESUNIT_NONE;
  float x = 0, y = 0;
  if (!TIFFGetField(tif, TIFFTAG_RESOLUTIONUNIT, &unit) || !TIFFGetField(tif, TIFFTAG_XRESOLUTION, &x) ||
      !TIFFGetField(tif, TIFFTAG_YRESOLUTION, &y) || !(x > 0) || !(y > 0) || !std::isfinite(x) || !std::isfinite(y))
    return;
  double const microns = unit == RESUNIT_CENTIMETER ? 1e4 : unit == RESUNIT_INCH ? 25400.0 : 0.0;
  microns_x = microns / double(x);
  microns_y = microns / double(y);
}
}  // namespace

ImageShape tiff_shape(std::string const& path, std::string const& source) {
  HandlerScope handlers;
  int const fd = ::open((source.empty() ? path : source).c_str(), O_RDONLY | O_CLOEXEC);
  GIGASEG_REQUIRE(fd >= 0, ErrorKind::input, path, std::strerror(errno));
  TiffHandle tif(TIFFFdOpen(fd, path.c_str(), "r"));
  if (!tif) {
    ::close(fd);
    fail(path, "cannot open as TIFF");
  }
  std::uint32_t width = 0, height = 0;
  TIFFGetField(tif.get(), TIFFTAG_IMAGEWIDTH, &width);
  TIFFGetField(tif.get(), TIFFTAG_IMAGELENGTH, &height);
  if (width == 0 || height == 0) fail(path, "TIFF has no pixels");
  ImageShape shape{width, height, width, height};
  physical_size(tif.get(), path, shape.microns_per_pixel_x, shape.microns_per_pixel_y);
  std::uint32_t block_width = 0, block_height = 0, rows = 0;
  if (TIFFIsTiled(tif.get())) {
    TIFFGetField(tif.get(), TIFFTAG_TILEWIDTH, &block_width);
    TIFFGetField(tif.get(), TIFFTAG_TILELENGTH, &block_height);
    if (block_width > 0 && block_height > 0) shape.block_width = block_width, shape.block_height = block_height;
  } else if (TIFFGetFieldDefaulted(tif.get(), TIFFTAG_ROWSPERSTRIP, &rows) && rows > 0) {
    shape.block_height = std::min(rows, height);
  }
  return shape;
}

AnyHostImage read_tiff(std::string const& path, std::string const& source, Region const* region) {
  HandlerScope handlers;
  // Opened by descriptor so that libtiff's messages name `path`, not the source's.
  std::string const open_path = source.empty() ? path : source;
  int const fd = ::open(open_path.c_str(), O_RDONLY | O_CLOEXEC);
  GIGASEG_REQUIRE(fd >= 0, ErrorKind::input, path, std::strerror(errno));
  TiffHandle tif(TIFFFdOpen(fd, path.c_str(), "r"));
  if (!tif) {
    ::close(fd);
    fail(path, "cannot open as TIFF");
  }
  bool jpeg_to_rgb = false;
  Reopen const reopen = [&]() -> TIFF* {
    int const again = ::open(open_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (again < 0) return nullptr;
    TIFF* handle = TIFFFdOpen(again, path.c_str(), "r");
    if (handle == nullptr) {
      ::close(again);
      return nullptr;
    }
    if (jpeg_to_rgb) TIFFSetField(handle, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    return handle;
  };
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
  if (region == nullptr) {  // a whole read checks the file's OME-XML, as the shape does
    double microns_x = 0, microns_y = 0;
    physical_size(tif.get(), path, microns_x, microns_y);
  }
  layout.region = Region{0, 0, layout.width, layout.height};
  if (region != nullptr) {
    GIGASEG_REQUIRE(region->width > 0 && region->height > 0 && region->x >= 0 && region->y >= 0 &&
                        region->x + region->width <= layout.width && region->y + region->height <= layout.height,
                    ErrorKind::usage, path,
                    "region " + std::to_string(region->width) + "x" + std::to_string(region->height) + " at " +
                        std::to_string(region->x) + "," + std::to_string(region->y) + " is not inside the " +
                        std::to_string(layout.width) + "x" + std::to_string(layout.height) + " image");
    layout.region = *region;
  }
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
    jpeg_to_rgb = true;
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
    return decode<Rgb8, std::uint8_t>(tif.get(), layout, path, reopen);
  }
  if (layout.photometric == PHOTOMETRIC_RGB && layout.samples >= 3 && !is_float) {
    layout.colour_channels = 3;
    if (layout.bits == 8) return decode<Rgb8, std::uint8_t>(tif.get(), layout, path, reopen);
    if (layout.bits == 16) return decode<Rgb8, std::uint16_t>(tif.get(), layout, path, reopen);
  }
  if ((layout.photometric == PHOTOMETRIC_MINISBLACK || layout.photometric == PHOTOMETRIC_MINISWHITE) &&
      layout.samples <= 2) {
    if (is_float && layout.bits == 32) {
      if (layout.photometric == PHOTOMETRIC_MINISWHITE) fail(path, "unsupported TIFF: inverted float");
      return decode<float, float>(tif.get(), layout, path, reopen);
    }
    if (!is_float && layout.bits == 8) return decode<std::uint8_t, std::uint8_t>(tif.get(), layout, path, reopen);
    if (!is_float && layout.bits == 16) return decode<std::uint16_t, std::uint16_t>(tif.get(), layout, path, reopen);
    if (!is_float && layout.bits == 32) {
      if (layout.photometric == PHOTOMETRIC_MINISWHITE) fail(path, "unsupported TIFF: inverted 32-bit");
      return decode<std::uint32_t, std::uint32_t>(tif.get(), layout, path, reopen);
    }
  }
  fail(path, "unsupported TIFF pixel layout: " + what);
}

namespace {

// A TIFF being written: the open handle (classic or BigTIFF), its codec, and the block layout.
struct TiffOutput {
  TiffHandle tif;
  Codec codec;
  std::uint16_t scheme = COMPRESSION_NONE;
  int samples = 1;
  index_t pixel = 1;  // bytes
};

// The codec and the pixel layout of an output of `type` as `options` ask, without a file.
TiffOutput output_layout(std::string const& path, PixelType type, WriteOptions const& options) {
  TiffOutput out;
  std::uint16_t const predictor = !options.tiff_predictor || options.tiff_compression == TiffCompression::none
                                      ? PREDICTOR_NONE
                                  : type == PixelType::f32 ? PREDICTOR_FLOATINGPOINT
                                                           : PREDICTOR_HORIZONTAL;
  out.codec = Codec{options.tiff_compression, options.compression_level, predictor};
  GIGASEG_REQUIRE(out.codec.level >= 0 && out.codec.level <= (out.codec.compression == TiffCompression::zstd ? 19 : 12),
                  ErrorKind::usage, path,
                  std::string("compression level must be 0 (default) or 1..") +
                      (out.codec.compression == TiffCompression::zstd ? "19 for zstd" : "12 for deflate"));
  out.pixel = bytes_per_pixel(type);
  out.samples = type == PixelType::rgb8 ? 3 : 1;
  out.scheme = out.codec.compression == TiffCompression::deflate ? COMPRESSION_ADOBE_DEFLATE
               : out.codec.compression == TiffCompression::zstd  ? COMPRESSION_ZSTD
                                                                 : COMPRESSION_NONE;
  return out;
}

// block_width x block_height: the tiles (0 x 0: options.tiff_tile, or strips without it).
TiffOutput open_output(std::string const& temp_path, std::string const& path, index_t w, index_t h, PixelType type,
                       WriteOptions const& options, index_t block_width = 0, index_t block_height = 0) {
  GIGASEG_REQUIRE(w > 0 && h > 0 && w <= 0xffffffffLL && h <= 0xffffffffLL, ErrorKind::usage, path,
                  "TIFF dimensions must be between 1 and 2^32-1");
  GIGASEG_REQUIRE(options.tiff_tile % 16 == 0 && options.tiff_tile >= 0, ErrorKind::usage, path,
                  "TIFF tile size must be a multiple of 16");
  TiffOutput out = output_layout(path, type, options);
  if (block_width == 0 && options.tiff_tile > 0) block_width = block_height = options.tiff_tile;
  bool const big = options.force_bigtiff || needs_bigtiff(w, h, out.pixel, block_width, block_height);
  out.tif.reset(open_tiff_for_writing(temp_path, big ? "w8" : "w"));
  if (!out.tif) fail_write(path, "cannot create");
  TIFF* tif = out.tif.get();
  int const bits = type == PixelType::rgb8 ? 8 : int(out.pixel) * 8;
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, std::uint32_t(w));
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, std::uint32_t(h));
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, out.samples);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, bits);
  TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, type == PixelType::f32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, out.samples == 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  if (!TIFFSetField(tif, TIFFTAG_COMPRESSION, out.scheme))
    fail_write(path, std::string("this libtiff cannot write ") + to_string(out.codec.compression) + " compression");
  if (out.codec.predictor != PREDICTOR_NONE) TIFFSetField(tif, TIFFTAG_PREDICTOR, out.codec.predictor);
  return out;
}

// Applies the predictor, if any, to `rows` rows of `block_width` pixels in `block` and compresses
// them into `bytes`.
void encode_block(TiffOutput const& out, unsigned char* block, index_t block_width, index_t rows,
                  std::vector<unsigned char>& bytes, std::string const& path) {
  if (out.codec.predictor == PREDICTOR_FLOATINGPOINT) {
    thread_local std::vector<unsigned char> scratch;
    float_difference_rows(block, std::size_t(rows), std::size_t(block_width), out.samples, scratch);
  } else if (out.codec.predictor == PREDICTOR_HORIZONTAL) {
    apply_predictor(block, std::size_t(rows), std::size_t(block_width), out.samples, int(out.pixel) / out.samples);
  }
  compress(out.codec, block, std::size_t(block_width * rows * out.pixel), bytes, path);
}

// Writes the directory and closes the file; a failure (a full disk) names `path`.
void finish(TiffOutput& out, std::string const& path) {
  if (!TIFFWriteDirectory(out.tif.get())) fail_write(path, "cannot write TIFF directory");
  TIFF* raw = out.tif.release();
  errno = 0;
  TIFFClose(raw);
  if (tiff_message[0] != '\0') fail_write(path, "write failed");
}

}  // namespace

void write_tiff(std::string const& temp_path, std::string const& path, AnyHostImage const& image,
                WriteOptions const& options) {
  HandlerScope handlers;
  PixelType const type = pixel_type(image);
  index_t const w = width(image), h = height(image);
  TiffOutput out = open_output(temp_path, path, w, h, type, options);
  TIFF* tif = out.tif.get();
  auto row_of = [&](index_t y) {
    return std::visit([y](auto const& view) { return reinterpret_cast<unsigned char const*>(view.row(y)); }, image);
  };
  index_t const pixel = out.pixel;
  // Chunks: tiles in raster order, or strips of about 1 MiB (few enough entries for huge images,
  // small enough to stream). Chunk i covers the rectangle at (x, y) of cw x ch pixels and is
  // stored as block_width x block_height (edge tiles padded with zeros).
  index_t const tile = options.tiff_tile;
  index_t const rows_per_strip = std::max<index_t>(1, std::min<index_t>(h, (index_t(1) << 20) / (w * pixel)));
  index_t const across = tile > 0 ? (w + tile - 1) / tile : 1;
  index_t const down = tile > 0 ? (h + tile - 1) / tile : (h + rows_per_strip - 1) / rows_per_strip;
  index_t const block_width = tile > 0 ? tile : w, block_height = tile > 0 ? tile : rows_per_strip;
  if (tile > 0) {
    TIFFSetField(tif, TIFFTAG_TILEWIDTH, std::uint32_t(tile));
    TIFFSetField(tif, TIFFTAG_TILELENGTH, std::uint32_t(tile));
  } else {
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, std::uint32_t(rows_per_strip));
  }
  // Copies chunk i into `block` (block_width x rows) and returns the rows it holds.
  auto gather = [&](std::size_t i, unsigned char* block) {
    index_t const x = index_t(i % std::size_t(across)) * block_width;
    index_t const y = index_t(i / std::size_t(across)) * block_height;
    index_t const cw = std::min(block_width, w - x), ch = std::min(block_height, h - y);
    index_t const rows = tile > 0 ? tile : ch;
    if (cw < block_width || ch < rows) std::memset(block, 0, std::size_t(block_width * rows * pixel));
    for (index_t r = 0; r < ch; ++r)
      std::memcpy(block + r * block_width * pixel, row_of(y + r) + x * pixel, std::size_t(cw * pixel));
    return rows;
  };
  std::size_t const chunks = std::size_t(across * down);
  auto store = [&](std::size_t i, unsigned char* data, std::size_t size, bool raw) {
    tmsize_t const n = tmsize_t(size);
    bool const ok =
        tile > 0
            ? (raw ? TIFFWriteRawTile(tif, ttile_t(i), data, n) : TIFFWriteEncodedTile(tif, ttile_t(i), data, n)) == n
            : (raw ? TIFFWriteRawStrip(tif, tstrip_t(i), data, n) : TIFFWriteEncodedStrip(tif, tstrip_t(i), data, n)) >=
                  0;
    if (!ok) fail_write(path, std::string("cannot write ") + (tile > 0 ? "tile " : "strip ") + std::to_string(i));
  };
  if (out.scheme == COMPRESSION_NONE) {
    std::vector<unsigned char> block(std::size_t(block_width * block_height * pixel));
    for (std::size_t i = 0; i < chunks; ++i) {
      index_t const rows = gather(i, block.data());
      store(i, block.data(), std::size_t(block_width * rows * pixel), false);
    }
  } else {
    encode_in_order(
        chunks, io_threads(),
        [&](std::size_t i, std::vector<unsigned char>& bytes) {
          thread_local std::vector<unsigned char> block;
          block.resize(std::size_t(block_width * block_height * pixel));
          index_t const rows = gather(i, block.data());
          encode_block(out, block.data(), block_width, rows, bytes, path);
        },
        [&](std::size_t i, std::vector<unsigned char>& bytes) { store(i, bytes.data(), bytes.size(), true); });
  }
  finish(out, path);
}

}  // namespace detail

struct TiffTileEncoder::State {
  detail::TiffOutput layout;  // the codec and the pixel size; no file
};

TiffTileEncoder::TiffTileEncoder(std::string const& path, index_t width, index_t height, PixelType type,
                                 index_t tile_width, index_t tile_height, WriteOptions const& options)
    : path_(path), width_(width), height_(height), type_(type), tile_width_(tile_width), tile_height_(tile_height) {
  GIGASEG_REQUIRE(tile_width >= 16 && tile_width % 16 == 0 && tile_height >= 16 && tile_height % 16 == 0,
                  ErrorKind::usage, path, "TIFF tile sizes must be multiples of 16");
  state_ = std::make_unique<State>();
  state_->layout = detail::output_layout(path, type, options);
}

TiffTileEncoder::~TiffTileEncoder() = default;
TiffTileEncoder::TiffTileEncoder(TiffTileEncoder&&) noexcept = default;

void TiffTileEncoder::encode(index_t column, index_t row, AnyHostImage const& pixels,
                             std::vector<unsigned char>& bytes) const {
  GIGASEG_REQUIRE(column >= 0 && row >= 0 && column < tiles_across() && row < tiles_down(), ErrorKind::usage, path_,
                  "tile " + std::to_string(column) + "," + std::to_string(row) + " is outside the " +
                      std::to_string(tiles_across()) + " x " + std::to_string(tiles_down()) + " tiles");
  index_t const x = column * tile_width_, y = row * tile_height_;
  index_t const cw = std::min(tile_width_, width_ - x), ch = std::min(tile_height_, height_ - y);
  GIGASEG_REQUIRE(pixel_type(pixels) == type_ && width(pixels) == cw && height(pixels) == ch, ErrorKind::usage, path_,
                  "tile " + std::to_string(column) + "," + std::to_string(row) + " must be " + std::to_string(cw) +
                      "x" + std::to_string(ch) + " " + to_string(type_) + " pixels");
  detail::TiffOutput const& out = state_->layout;
  index_t const pixel = out.pixel;
  // Uncompressed, the padded tile is the bytes; compressed, it is assembled here first.
  thread_local std::vector<unsigned char> scratch;
  std::vector<unsigned char>& block = out.scheme == COMPRESSION_NONE ? bytes : scratch;
  std::size_t const block_bytes = std::size_t(tile_width_ * tile_height_ * pixel);
  if (cw < tile_width_ || ch < tile_height_)
    block.assign(block_bytes, 0);  // edge tiles are padded with zeros
  else
    block.resize(block_bytes);  // every byte copied below
  std::visit(
      [&](auto const& view) {
        for (index_t r = 0; r < ch; ++r)
          std::memcpy(block.data() + r * tile_width_ * pixel, view.row(r), std::size_t(cw * pixel));
      },
      pixels);
  if (out.scheme != COMPRESSION_NONE) detail::encode_block(out, block.data(), tile_width_, tile_height_, bytes, path_);
}

struct TiffTileWriter::State {
  AtomicOutput output;
  WriteOptions options;
  detail::TiffOutput out;
  std::mutex mutex;
  std::vector<bool> written;
  std::size_t count = 0;
  std::size_t next = 0;  // the tile the file takes next
  struct Waiting {       // a tile that came before its turn
    std::vector<unsigned char> bytes;
    std::size_t reserved = 0;  // a reserved tile's size (its bytes are not here)
  };
  std::map<std::size_t, Waiting> waiting;
  State(std::string const& path, WriteOptions const& o) : output(path), options(o) {}
};

TiffTileWriter::TiffTileWriter(std::string const& path, index_t width, index_t height, PixelType type,
                               index_t tile_width, index_t tile_height, WriteOptions const& options)
    : path_(path), encoder_(path, width, height, type, tile_width, tile_height, options) {
  GIGASEG_REQUIRE(format_for_extension(path) == ImageFormat::tiff, ErrorKind::usage, path,
                  "tiles are written to a .tif or .tiff file");
  WriteOptions untiled = options;
  untiled.tiff_tile = 0;
  detail::HandlerScope handlers;
  state_ = std::make_unique<State>(path, options);
  state_->out =
      detail::open_output(state_->output.temp_path(), path, width, height, type, untiled, tile_width, tile_height);
  TIFFSetField(state_->out.tif.get(), TIFFTAG_TILEWIDTH, std::uint32_t(tile_width));
  TIFFSetField(state_->out.tif.get(), TIFFTAG_TILELENGTH, std::uint32_t(tile_height));
  state_->written.assign(std::size_t(tiles_across() * tiles_down()), false);
}

// Without commit(), AtomicOutput removes the temporary. Closing an unfinished file makes libtiff
// try to write its directory: its messages (a full disk) are caught here, not printed.
TiffTileWriter::~TiffTileWriter() {
  detail::HandlerScope handlers;
  state_.reset();
}

void TiffTileWriter::write_tile(index_t column, index_t row, AnyHostImage const& pixels) {
  GIGASEG_REQUIRE(state_ != nullptr, ErrorKind::usage, path_, "write_tile after commit");
  thread_local std::vector<unsigned char> bytes;  // kept: a tile's worth, filled again for the next
  encoder_.encode(column, row, pixels, bytes);
  write_encoded_tile(column, row, bytes.data(), bytes.size());
}

void TiffTileWriter::write_encoded_tile(index_t column, index_t row, unsigned char const* data, std::size_t size) {
  store_tile(column, row, data, size, false);
}

void TiffTileWriter::reserve_tile(index_t column, index_t row, std::size_t size) {
  store_tile(column, row, nullptr, size, true);
}

std::uint64_t TiffTileWriter::tile_offset(index_t column, index_t row) const {
  GIGASEG_REQUIRE(state_ != nullptr, ErrorKind::usage, path_, "tile_offset after commit");
  std::size_t const index = std::size_t(row * tiles_across() + column);
  std::lock_guard<std::mutex> lock(state_->mutex);
  GIGASEG_REQUIRE(column >= 0 && row >= 0 && column < tiles_across() && row < tiles_down() && index < state_->next,
                  ErrorKind::usage, path_,
                  "tile " + std::to_string(column) + "," + std::to_string(row) + " is not in the file yet");
  return TIFFGetStrileOffset(state_->out.tif.get(), std::uint32_t(index));
}

std::string const& TiffTileWriter::temp_path() const noexcept { return state_->output.temp_path(); }

void TiffTileWriter::store_tile(index_t column, index_t row, unsigned char const* data, std::size_t size,
                                bool reserved) {
  GIGASEG_REQUIRE(state_ != nullptr, ErrorKind::usage, path_, "write_tile after commit");
  GIGASEG_REQUIRE(column >= 0 && row >= 0 && column < tiles_across() && row < tiles_down(), ErrorKind::usage, path_,
                  "tile " + std::to_string(column) + "," + std::to_string(row) + " is outside the " +
                      std::to_string(tiles_across()) + " x " + std::to_string(tiles_down()) + " tiles");
  std::size_t const index = std::size_t(row * tiles_across() + column);
  std::lock_guard<std::mutex> lock(state_->mutex);
  GIGASEG_REQUIRE(!state_->written[index], ErrorKind::usage, path_,
                  "tile " + std::to_string(column) + "," + std::to_string(row) + " was written twice");
  state_->written[index] = true;
  ++state_->count;
  if (index != state_->next) {  // it waits for those before it
    State::Waiting& w = state_->waiting[index];
    if (reserved)
      w.reserved = size;
    else
      w.bytes.assign(data, data + size);
    return;
  }
  detail::HandlerScope handlers;
  // libtiff reads the buffer only; its API takes it as void*. A reserved tile's "bytes" are the
  // marker write_proc knows.
  auto store = [&](std::size_t tile, unsigned char const* bytes, std::size_t n) {
    errno = 0;
    void* const buffer = bytes != nullptr ? const_cast<unsigned char*>(bytes) : detail::reserved_tile_bytes;
    if (TIFFWriteRawTile(state_->out.tif.get(), ttile_t(tile), buffer, tmsize_t(n)) != tmsize_t(n))
      detail::fail_write(path_, "cannot write tile " + std::to_string(index_t(tile) % tiles_across()) + "," +
                                    std::to_string(index_t(tile) / tiles_across()));
    if (bytes == nullptr) {  // libtiff handed the marker over whole: the room left is where the tile starts
      int const fd = int(reinterpret_cast<std::intptr_t>(TIFFClientdata(state_->out.tif.get())));
      GIGASEG_REQUIRE(TIFFGetStrileOffset(state_->out.tif.get(), std::uint32_t(tile)) + n ==
                          std::uint64_t(::lseek(fd, 0, SEEK_CUR)),
                      ErrorKind::internal, path_, "libtiff placed a reserved tile where no room was left for it");
    }
    state_->next = tile + 1;
  };
  store(index, reserved ? nullptr : data, size);
  for (auto first = state_->waiting.begin(); first != state_->waiting.end() && first->first == state_->next;
       first = state_->waiting.erase(first)) {
    State::Waiting const& w = first->second;
    if (w.bytes.empty() && w.reserved > 0)
      store(first->first, nullptr, w.reserved);
    else
      store(first->first, w.bytes.data(), w.bytes.size());
  }
}

void TiffTileWriter::commit() {
  GIGASEG_REQUIRE(state_ != nullptr, ErrorKind::usage, path_, "commit twice");
  GIGASEG_REQUIRE(state_->count == state_->written.size(), ErrorKind::usage, path_,
                  std::to_string(state_->written.size() - state_->count) + " of " +
                      std::to_string(state_->written.size()) + " tiles were not written");
  detail::HandlerScope handlers;
  detail::finish(state_->out, path_);
  if (is_ome_tiff_name(path_)) {  // the tiles written are level 0 of the pyramid
    AtomicOutput output(path_);
    detail::write_ome_tiff(state_->output.temp_path(), output.temp_path(), path_, state_->options);
    output.commit();
  } else {
    state_->output.commit();
  }
  state_.reset();
}

}  // namespace gigaseg
