// OME-Zarr outputs and Zarr inputs (image_file.hpp: is_ome_zarr_name, write_image, read_image,
// read_image_region, image_shape).
//
// An output named *.ome.zarr is an OME-NGFF 0.4 image: a Zarr v2 group (a folder) whose .zattrs
// holds `multiscales` (axes y, x, or c, y, x for colour; one dataset a level, its scale 2^k) and
// whose levels are Zarr v2 arrays "0", "1", ..., each half the size of the one before (rounded up)
// until the largest side is at most 512, reduced as the OME-TIFF pyramid is (core/io/pyramid.hpp).
// Level 0's chunks are the tiles it was written in (ZarrTileWriter: 512 x 512 from memory, the
// engine's tiles tile by tile), the reduced levels' 512 x 512. A 32-bit label image also carries
// NGFF's `image-label` metadata in the same .zattrs. Chunks are files "LEVEL/ROW/COLUMN"
// ("LEVEL/0/ROW/COLUMN" for colour, whose channel axis is one chunk; dimension_separator "/"),
// each the full chunk size (edge chunks padded with zeros, Zarr's fill_value), little-endian,
// compressed with Blosc (Zstd level 1, byte shuffle) unless WriteOptions say none. The whole
// folder is written under a temporary name beside the output and renamed into place when every
// file is flushed (an output already there is replaced only then).
//
// Inputs: a Zarr v2 array (a folder with .zarray) or an OME-Zarr image (a group whose .zattrs
// names multiscales: its first dataset, the full resolution), 2-D of u8, u16, u32 or f32, either
// byte order, or colour as 3 x H x W (NGFF's c, y, x) or H x W x 3 of u8; compressors none,
// Blosc (any of its codecs), zlib or Zstd; C order, no filters. A region is read from the chunks it
// overlaps, so the tile engine reads a Zarr input by region as it reads a tiled TIFF.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/io/ordered_chunks.hpp"
#include "gigaseg/core/io/pyramid.hpp"
#include "gigaseg/core/io/tile_writer.hpp"
#include "gigaseg/gigaseg_config.hpp"

#include <Kokkos_Core.hpp>
#include <blosc.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace gigaseg {

namespace fs = std::filesystem;

bool is_ome_zarr_name(std::string const& path) {
  std::string lower = path;
  while (lower.size() > 1 && lower.back() == '/') lower.pop_back();
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return lower.size() > 9 && lower.compare(lower.size() - 9, 9, ".ome.zarr") == 0;
}

