// PNG through libpng's classic API. libpng reports errors by longjmp; each setjmp below guards a
// function whose locals are all trivially destructible, so no C++ destructor is ever jumped over.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/io/read_ahead.hpp"
#include "gigaseg/core/io/ordered_chunks.hpp"

#include <png.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace gigaseg::detail {
namespace {

struct PngErrorBuffer {
  char message[256] = "unknown libpng error";
};

[[noreturn]] void on_png_error(png_structp png, png_const_charp message) {
  auto* buffer = static_cast<PngErrorBuffer*>(png_get_error_ptr(png));
  std::snprintf(buffer->message, sizeof buffer->message, "%s", message);
  png_longjmp(png, 1);
}
void on_png_warning(png_structp, png_const_charp) {}  // warnings (bad CRC in ancillary chunks...) are ignored

using FileHandle = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

struct PngHeader {
  png_uint_32 width = 0, height = 0;
  int channels = 0;   // after transforms: 1 or 3
  int bit_depth = 0;  // after transforms: 8 or 16
  bool interlaced = false;
};

// Reads the header and sets the transforms that turn every PNG into 8/16-bit gray or 8-bit RGB.
bool read_header(png_structp png, png_infop info, std::FILE* file, PngHeader* header) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_init_io(png, file);
  png_set_sig_bytes(png, 8);
  // Every chunk's CRC-32, which covers the compressed pixels, is checked; the zlib stream's own
  // Adler-32 over the inflated bytes is not (about 3.5% of a decode here; browsers' decoders skip it too).
  png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
  png_set_user_limits(png, 0x7fffffff, 0x7fffffff);  // libpng's default caps width at 1e6
  // libpng reads an ancillary chunk whole before checking it: a 115-byte file whose tEXt chunk
  // claims 2 GB made it allocate 2 GB (found by tests/fuzz). gigaseg uses none of these chunks, so
  // libpng skips them unread; the cap covers any other ancillary chunk. Pixel data is not capped.
  static png_byte const unused[] = {'t', 'E', 'X', 't', 0, 'z', 'T', 'X', 't', 0, 'i', 'T', 'X', 't', 0,
                                    'i', 'C', 'C', 'P', 0, 's', 'P', 'L', 'T', 0, 'e', 'X', 'I', 'f', 0};
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, unused, int(sizeof unused / 5));
  png_set_chunk_malloc_max(png, png_alloc_size_t(64) << 20);
  png_read_info(png, info);
  int const color = png_get_color_type(png, info);
  int const depth = png_get_bit_depth(png, info);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  // Alpha is dropped, including the alpha a palette's tRNS chunk turns into when expanded.
  if ((color & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS)) png_set_strip_alpha(png);
  bool const colour = (color & PNG_COLOR_MASK_COLOR) != 0;
  if (colour && depth == 16) png_set_scale_16(png);  // colour images are 8-bit RGB in gigaseg
  if (!colour && depth == 16) png_set_swap(png);     // PNG is big-endian; the host is not
  if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) png_set_interlace_handling(png);
  png_read_update_info(png, info);
  header->width = png_get_image_width(png, info);
  header->height = png_get_image_height(png, info);
  header->channels = png_get_channels(png, info);
  header->bit_depth = png_get_bit_depth(png, info);
  header->interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
  return true;
}

bool read_rows(png_structp png, png_infop info, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_image(png, rows);
  png_read_end(png, info);
  return true;
}

// The next `count` rows of a non-interlaced image, and the end of the file after the last.
bool read_next_rows(png_structp png, png_infop info, png_bytepp rows, png_uint_32 count, bool last) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_rows(png, rows, nullptr, count);
  if (last) png_read_end(png, info);
  return true;
}