namespace detail {
namespace {

constexpr index_t chunk_side = reduced_tile;

[[noreturn]] void fail_input(std::string const& path, std::string const& what) {
  GIGASEG_THROW(ErrorKind::input, path, what);
}

std::string read_text(std::string const& path, std::string const& input) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_input(input, "cannot read " + fs::path(path).filename().string() + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json read_json(std::string const& path, std::string const& input) {
  try {
    return nlohmann::json::parse(read_text(path, input));
  } catch (nlohmann::json::exception const& e) {
    fail_input(input, fs::path(path).filename().string() + " is not valid JSON: " + e.what());
  }
}

// Writes `size` bytes to a new file at `path` and flushes it to disk; `output` names the output.
void write_file(std::string const& path, void const* data, std::size_t size, std::string const& output) {
  int const fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_write_failure(output, "cannot create " + path, errno);
  auto const* bytes = static_cast<unsigned char const*>(data);
  std::size_t done = 0;
  while (done < size) {
    ssize_t const n = ::write(fd, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int const e = n < 0 ? errno : ENOSPC;
      ::close(fd);
      throw_write_failure(output, "cannot write", e);
    }
    done += std::size_t(n);
  }
  int const synced = ::fsync(fd);
  int const e = errno;
  if (::close(fd) != 0 || synced != 0) throw_write_failure(output, "cannot write", synced != 0 ? e : errno);
}

void make_folder(std::string const& path, std::string const& output) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) throw_write_failure(output, "cannot create " + path, errno);
}

char const* zarr_dtype(PixelType type) {
  switch (type) {
    case PixelType::u8:
    case PixelType::rgb8: return "|u1";
    case PixelType::u16: return "<u2";
    case PixelType::u32: return "<u4";
    case PixelType::f32: return "<f4";
  }
  return "|u1";
}

// An array's .zarray: width x height samples of `type` (colour: 3 planes of them) in chunks of
// chunk_width x chunk_height, compressed with Blosc-Zstd or not at all.
void write_array_header(std::string const& folder, std::string const& output, index_t width, index_t height,
                        index_t chunk_width, index_t chunk_height, PixelType type, bool compress) {
  bool const colour = type == PixelType::rgb8;
  make_folder(folder, output);
  nlohmann::json array = {{"zarr_format", 2}, {"dtype", zarr_dtype(type)}, {"fill_value", 0},
                          {"order", "C"},     {"filters", nullptr},        {"dimension_separator", "/"}};
  array["shape"] = colour ? nlohmann::json{3, height, width} : nlohmann::json{height, width};
  array["chunks"] = colour ? nlohmann::json{3, chunk_height, chunk_width} : nlohmann::json{chunk_height, chunk_width};
  array["compressor"] =
      compress ? nlohmann::json{{"id", "blosc"}, {"cname", "zstd"}, {"clevel", 1}, {"shuffle", 1}, {"blocksize", 0}}
               : nlohmann::json(nullptr);
  std::string const text = array.dump(1);
  write_file(folder + "/.zarray", text.data(), text.size(), output);
  std::string const rows = colour ? folder + "/0" : folder;  // colour: the one chunk along c
  if (colour) make_folder(rows, output);
  for (index_t r = 0; r < (height + chunk_height - 1) / chunk_height; ++r)
    make_folder(rows + "/" + std::to_string(r), output);
}

// Where chunk (column, row) of the array `folder` lies.
std::string chunk_file(std::string const& folder, PixelType type, index_t column, index_t row) {
  return folder + (type == PixelType::rgb8 ? "/0/" : "/") + std::to_string(row) + "/" + std::to_string(column);
}

// `tile`'s pixels (at most chunk_width x chunk_height) as a chunk stores them, zero beyond them
// (colour: three planes).
template <class T>
void fill_chunk(HostImage<T> const& tile, index_t chunk_width, index_t chunk_height,
                std::vector<unsigned char>& chunk) {
  constexpr bool colour = std::is_same_v<T, Rgb8>;
  std::size_t const sample = colour ? 1 : sizeof(T);
  std::size_t const plane = std::size_t(chunk_width * chunk_height);
  chunk.assign(plane * sample * (colour ? 3 : 1), 0);
  for (index_t y = 0; y < tile.height(); ++y) {
    T const* in = tile.row(y);
    if constexpr (colour) {
      for (index_t x = 0; x < tile.width(); ++x) {
        std::size_t const at = std::size_t(y * chunk_width + x);
        chunk[at] = in[x].r;
        chunk[plane + at] = in[x].g;
        chunk[2 * plane + at] = in[x].b;
      }
    } else {
      std::memcpy(chunk.data() + std::size_t(y * chunk_width) * sample, in, std::size_t(tile.width()) * sample);
    }
  }
}

// Encodes `tile` as chunk (column, row) of the array `folder` and stores it, flushed.
void write_chunk(std::string const& folder, std::string const& output, index_t column, index_t row,
                 AnyHostImage const& tile, index_t chunk_width, index_t chunk_height, bool compress) {
  thread_local std::vector<unsigned char> chunk, bytes;
  std::visit([&](auto const& pixels) { fill_chunk(pixels, chunk_width, chunk_height, chunk); }, tile);
  PixelType const type = pixel_type(tile);
  unsigned char const* data = chunk.data();
  std::size_t size = chunk.size();
  if (compress) {
    bytes.resize(chunk.size() + BLOSC_MAX_OVERHEAD);
    int const n = blosc_compress_ctx(1, BLOSC_SHUFFLE, type == PixelType::rgb8 ? 1 : std::size_t(bytes_per_pixel(type)),
                                     chunk.size(), chunk.data(), bytes.data(), bytes.size(), "zstd", 0, 1);
    GIGASEG_REQUIRE(n > 0, ErrorKind::internal, output, "Blosc could not compress a chunk");
    data = bytes.data();
    size = std::size_t(n);
  }
  write_file(chunk_file(folder, type, column, row), data, size, output);
}

// The level after `from`: half its size (rounded up), each pixel its 2 x 2 block reduced.
template <class T>
HostImage<T> reduced(HostImage<T> const& from) {
  HostImage<T> next("gigaseg::zarr::level", (from.width() + 1) / 2, (from.height() + 1) / 2);
  Kokkos::parallel_for("gigaseg::zarr::reduce",
                       Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, next.height()), [&](index_t y) {
                         for (index_t x = 0; x < next.width(); ++x) {
                           T v[4] = {};
                           int n = 0;
                           for (index_t dy = 0; dy < 2 && 2 * y + dy < from.height(); ++dy)
                             for (index_t dx = 0; dx < 2 && 2 * x + dx < from.width(); ++dx)
                               v[n++] = from(2 * y + dy, 2 * x + dx);
                           next(y, x) = reduce_block(v, n);
                         }
                       });
  Kokkos::DefaultHostExecutionSpace().fence();
  return next;
}

// Level k + 1 from level k (the array `from`, width x height), a band of 2 x 512 rows of it at a
// time: each band read by region, reduced and its chunks stored on io_threads(). Returns its size.
std::pair<index_t, index_t> write_reduced_level(std::string const& from, std::string const& to,
                                                std::string const& output, index_t width, index_t height,
                                                PixelType type, bool compress) {
  index_t const w = (width + 1) / 2, h = (height + 1) / 2;
  write_array_header(to, output, w, h, chunk_side, chunk_side, type, compress);
  index_t const across = (w + chunk_side - 1) / chunk_side;
  for (index_t row = 0; row * chunk_side < h; ++row) {
    index_t const y = 2 * row * chunk_side;
    Region const region{0, y, width, std::min(2 * chunk_side, height - y)};
    AnyHostImage const band = read_zarr(from, &region);
    AnyHostImage const half = std::visit([](auto const& pixels) { return AnyHostImage(reduced(pixels)); }, band);
    encode_in_order(
        std::size_t(across), io_threads(),
        [&](std::size_t c, std::vector<unsigned char>&) {
          std::visit(
              [&](auto const& pixels) {
                index_t const x = index_t(c) * chunk_side;
                write_chunk(to, output, index_t(c), row,
                            AnyHostImage(pixels.roi(x, 0, std::min(chunk_side, pixels.width() - x), pixels.height())),
                            chunk_side, chunk_side, compress);
              },
              half);
        },
        [](std::size_t, std::vector<unsigned char>&) {});
  }
  return {w, h};
}

// The group's .zattrs (NGFF 0.4 multiscales of `levels` datasets, image-label on labels) and .zgroup.
void write_attributes(std::string const& root, std::string const& path, int levels, PixelType type,
                      WriteOptions const& options) {
  bool const colour = type == PixelType::rgb8;
  double const sx = options.microns_per_pixel_x > 0 ? options.microns_per_pixel_x : 1;
  double const sy = options.microns_per_pixel_y > 0 ? options.microns_per_pixel_y : 1;
  nlohmann::json datasets = nlohmann::json::array();
  for (int k = 0; k < levels; ++k) {
    double const f = double(index_t(1) << k);
    nlohmann::json scale = colour ? nlohmann::json{1.0, sy * f, sx * f} : nlohmann::json{sy * f, sx * f};
    datasets.push_back({{"path", std::to_string(k)},
                        {"coordinateTransformations", nlohmann::json::array({{{"type", "scale"}, {"scale", scale}}})}});
  }
  bool const microns = options.microns_per_pixel_x > 0 && options.microns_per_pixel_y > 0;
  auto axis = [&](char const* name) {
    nlohmann::json a = {{"name", name}, {"type", "space"}};
    if (microns) a["unit"] = "micrometer";
    return a;
  };
  nlohmann::json axes = nlohmann::json::array();
  if (colour) axes.push_back({{"name", "c"}, {"type", "channel"}});
  axes.push_back(axis("y"));
  axes.push_back(axis("x"));
  std::string name = fs::path(path).filename().string();
  name = name.substr(0, name.size() - std::min<std::size_t>(name.size(), 9));
  bool const labels = type == PixelType::u32;
  nlohmann::json image = {
      {"version", "0.4"},
      {"name", name},
      {"axes", axes},
      {"datasets", datasets},
      {"type", labels ? "mode" : "mean"},
      {"metadata",
       {{"software", "gigaseg " GIGASEG_VERSION_STRING},
        {"reduction", labels ? "the most common of each 2 x 2 block" : "the mean of each 2 x 2 block"}}}};
  nlohmann::json attributes = {{"multiscales", nlohmann::json::array({image})}};
  if (labels) attributes["image-label"] = {{"version", "0.4"}};
  std::string const text = attributes.dump(1);
  write_file(root + "/.zattrs", text.data(), text.size(), path);
  std::string const group = "{\n \"zarr_format\": 2\n}\n";
  write_file(root + "/.zgroup", group.data(), group.size(), path);
}