template <class T>
AnyHostImage decode(png_structp png, png_infop info, PngHeader const& header, std::string const& path,
                    PngErrorBuffer const& error, Bands const* bands, index_t band_rows) {
  check_read_size(path, header.width, header.height);
  index_t const height = index_t(header.height);
  if (bands != nullptr && !header.interlaced) {
    index_t const rows_per_band = std::min(band_rows, height);
    HostImage<T> band(path, header.width, rows_per_band);
    std::vector<png_bytep> rows(static_cast<std::size_t>(rows_per_band));
    for (index_t y = 0; y < rows_per_band; ++y) rows[std::size_t(y)] = reinterpret_cast<png_bytep>(band.row(y));
    for (index_t first = 0; first < height; first += rows_per_band) {
      index_t const count = std::min(rows_per_band, height - first);
      if (!read_next_rows(png, info, rows.data(), png_uint_32(count), first + count == height))
        GIGASEG_THROW(ErrorKind::input, path, std::string("corrupt or truncated PNG: ") + error.message);
      (*bands)(AnyHostImage(band.roi(0, 0, band.width(), count)), first);
    }
    return AnyHostImage();
  }
  HostImage<T> image = new_host_image<T>(path, header.width, header.height);
  std::vector<png_bytep> rows(header.height);
  for (png_uint_32 y = 0; y < header.height; ++y) rows[y] = reinterpret_cast<png_bytep>(image.row(y));
  if (!read_rows(png, info, rows.data()))
    GIGASEG_THROW(ErrorKind::input, path, std::string("corrupt or truncated PNG: ") + error.message);
  if (bands == nullptr) return image;
  for (index_t first = 0; first < height; first += band_rows)  // interlaced: decoded whole
    (*bands)(AnyHostImage(image.roi(0, first, image.width(), std::min(band_rows, height - first))), first);
  return AnyHostImage();
}

struct ReadStructs {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~ReadStructs() { png_destroy_read_struct(&png, info ? &info : nullptr, nullptr); }
};
struct WriteStructs {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~WriteStructs() { png_destroy_write_struct(&png, info ? &info : nullptr); }
};

// `row16` holds a row of 16-bit samples: rows are byte-swapped into it (PNG is big-endian) in one
// pass, which libpng's own png_set_swap does more slowly through its row copy. It is the caller's:
// a longjmp out of here must not skip a destructor.
bool write_all(png_structp png, png_infop info, std::FILE* file, png_uint_32 width, png_uint_32 height, int depth,
               int color, png_bytepp rows, std::uint16_t* row16) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_init_io(png, file);
  png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
  png_set_IHDR(png, info, width, height, depth, color, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  // zlib level 1 with run-length matching over the "sub" row filter, the settings OpenCV's imwrite
  // uses: for camera images, masks and label images it writes two to three times faster than level
  // 3 with adaptive filters and the files come out smaller (docs/performance.md, "The command line
  // from file to file").
  png_set_compression_level(png, 1);
  png_set_compression_strategy(png, 3 /* Z_RLE */);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
  png_write_info(png, info);
  if (depth == 16 && row16 != nullptr) {
    for (png_uint_32 y = 0; y < height; ++y) {
      auto const* in = reinterpret_cast<std::uint16_t const*>(rows[y]);
      for (png_uint_32 x = 0; x < width; ++x) row16[x] = std::uint16_t(in[x] << 8 | in[x] >> 8);
      png_write_row(png, reinterpret_cast<png_const_bytep>(row16));
    }
  } else {
    png_write_image(png, rows);
  }
  png_write_end(png, info);
  return true;
}

// The parallel writer: rows are filtered ("sub") and deflated in independent pieces on
// io_threads(), each piece a raw deflate stream ended by a sync flush (the last by the final
// block), so that their concatenation behind one zlib header is one valid zlib stream; its
// Adler-32 is combined from the pieces'. libpng writes the signature, the header chunk, the pieces
// as IDAT chunks and IEND. Its output goes through `Sink`, which records a failed write instead of
// raising a libpng error, so no longjmp can cross the encoding threads.
struct Sink {
  std::FILE* file = nullptr;
  bool failed = false;
  int error_number = 0;
  std::uint64_t bytes = 0;  // written so far, from the file's start
};
void sink_write(png_structp png, png_bytep data, size_t length) {
  auto* sink = static_cast<Sink*>(png_get_io_ptr(png));
  if (sink->failed) return;
  if (std::fwrite(data, 1, length, sink->file) != length) {
    sink->failed = true;
    sink->error_number = errno;
    return;
  }
  sink->bytes += length;
  if (writeback_range(sink->bytes, length).length > 0) start_writeback(sink->file, length);
}
void sink_flush(png_structp) {}