// The array a Zarr input names: `path` itself (.zarray) or an OME-Zarr image's first dataset.
std::string array_folder(std::string const& path) {
  struct stat st {};
  if (::stat((path + "/.zarray").c_str(), &st) == 0) return path;
  if (::stat((path + "/.zattrs").c_str(), &st) != 0)
    fail_input(path, "is a folder, but neither a Zarr array nor an OME-Zarr image");
  nlohmann::json const attributes = read_json(path + "/.zattrs", path);
  try {
    std::string const dataset = attributes.at("multiscales").at(0).at("datasets").at(0).at("path").get<std::string>();
    GIGASEG_REQUIRE(dataset.find("..") == std::string::npos, ErrorKind::input, path,
                    "an OME-Zarr dataset path outside the image: " + dataset);
    return path + "/" + dataset;
  } catch (nlohmann::json::exception const&) {
    fail_input(path, ".zattrs names no multiscales dataset (an OME-Zarr plate or a bare group is not an image)");
  }
}

// What a Zarr array's .zarray says, checked against what gigaseg reads.
struct ArrayInfo {
  std::string folder, separator = ".";
  PixelType type = PixelType::u8;
  bool big_endian = false;
  int channel_axis = -1;  // 0: 3 x H x W; 2: H x W x 3; -1: gray
  index_t width = 0, height = 0, chunk_width = 0, chunk_height = 0;
  std::size_t item = 1;    // bytes a sample
  std::string compressor;  // "", "blosc", "zlib", "zstd"
  double fill = 0;
};

ArrayInfo array_info(std::string const& path) {
  ArrayInfo info;
  info.folder = array_folder(path);
  nlohmann::json const a = read_json(info.folder + "/.zarray", path);
  try {
    GIGASEG_REQUIRE(a.at("zarr_format").get<int>() == 2, ErrorKind::input, path, "only Zarr version 2 arrays are read");
    std::string const dtype = a.at("dtype").get<std::string>();
    GIGASEG_REQUIRE(dtype.size() == 3, ErrorKind::input, path, "unsupported Zarr dtype " + dtype);
    info.big_endian = dtype[0] == '>';
    std::string const kind = dtype.substr(1);
    if (kind == "u1")
      info.type = PixelType::u8, info.item = 1;
    else if (kind == "u2")
      info.type = PixelType::u16, info.item = 2;
    else if (kind == "u4")
      info.type = PixelType::u32, info.item = 4;
    else if (kind == "f4")
      info.type = PixelType::f32, info.item = 4;
    else
      fail_input(path, "unsupported Zarr dtype " + dtype + " (u1, u2, u4 and f4 are read)");
    std::vector<index_t> const shape = a.at("shape").get<std::vector<index_t>>();
    std::vector<index_t> const chunks = a.at("chunks").get<std::vector<index_t>>();
    GIGASEG_REQUIRE(shape.size() == chunks.size() && (shape.size() == 2 || shape.size() == 3), ErrorKind::input, path,
                    "a Zarr array of " + std::to_string(shape.size()) + " dimensions (2, or 3 for colour, are read)");
    int y_axis = 0;
    if (shape.size() == 3) {
      GIGASEG_REQUIRE(info.type == PixelType::u8 && (shape[0] == 3 || shape[2] == 3), ErrorKind::input, path,
                      "a 3-dimensional Zarr array is read only as 8-bit colour, 3 x H x W or H x W x 3");
      info.channel_axis = shape[0] == 3 ? 0 : 2;
      GIGASEG_REQUIRE(chunks[std::size_t(info.channel_axis)] == 3, ErrorKind::input, path,
                      "colour channels split over chunks are not read");
      y_axis = info.channel_axis == 0 ? 1 : 0;
      info.type = PixelType::rgb8;
    }
    info.height = shape[std::size_t(y_axis)];
    info.width = shape[std::size_t(y_axis + 1)];
    info.chunk_height = chunks[std::size_t(y_axis)];
    info.chunk_width = chunks[std::size_t(y_axis + 1)];
    GIGASEG_REQUIRE(info.width > 0 && info.height > 0 && info.chunk_width > 0 && info.chunk_height > 0,
                    ErrorKind::input, path, "an empty Zarr array or chunk");
    GIGASEG_REQUIRE(a.value("order", "C") == "C", ErrorKind::input, path, "Fortran-order Zarr arrays are not read");
    GIGASEG_REQUIRE(!a.contains("filters") || a["filters"].is_null() || a["filters"].empty(), ErrorKind::input, path,
                    "Zarr filters are not read");
    if (a.contains("dimension_separator") && a["dimension_separator"].is_string())
      info.separator = a["dimension_separator"].get<std::string>();
    if (a.contains("fill_value") && a["fill_value"].is_number()) info.fill = a["fill_value"].get<double>();
    nlohmann::json const& compressor = a.at("compressor");
    if (!compressor.is_null()) {
      info.compressor = compressor.at("id").get<std::string>();
      GIGASEG_REQUIRE(info.compressor == "blosc" || info.compressor == "zlib" || info.compressor == "zstd",
                      ErrorKind::input, path,
                      "unsupported Zarr compressor " + info.compressor + " (none, blosc, zlib and zstd are read)");
    }
  } catch (nlohmann::json::exception const& e) {
    fail_input(path, std::string(".zarray lacks what gigaseg reads: ") + e.what());
  }
  return info;
}