bool write_header(png_structp png, png_infop info, Sink* sink, png_uint_32 width, png_uint_32 height, int depth,
                  int color) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_write_fn(png, sink, sink_write, sink_flush);
  png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
  png_set_IHDR(png, info, width, height, depth, color, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  return true;
}

bool write_chunk(png_structp png, char const* name, unsigned char const* data, std::size_t length) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_write_chunk(png, reinterpret_cast<png_const_bytep>(name), data, length);
  return true;
}

// Rows [first, last) as PNG filter-type-1 ("sub") rows: each row a filter byte 1, then every
// byte minus the byte one pixel to its left. 16-bit samples are big-endian in the file.
void filter_rows(png_bytepp rows, png_uint_32 first, png_uint_32 last, std::size_t row_bytes, int bytes_per_pixel,
                 bool sixteen, unsigned char* out) {
  for (png_uint_32 y = first; y < last; ++y, out += row_bytes + 1) {
    out[0] = PNG_FILTER_VALUE_SUB;
    unsigned char* o = out + 1;
    if (sixteen) {
      auto const* in = reinterpret_cast<std::uint16_t const*>(rows[y]);
      unsigned previous_hi = 0, previous_lo = 0;
      for (std::size_t x = 0; x < row_bytes / 2; ++x) {
        unsigned const hi = in[x] >> 8, lo = in[x] & 0xffu;
        o[2 * x] = static_cast<unsigned char>(hi - previous_hi);
        o[2 * x + 1] = static_cast<unsigned char>(lo - previous_lo);
        previous_hi = hi;
        previous_lo = lo;
      }
    } else {
      unsigned char const* in = rows[y];
      std::size_t const step = std::size_t(bytes_per_pixel);
      std::copy(in, in + step, o);
      for (std::size_t k = step; k < row_bytes; ++k) o[k] = static_cast<unsigned char>(in[k] - in[k - step]);
    }
  }
}

struct Piece {
  uLong adler = 1;
  std::size_t length = 0;  // filtered bytes
};

// Deflates `length` filtered bytes as a raw stream (level 1, run-length matching), appended to
// `out`; a sync flush ends every piece but the last, which ends with the final block.
void deflate_piece(unsigned char const* data, std::size_t length, bool last, std::vector<unsigned char>& out,
                   std::string const& path) {
  z_stream stream{};
  if (deflateInit2(&stream, 1, Z_DEFLATED, -15, 8, Z_RLE) != Z_OK)
    GIGASEG_THROW(ErrorKind::resource, path, "zlib: out of memory");
  std::size_t const start = out.size();
  out.resize(start + deflateBound(&stream, uLong(length)) + 64);
  stream.next_in = const_cast<unsigned char*>(data);
  stream.avail_in = uInt(length);
  stream.next_out = out.data() + start;
  stream.avail_out = uInt(out.size() - start);
  int const status = deflate(&stream, last ? Z_FINISH : Z_SYNC_FLUSH);
  bool const complete = last ? status == Z_STREAM_END : (status == Z_OK && stream.avail_in == 0);
  out.resize(out.size() - stream.avail_out);
  deflateEnd(&stream);
  if (!complete) GIGASEG_THROW(ErrorKind::internal, path, "zlib could not compress a piece of the image");
}

void write_pieces(png_structp png, png_bytepp rows, png_uint_32 height, std::size_t row_bytes, int bytes_per_pixel,
                  bool sixteen, int threads, std::string const& path) {
  // Pieces of about 4 MiB of rows: enough of them to keep every thread busy, each long enough that
  // restarting the match window costs nothing measurable in size.
  std::size_t const piece_rows = std::max<std::size_t>(1, (std::size_t(4) << 20) / (row_bytes + 1));
  std::size_t const count = (height + piece_rows - 1) / piece_rows;
  std::vector<Piece> pieces(count);
  uLong adler = 1;
  encode_in_order(
      count, threads,
      [&](std::size_t i, std::vector<unsigned char>& bytes) {
        png_uint_32 const first = png_uint_32(i * piece_rows);
        png_uint_32 const last = png_uint_32(std::min<std::size_t>(height, first + piece_rows));
        thread_local std::vector<unsigned char> filtered;
        filtered.resize((last - first) * (row_bytes + 1));
        filter_rows(rows, first, last, row_bytes, bytes_per_pixel, sixteen, filtered.data());
        pieces[i].length = filtered.size();
        pieces[i].adler = adler32_z(1, filtered.data(), filtered.size());
        if (i == 0) bytes = {0x78, 0x01};  // zlib header: deflate, 32 KiB window, fastest level
        deflate_piece(filtered.data(), filtered.size(), i + 1 == count, bytes, path);
      },
      [&](std::size_t i, std::vector<unsigned char>& bytes) {
        adler = i == 0 ? pieces[0].adler : adler32_combine64(adler, pieces[i].adler, z_off64_t(pieces[i].length));
        if (i + 1 == count)
          for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<unsigned char>(adler >> shift));
        if (!write_chunk(png, "IDAT", bytes.data(), bytes.size()))
          GIGASEG_THROW(ErrorKind::internal, path, "libpng refused an image data chunk");
      });
  if (!write_chunk(png, "IEND", nullptr, 0)) GIGASEG_THROW(ErrorKind::internal, path, "libpng refused the end chunk");
}

}  // namespace

namespace {

// An open PNG with its header read (the transforms set).
struct OpenPng {
  // libpng asks for each chunk's header, data and checksum in turn (8 KiB of data a chunk in most
  // files), two or three read calls a chunk through stdio's default 4 KiB buffer; through 1 MiB, one
  // a MiB. Declared before the file: it outlives the closing.
  std::vector<char> buffer;
  FileHandle file{nullptr, &std::fclose};
  PngErrorBuffer error;
  ReadStructs structs;
  PngHeader header;
};

void open_png(std::string const& path, std::string const& source, OpenPng& png) {
  png.file.reset(std::fopen((source.empty() ? path : source).c_str(), "rb"));
  GIGASEG_REQUIRE(png.file != nullptr, ErrorKind::input, path, std::strerror(errno));
  png.buffer.resize(std::size_t(1) << 20);
  std::setvbuf(png.file.get(), png.buffer.data(), _IOFBF, png.buffer.size());
  unsigned char signature[8];
  GIGASEG_REQUIRE(std::fread(signature, 1, 8, png.file.get()) == 8 && png_sig_cmp(signature, 0, 8) == 0,
                  ErrorKind::input, path, "not a PNG file");
  png.structs.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &png.error, on_png_error, on_png_warning);
  GIGASEG_REQUIRE(png.structs.png != nullptr, ErrorKind::resource, path, "libpng: out of memory");
  png.structs.info = png_create_info_struct(png.structs.png);
  GIGASEG_REQUIRE(png.structs.info != nullptr, ErrorKind::resource, path, "libpng: out of memory");
  if (!read_header(png.structs.png, png.structs.info, png.file.get(), &png.header))
    GIGASEG_THROW(ErrorKind::input, path, std::string("corrupt PNG header: ") + png.error.message);
}

}  // namespace

ImageShape png_shape(std::string const& path, std::string const& source) {
  OpenPng png;
  open_png(path, source, png);
  index_t const w = index_t(png.header.width), h = index_t(png.header.height);
  return ImageShape{w, h, w, h};
}

AnyHostImage read_png(std::string const& path, std::string const& source, Bands const* bands, index_t band_rows) {
  OpenPng png;
  open_png(path, source, png);
  PngHeader const& header = png.header;
  png_structp const structs = png.structs.png;
  png_infop const info = png.structs.info;
  PngErrorBuffer const& error = png.error;
  if (header.channels == 1 && header.bit_depth == 8)
    return decode<std::uint8_t>(structs, info, header, path, error, bands, band_rows);
  if (header.channels == 1 && header.bit_depth == 16)
    return decode<std::uint16_t>(structs, info, header, path, error, bands, band_rows);
  if (header.channels == 3 && header.bit_depth == 8)
    return decode<Rgb8>(structs, info, header, path, error, bands, band_rows);
  GIGASEG_THROW(ErrorKind::input, path,
                "unsupported PNG layout (" + std::to_string(header.channels) + " channels, " +
                    std::to_string(header.bit_depth) + " bits)");
}