// Chunk (column, row)'s samples, decompressed (the fill value where the chunk has no file).
void read_chunk(ArrayInfo const& info, std::string const& path, index_t column, index_t row,
                std::vector<unsigned char>& out) {
  std::size_t const samples = std::size_t(info.chunk_width * info.chunk_height) * (info.channel_axis >= 0 ? 3 : 1);
  out.resize(samples * info.item);
  std::string const s = info.separator;
  std::string const key = info.channel_axis == 0   ? "0" + s + std::to_string(row) + s + std::to_string(column)
                          : info.channel_axis == 2 ? std::to_string(row) + s + std::to_string(column) + s + "0"
                                                   : std::to_string(row) + s + std::to_string(column);
  std::ifstream in(info.folder + "/" + key, std::ios::binary);
  if (!in) {
    for (std::size_t i = 0; i < samples; ++i) {
      switch (info.type) {
        case PixelType::u16: reinterpret_cast<std::uint16_t*>(out.data())[i] = std::uint16_t(info.fill); break;
        case PixelType::u32: reinterpret_cast<std::uint32_t*>(out.data())[i] = std::uint32_t(info.fill); break;
        case PixelType::f32: reinterpret_cast<float*>(out.data())[i] = float(info.fill); break;
        default: out[i] = std::uint8_t(info.fill);
      }
    }
    return;
  }
  std::vector<unsigned char> const stored((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string const where = "chunk " + key;
  if (info.compressor.empty()) {
    GIGASEG_REQUIRE(stored.size() == out.size(), ErrorKind::input, path, where + " has the wrong size");
    out = stored;
  } else if (info.compressor == "blosc") {
    int const n = blosc_decompress_ctx(stored.data(), out.data(), out.size(), 1);
    GIGASEG_REQUIRE(n == int(out.size()), ErrorKind::input, path, where + " is not a Blosc chunk of its size");
  } else if (info.compressor == "zstd") {
    std::size_t const n = ZSTD_decompress(out.data(), out.size(), stored.data(), stored.size());
    GIGASEG_REQUIRE(!ZSTD_isError(n) && n == out.size(), ErrorKind::input, path,
                    where + " is not a Zstd chunk of its size");
  } else {
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    std::size_t got = 0;
    libdeflate_result const r =
        libdeflate_zlib_decompress(d, stored.data(), stored.size(), out.data(), out.size(), &got);
    libdeflate_free_decompressor(d);
    GIGASEG_REQUIRE(r == LIBDEFLATE_SUCCESS && got == out.size(), ErrorKind::input, path,
                    where + " is not a zlib chunk of its size");
  }
  if (info.big_endian && info.item > 1)
    for (std::size_t i = 0; i < samples; ++i)
      std::reverse(out.begin() + std::ptrdiff_t(i * info.item), out.begin() + std::ptrdiff_t((i + 1) * info.item));
}

template <class T>
AnyHostImage read_region(ArrayInfo const& info, std::string const& path, Region const& r) {
  check_read_size(path, r.width, r.height);
  HostImage<T> image("gigaseg::zarr::image", r.width, r.height);
  index_t const c0 = r.x / info.chunk_width, c1 = (r.x + r.width - 1) / info.chunk_width;
  index_t const r0 = r.y / info.chunk_height, r1 = (r.y + r.height - 1) / info.chunk_height;
  index_t const across = c1 - c0 + 1;
  std::size_t const plane = std::size_t(info.chunk_width * info.chunk_height);
  encode_in_order(
      std::size_t(across * (r1 - r0 + 1)), io_threads(),
      [&](std::size_t i, std::vector<unsigned char>&) {
        index_t const column = c0 + index_t(i) % across, row = r0 + index_t(i) / across;
        thread_local std::vector<unsigned char> chunk;
        read_chunk(info, path, column, row, chunk);
        index_t const cx = column * info.chunk_width, cy = row * info.chunk_height;
        index_t const x0 = std::max(cx, r.x), x1 = std::min(cx + info.chunk_width, r.x + r.width);
        index_t const y0 = std::max(cy, r.y), y1 = std::min(cy + info.chunk_height, r.y + r.height);
        for (index_t y = y0; y < y1; ++y) {
          T* out = image.row(y - r.y);
          std::size_t const line = std::size_t((y - cy) * info.chunk_width);
          for (index_t x = x0; x < x1; ++x) {
            std::size_t const at = line + std::size_t(x - cx);
            if constexpr (std::is_same_v<T, Rgb8>) {
              out[x - r.x] = info.channel_axis == 0 ? Rgb8{chunk[at], chunk[plane + at], chunk[2 * plane + at]}
                                                    : Rgb8{chunk[3 * at], chunk[3 * at + 1], chunk[3 * at + 2]};
            } else {
              std::memcpy(&out[x - r.x], chunk.data() + at * sizeof(T), sizeof(T));
            }
          }
        }
      },
      [](std::size_t, std::vector<unsigned char>&) {});
  return image;
}

}  // namespace

}  // namespace detail