void write_png(std::string const& temp_path, std::string const& path, AnyHostImage const& image) {
  int depth = 8, color = PNG_COLOR_TYPE_GRAY;
  switch (pixel_type(image)) {
    case PixelType::u8: break;
    case PixelType::u16: depth = 16; break;
    case PixelType::rgb8: color = PNG_COLOR_TYPE_RGB; break;
    default:
      GIGASEG_THROW(ErrorKind::usage, path,
                    std::string("PNG cannot hold ") + to_string(pixel_type(image)) + " pixels (write a .tif instead)");
  }
  index_t const w = width(image), h = height(image);
  GIGASEG_REQUIRE(w > 0 && h > 0 && w <= 0x7fffffff && h <= 0x7fffffff, ErrorKind::usage, path,
                  "PNG dimensions must be between 1 and 2^31-1");
  std::vector<png_bytep> rows(static_cast<std::size_t>(h));
  std::visit(
      [&](auto const& view) {
        for (index_t y = 0; y < h; ++y) rows[y] = reinterpret_cast<png_bytep>(view.row(y));
      },
      image);
  // libpng hands zlib's output over in pieces of 8 KiB: a stdio buffer of 1 MiB saves most write
  // calls. Declared before the file, so that it outlives the file's closing on every path.
  std::vector<char> buffer(std::size_t(1) << 20);
  FileHandle file(std::fopen(temp_path.c_str(), "wb"), &std::fclose);
  GIGASEG_REQUIRE(file != nullptr, ErrorKind::input, path, std::string("cannot create: ") + std::strerror(errno));
  PngErrorBuffer error;
  WriteStructs structs;
  structs.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, on_png_error, on_png_warning);
  GIGASEG_REQUIRE(structs.png != nullptr, ErrorKind::resource, path, "libpng: out of memory");
  structs.info = png_create_info_struct(structs.png);
  GIGASEG_REQUIRE(structs.info != nullptr, ErrorKind::resource, path, "libpng: out of memory");
  std::setvbuf(file.get(), buffer.data(), _IOFBF, buffer.size());
  // Samples are little-endian in memory on every platform gigaseg builds for (x86-64, aarch64).
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "16-bit PNG rows are swapped from little-endian");
  std::size_t const row_bytes = std::size_t(w) * std::size_t(bytes_per_pixel(pixel_type(image)));
  int const threads = io_threads();
  if (threads > 1 && row_bytes * std::size_t(h) >= (std::size_t(8) << 20)) {
    Sink sink{file.get()};
    if (!write_header(structs.png, structs.info, &sink, png_uint_32(w), png_uint_32(h), depth, color))
      GIGASEG_THROW(ErrorKind::internal, path, std::string("cannot write PNG header (") + error.message + ")");
    write_pieces(structs.png, rows.data(), png_uint_32(h), row_bytes, color == PNG_COLOR_TYPE_RGB ? 3 : depth / 8,
                 depth == 16, threads, path);
    if (sink.failed) throw_write_failure(path, "write failed", sink.error_number);
    errno = 0;
    if (std::fclose(file.release()) != 0) throw_write_failure(path, "write failed", errno);
    return;
  }
  std::vector<std::uint16_t> row16(depth == 16 ? std::size_t(w) : 0);
  errno = 0;
  if (!write_all(structs.png, structs.info, file.get(), png_uint_32(w), png_uint_32(h), depth, color, rows.data(),
                 depth == 16 ? row16.data() : nullptr))
    throw_write_failure(path, std::string("cannot write PNG (") + error.message + ")", errno);
  errno = 0;
  if (std::fclose(file.release()) != 0) throw_write_failure(path, "write failed", errno);
}

}  // namespace gigaseg::detail