bool is_zarr_folder(std::string const& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  return ::stat((path + "/.zarray").c_str(), &st) == 0 || ::stat((path + "/.zattrs").c_str(), &st) == 0 ||
         ::stat((path + "/.zgroup").c_str(), &st) == 0;
}

namespace detail {

ImageShape zarr_shape(std::string const& path) {
  ArrayInfo const info = array_info(path);
  ImageShape shape;
  shape.width = info.width;
  shape.height = info.height;
  shape.block_width = info.chunk_width;
  shape.block_height = info.chunk_height;
  return shape;
}

PixelType zarr_pixel_type(std::string const& path) { return array_info(path).type; }

AnyHostImage read_zarr(std::string const& path, Region const* region) {
  ArrayInfo const info = array_info(path);
  Region const r = region != nullptr ? *region : Region{0, 0, info.width, info.height};
  GIGASEG_REQUIRE(r.width > 0 && r.height > 0 && r.x >= 0 && r.y >= 0 && r.x + r.width <= info.width &&
                      r.y + r.height <= info.height,
                  ErrorKind::usage, path, "the region is empty or not inside the image");
  switch (info.type) {
    case PixelType::u8: return read_region<std::uint8_t>(info, path, r);
    case PixelType::u16: return read_region<std::uint16_t>(info, path, r);
    case PixelType::u32: return read_region<std::uint32_t>(info, path, r);
    case PixelType::f32: return read_region<float>(info, path, r);
    case PixelType::rgb8: return read_region<Rgb8>(info, path, r);
  }
  return {};
}

void write_ome_zarr(std::string const& path, AnyHostImage const& image, WriteOptions const& options) {
  index_t const w = width(image), h = height(image);
  ZarrTileWriter writer(path, w, h, pixel_type(image), chunk_side, chunk_side, options);
  index_t const across = (w + chunk_side - 1) / chunk_side;
  encode_in_order(
      std::size_t(across * ((h + chunk_side - 1) / chunk_side)), io_threads(),
      [&](std::size_t i, std::vector<unsigned char>&) {
        index_t const c = index_t(i) % across, r = index_t(i) / across;
        std::visit(
            [&](auto const& pixels) {
              index_t const x = c * chunk_side, y = r * chunk_side;
              writer.write_tile(
                  c, r, AnyHostImage(pixels.roi(x, y, std::min(chunk_side, w - x), std::min(chunk_side, h - y))));
            },
            image);
      },
      [](std::size_t, std::vector<unsigned char>&) {});
  writer.commit();
}

}  // namespace detail

struct ZarrTileWriter::State {
  std::string path, temp;
  index_t width = 0, height = 0, tile_width = 0, tile_height = 0;
  PixelType type = PixelType::u8;
  WriteOptions options;
  bool compress = true;
  std::unique_ptr<AtomicOutput> output;  // the owner's
};

ZarrTileWriter::ZarrTileWriter(std::string const& path, index_t width, index_t height, PixelType type,
                               index_t tile_width, index_t tile_height, WriteOptions const& options,
                               std::string const& joined)
    : state_(std::make_unique<State>()) {
  GIGASEG_REQUIRE(is_ome_zarr_name(path), ErrorKind::usage, path, "Zarr outputs are OME-Zarr: name them .ome.zarr");
  GIGASEG_REQUIRE(width > 0 && height > 0 && tile_width > 0 && tile_height > 0, ErrorKind::usage, path,
                  "an empty image or tile");
  State& s = *state_;
  s.path = path;
  s.width = width, s.height = height, s.tile_width = tile_width, s.tile_height = tile_height;
  s.type = type;
  s.options = options;
  s.compress = options.tiff_compression != TiffCompression::none;
  if (!joined.empty()) {
    s.temp = joined;
    struct stat st {};
    GIGASEG_REQUIRE(::stat((joined + "/0/.zarray").c_str(), &st) == 0, ErrorKind::resource, path,
                    "this process cannot see the OME-Zarr output's temporary folder " + joined +
                        " (every rank must share the output's folder)");
    return;
  }
  // A folder there already is replaced only when it is a Zarr image or array (an earlier output).
  struct stat st {};
  GIGASEG_REQUIRE(::stat(path.c_str(), &st) != 0 || is_zarr_folder(path), ErrorKind::usage, path,
                  "is there already and is no Zarr image: not replaced");
  s.output = std::make_unique<AtomicOutput>(path, true);
  s.temp = s.output->temp_path();
  detail::make_folder(s.temp, path);
  detail::write_array_header(s.temp + "/0", path, width, height, tile_width, tile_height, type, s.compress);
}

ZarrTileWriter::~ZarrTileWriter() = default;

std::string const& ZarrTileWriter::temp_path() const noexcept { return state_->temp; }
index_t ZarrTileWriter::tiles_across() const noexcept {
  return (state_->width + state_->tile_width - 1) / state_->tile_width;
}
index_t ZarrTileWriter::tiles_down() const noexcept {
  return (state_->height + state_->tile_height - 1) / state_->tile_height;
}

void ZarrTileWriter::write_tile(index_t column, index_t row, AnyHostImage const& pixels) {
  State const& s = *state_;
  GIGASEG_REQUIRE(column >= 0 && row >= 0 && column < tiles_across() && row < tiles_down(), ErrorKind::usage, s.path,
                  "tile outside the grid");
  index_t const w = std::min(s.tile_width, s.width - column * s.tile_width);
  index_t const h = std::min(s.tile_height, s.height - row * s.tile_height);
  GIGASEG_REQUIRE(pixel_type(pixels) == s.type && gigaseg::width(pixels) == w && gigaseg::height(pixels) == h,
                  ErrorKind::usage, s.path, "a tile of the wrong size or pixel type");
  detail::write_chunk(s.temp + "/0", s.path, column, row, pixels, s.tile_width, s.tile_height, s.compress);
}

void ZarrTileWriter::commit() {
  State& s = *state_;
  GIGASEG_REQUIRE(s.output != nullptr, ErrorKind::internal, s.path, "only the process that made the output commits it");
  struct stat st {};
  for (index_t r = 0; r < tiles_down(); ++r)
    for (index_t c = 0; c < tiles_across(); ++c)
      GIGASEG_REQUIRE(::stat(detail::chunk_file(s.temp + "/0", s.type, c, r).c_str(), &st) == 0, ErrorKind::usage,
                      s.path, "tile " + std::to_string(c) + "," + std::to_string(r) + " was never written");
  int levels = 1;
  for (index_t w = s.width, h = s.height; std::max(w, h) > detail::reduced_tile; ++levels)
    std::tie(w, h) =
        detail::write_reduced_level(s.temp + "/" + std::to_string(levels - 1), s.temp + "/" + std::to_string(levels),
                                    s.path, w, h, s.type, s.compress);
  detail::write_attributes(s.temp, s.path, levels, s.type, s.options);
  s.output->commit();
}

}  // namespace gigaseg
