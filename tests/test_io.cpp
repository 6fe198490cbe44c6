// Image files: round trips of every format and pixel type (strips, tiles, classic and BigTIFF,
// pitched rois), hand-written PGM/PPM bytes as an independent reference, and the errors for
// missing, empty, truncated and corrupt files. Writes must be atomic: a failed write leaves any
// earlier file intact and no temporary behind.
#include "gigaseg/core/io/atomic_file.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/io/ordered_chunks.hpp"
#include "gigaseg/core/io/read_ahead.hpp"
#include "gigaseg/core/io/tile_writer.hpp"
#include "tests/generators.hpp"

#include <gtest/gtest.h>
#include <tiffio.h>
#include <zlib.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#ifndef GIGASEG_TEST_DATA  // set by tests/CMakeLists.txt
#define GIGASEG_TEST_DATA "tests/data"
#endif

namespace gigaseg {
namespace {

template <class T>
void expect_same(AnyHostImage const& read, HostImage<T> const& expected) {
  ASSERT_TRUE(std::holds_alternative<HostImage<T>>(read)) << "read as " << to_string(pixel_type(read));
  EXPECT_EQ(test::count_differences(std::get<HostImage<T>>(read), expected), 0);
}

class ImageFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gigaseg-io-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (auto const& name : entries()) std::remove((dir_ + "/" + name).c_str());
    rmdir(dir_.c_str());
  }
  std::string path(std::string const& name) const { return dir_ + "/" + name; }
  // Noise of every pixel type (seeds seed .. seed + 3) and `labels`, each written with `options`
  // to a.tif .. e.tif and read back the same.
  void expect_every_type_round_trips(index_t w, index_t h, int seed, HostImage<std::uint32_t> const& labels,
                                     WriteOptions const& options) const {
    auto const u8 = test::noise_u8(w, h, seed);
    auto const u16 = test::noise_u16(w, h, seed + 1);
    auto const f32 = test::noise_f32(w, h, seed + 2);
    auto const rgb = test::noise_rgb8(w, h, seed + 3);
    write_image(path("a.tif"), u8, options);
    expect_same(read_image(path("a.tif")), u8);
    write_image(path("b.tif"), u16, options);
    expect_same(read_image(path("b.tif")), u16);
    write_image(path("c.tif"), f32, options);
    expect_same(read_image(path("c.tif")), f32);
    write_image(path("d.tif"), rgb, options);
    expect_same(read_image(path("d.tif")), rgb);
    write_image(path("e.tif"), labels, options);
    expect_same(read_image(path("e.tif")), labels);
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    if (DIR* d = opendir(dir_.c_str())) {
      while (dirent* e = readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
      closedir(d);
    }
    return names;
  }
  void write_bytes(std::string const& name, std::string const& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
  }
  std::string read_bytes(std::string const& name) const {
    std::ifstream in(path(name), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  void truncate_to(std::string const& name, double fraction) const {
    std::string bytes = read_bytes(name);
    write_bytes(name, bytes.substr(0, std::size_t(double(bytes.size()) * fraction)));
  }
  std::string dir_;
};

void expect_input_error(std::string const& path, std::string const& fragment) {
  try {
    read_image(path);
    FAIL() << "no error for " << path;
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << "message must name the file: " << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

std::vector<std::pair<index_t, index_t>> const sizes = {{1, 1}, {1, 37}, {53, 1}, {129, 67}};

TEST_F(ImageFiles, PngRoundTrips) {
  for (auto [w, h] : sizes) {
    auto const u8 = test::noise_u8(w, h, 1);
    auto const u16 = test::noise_u16(w, h, 2);
    auto const rgb = test::noise_rgb8(w, h, 3);
    write_image(path("a.png"), u8);
    expect_same(read_image(path("a.png")), u8);
    write_image(path("b.png"), u16);
    expect_same(read_image(path("b.png")), u16);
    write_image(path("c.png"), rgb);
    expect_same(read_image(path("c.png")), rgb);
  }
  EXPECT_EQ(detect_format(path("a.png")), ImageFormat::png);
}

TEST_F(ImageFiles, TiffRoundTripsStripsTilesClassicAndBig) {
  for (auto [w, h] : sizes)
    for (WriteOptions options :
         {WriteOptions{false, 0}, WriteOptions{true, 0}, WriteOptions{false, 16}, WriteOptions{true, 32}}) {
      SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " big=" + std::to_string(options.force_bigtiff) +
                   " tile=" + std::to_string(options.tiff_tile));
      HostImage<std::uint32_t> labels("labels", w, h);
      for (index_t y = 0; y < h; ++y)
        for (index_t x = 0; x < w; ++x) labels(y, x) = std::uint32_t(y * w + x) * 2654435761u;
      expect_every_type_round_trips(w, h, 4, labels, options);
      write_image(path("b.tiff"), test::noise_u16(w, h, 5), options);  // the .tiff extension
      expect_same(read_image(path("b.tiff")), test::noise_u16(w, h, 5));
      // The byte-order mark and version say classic (42) or BigTIFF (43).
      EXPECT_EQ(read_bytes("a.tif")[2], options.force_bigtiff ? 43 : 42);
    }
}

// A label-like image: runs of equal values, as segmentations have (noise does not compress).
HostImage<std::uint32_t> blocky_labels(index_t w, index_t h) {
  HostImage<std::uint32_t> labels("labels", w, h);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) labels(y, x) = std::uint32_t((y / 7) * 1000 + x / 13);
  return labels;
}

struct TiffTags {
  std::uint16_t compression = 0, predictor = PREDICTOR_NONE;
  std::uint32_t tile_width = 0;
};
TiffTags tags_of(std::string const& file) {
  TiffTags tags;
  TIFF* tif = TIFFOpen(file.c_str(), "r");
  if (tif == nullptr) return tags;
  TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &tags.compression);
  if (tags.compression != COMPRESSION_NONE) TIFFGetFieldDefaulted(tif, TIFFTAG_PREDICTOR, &tags.predictor);
  TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tags.tile_width);
  TIFFClose(tif);
  return tags;
}

// Every codec with and without the predictor, strips (several of them: 4096-wide rows) and tiles,
// every pixel type, encoded on one and on three threads: libtiff's own decoders read back the pixels
// written, and the tags say the codec and the predictor (none unless asked; floating point for
// float).
TEST_F(ImageFiles, TiffCompressionRoundTripsOnEveryPath) {
  struct Size {
    index_t w, h;
  };
  for (int threads : {1, 3})
    for (TiffCompression compression : {TiffCompression::none, TiffCompression::deflate, TiffCompression::zstd})
      for (bool predictor : {false, true})
        for (index_t tile : {index_t(0), index_t(16), index_t(48)})
          for (Size size : {Size{1, 1}, Size{129, 67}, Size{4096, 150}}) {
            SCOPED_TRACE(std::string(to_string(compression)) + (predictor ? " predictor" : "") +
                         " tile=" + std::to_string(tile) + " threads=" + std::to_string(threads) + " " +
                         std::to_string(size.w) + "x" + std::to_string(size.h));
            set_io_threads(threads);
            WriteOptions options;
            options.tiff_compression = compression;
            options.tiff_predictor = predictor;
            options.tiff_tile = tile;
            expect_every_type_round_trips(size.w, size.h, 11, blocky_labels(size.w, size.h), options);
            std::uint16_t const scheme = compression == TiffCompression::deflate ? COMPRESSION_ADOBE_DEFLATE
                                         : compression == TiffCompression::zstd  ? COMPRESSION_ZSTD
                                                                                 : COMPRESSION_NONE;
            TiffTags const integer = tags_of(path("e.tif")), real = tags_of(path("c.tif"));
            EXPECT_EQ(integer.compression, scheme);
            bool const predicted = predictor && scheme != COMPRESSION_NONE;
            EXPECT_EQ(integer.predictor, predicted ? PREDICTOR_HORIZONTAL : PREDICTOR_NONE);
            EXPECT_EQ(real.predictor, predicted ? PREDICTOR_FLOATINGPOINT : PREDICTOR_NONE);
            EXPECT_EQ(integer.tile_width, std::uint32_t(tile));
          }
  set_io_threads(0);
}

TEST_F(ImageFiles, TiffCompressionShrinksLabelsAndTakesLevels) {
  auto const labels = blocky_labels(4096, 300);
  WriteOptions options;
  options.tiff_compression = TiffCompression::none;
  write_image(path("none.tif"), labels, options);
  options.tiff_predictor = true;
  for (TiffCompression compression : {TiffCompression::deflate, TiffCompression::zstd})
    for (int level : {0, 1, 9}) {
      options.tiff_compression = compression;
      options.compression_level = level;
      write_image(path("c.tif"), labels, options);
      expect_same(read_image(path("c.tif")), labels);
      // Runs of equal labels become zeros under the predictor: far smaller than the raw pixels.
      EXPECT_LT(read_bytes("c.tif").size() * 20, read_bytes("none.tif").size()) << to_string(compression) << level;
    }
  options.tiff_compression = TiffCompression::deflate;
  options.compression_level = 13;
  try {
    write_image(path("bad.tif"), labels, options);
    FAIL() << "deflate level 13 accepted";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("12 for deflate"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::ifstream(path("bad.tif")).good());
}

// The zlib stream of a PNG file (its IDAT chunks' data, in order) inflates with zlib's own checks,
// the Adler-32 at its end among them (gigaseg's reader does not check it): Z_STREAM_END, or the
// error.
int inflate_png_stream(std::string const& png) {
  std::string stream;
  for (std::size_t at = 8; at + 12 <= png.size();) {
    auto const byte = [&](std::size_t i) { return std::uint32_t(static_cast<unsigned char>(png[i])); };
    std::uint32_t const length = byte(at) << 24 | byte(at + 1) << 16 | byte(at + 2) << 8 | byte(at + 3);
    if (png.compare(at + 4, 4, "IDAT") == 0) stream.append(png, at + 8, length);
    at += 12 + std::size_t(length);
  }
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return Z_MEM_ERROR;
  std::vector<unsigned char> out(std::size_t(1) << 20);
  z.next_in = reinterpret_cast<Bytef*>(stream.data());
  z.avail_in = uInt(stream.size());
  int status = Z_OK;
  while (status == Z_OK) {
    z.next_out = out.data();
    z.avail_out = uInt(out.size());
    status = inflate(&z, Z_NO_FLUSH);
  }
  inflateEnd(&z);
  return status;
}

// A PNG with one byte of its compressed pixels changed is an input error naming the file: the
// chunk's CRC-32 is checked (the zlib stream's Adler-32 is not).
TEST_F(ImageFiles, APngWithAChangedPixelByteIsAnInputError) {
  write_image(path("good.png"), test::noise_u8(300, 200, 5));
  std::string bytes = read_bytes("good.png");
  std::size_t const idat = bytes.find("IDAT");
  ASSERT_NE(idat, std::string::npos);
  bytes[idat + 4 + 100] = char(bytes[idat + 4 + 100] ^ 0x10);
  std::ofstream(path("changed.png"), std::ios::binary) << bytes;
  try {
    (void)read_image(path("changed.png"));
    FAIL() << "a changed byte was read";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_NE(std::string(e.what()).find("changed.png"), std::string::npos) << e.what();
  }
}

// Large PNGs on several threads are deflated in independent pieces: the file differs from the
// one-piece stream libpng writes on one thread, both read back as the same pixels, and both are
// one zlib stream whose Adler-32 (combined from the pieces') zlib accepts.
TEST_F(ImageFiles, PngPiecesOnSeveralThreadsReadBackExactly) {
  auto const u8 = test::noise_u8(3001, 3003, 21);
  auto const u16 = test::noise_u16(2100, 2011, 22);
  auto const rgb = test::noise_rgb8(1709, 1703, 23);
  HostImage<std::uint8_t> smooth("smooth", 4000, 2500);  // long runs: pieces end mid-match
  for (index_t y = 0; y < smooth.height(); ++y)
    for (index_t x = 0; x < smooth.width(); ++x) smooth(y, x) = std::uint8_t((x / 300 + y / 200) * 17);
  auto round_trip = [&](auto const& image, char const* name) {
    SCOPED_TRACE(name);
    set_io_threads(1);
    write_image(path("one.png"), image);
    set_io_threads(3);
    write_image(path("pieces.png"), image);
    expect_same(read_image(path("one.png")), image);
    expect_same(read_image(path("pieces.png")), image);
    EXPECT_NE(read_bytes("one.png"), read_bytes("pieces.png"));
    EXPECT_EQ(inflate_png_stream(read_bytes("one.png")), Z_STREAM_END);
    EXPECT_EQ(inflate_png_stream(read_bytes("pieces.png")), Z_STREAM_END);
  };
  round_trip(u8, "u8");
  round_trip(u16, "u16");
  round_trip(rgb, "rgb8");
  round_trip(smooth, "smooth u8");
  set_io_threads(0);
}

// Large TIFFs are decoded on several threads, a libtiff handle each: the pixels are the same and a
// corrupt tile is reported as on one thread, the first bad one in file order.
TEST_F(ImageFiles, TiffReadOnSeveralThreadsReportsTheFirstCorruptTile) {
  auto const image = test::noise_u8(2048, 2100, 31);
  WriteOptions options;
  options.tiff_tile = 256;
  write_image(path("t.tif"), image, options);
  for (int threads : {1, 3}) {
    set_io_threads(threads);
    expect_same(read_image(path("t.tif")), image);
  }
  // Garbage over tiles 41 and 20 (of 8 x 9): tile 20 is at x 1024, y 512.
  std::string bytes = read_bytes("t.tif");
  TIFF* tif = TIFFOpen(path("t.tif").c_str(), "r");
  ASSERT_NE(tif, nullptr);
  std::uint64_t* offsets = nullptr;
  ASSERT_TRUE(TIFFGetField(tif, TIFFTAG_TILEOFFSETS, &offsets));
  std::uint64_t const tile20 = offsets[20], tile41 = offsets[41];
  TIFFClose(tif);
  for (std::uint64_t at : {tile41, tile20})
    for (std::size_t k = 2; k < 200; ++k) bytes[at + k] = char(0xff);
  write_bytes("bad.tif", bytes);
  for (int threads : {1, 3}) {
    set_io_threads(threads);
    expect_input_error(path("bad.tif"), "corrupt or truncated tile at 1024,512");
  }
  set_io_threads(0);
}

template <class T>
HostImage<T> crop(HostImage<T> const& image, Region const& r) {
  HostImage<T> out("crop", r.width, r.height);
  for (index_t y = 0; y < r.height; ++y)
    for (index_t x = 0; x < r.width; ++x) out(y, x) = image(r.y + y, r.x + x);
  return out;
}

// A region of a striped or tiled TIFF, compressed or not, of every pixel type, is the same
// rectangle of the whole image: corners, edges, one pixel, the whole image, regions across tile
// and strip boundaries.
TEST_F(ImageFiles, TiffRegionsAreTheRectanglesOfTheWholeImage) {
  index_t const w = 301, h = 4099;  // 16-bit rows of 602 bytes: strips of 1741 rows
  auto const u8 = test::noise_u8(w, h, 41);
  auto const u16 = test::noise_u16(w, h, 42);
  auto const f32 = test::noise_f32(w, h, 43);
  auto const rgb = test::noise_rgb8(w, h, 44);
  std::vector<Region> const regions = {{0, 0, w, h},        {0, 0, 1, 1},       {w - 1, h - 1, 1, 1},
                                       {13, 1700, 100, 90}, {0, 1741, w, 1741}, {250, 4000, 51, 99},
                                       {47, 0, 16, h},      {64, 64, 64, 64}};
  for (TiffCompression compression : {TiffCompression::none, TiffCompression::deflate})
    for (index_t tile : {index_t(0), index_t(64)}) {
      WriteOptions options;
      options.tiff_compression = compression;
      options.tiff_tile = tile;
      write_image(path("a.tif"), u8, options);
      write_image(path("b.tif"), u16, options);
      write_image(path("c.tif"), f32, options);
      write_image(path("d.tif"), rgb, options);
      for (Region const& r : regions) {
        SCOPED_TRACE(std::string(to_string(compression)) + " tile " + std::to_string(tile) + " region " +
                     std::to_string(r.width) + "x" + std::to_string(r.height) + " at " + std::to_string(r.x) + "," +
                     std::to_string(r.y));
        expect_same(read_image_region(path("a.tif"), r), crop(u8, r));
        expect_same(read_image_region(path("b.tif"), r), crop(u16, r));
        expect_same(read_image_region(path("c.tif"), r), crop(f32, r));
        expect_same(read_image_region(path("d.tif"), r), crop(rgb, r));
      }
    }
}

// Only the tiles a region overlaps are decoded: a corrupt tile elsewhere does not stop it, and
// the whole image (or a region over that tile) fails naming the tile.
TEST_F(ImageFiles, TiffRegionDecodesOnlyTheTilesItOverlaps) {
  auto const image = test::noise_u8(512, 512, 45);
  WriteOptions options;
  options.tiff_tile = 128;
  write_image(path("t.tif"), image, options);
  std::string bytes = read_bytes("t.tif");
  TIFF* tif = TIFFOpen(path("t.tif").c_str(), "r");
  ASSERT_NE(tif, nullptr);
  std::uint64_t* offsets = nullptr;
  ASSERT_TRUE(TIFFGetField(tif, TIFFTAG_TILEOFFSETS, &offsets));
  std::uint64_t const tile15 = offsets[15];  // the last tile: x 384, y 384
  TIFFClose(tif);
  for (std::size_t k = 2; k < 300; ++k) bytes[tile15 + k] = char(0xff);
  write_bytes("bad.tif", bytes);
  Region const clear{0, 0, 384, 512};
  expect_same(read_image_region(path("bad.tif"), clear), crop(image, clear));
  expect_input_error(path("bad.tif"), "corrupt or truncated tile at 384,384");
  try {
    read_image_region(path("bad.tif"), Region{400, 500, 2, 2});
    FAIL() << "the corrupt tile was not noticed";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_NE(std::string(e.what()).find("tile at 384,384"), std::string::npos) << e.what();
  }
}

TEST_F(ImageFiles, RegionsOutsideTheImageAndStreamFormatsAreRefused) {
  auto const image = test::noise_u8(100, 80, 46);
  write_image(path("a.tif"), image);
  write_image(path("a.png"), image);
  for (Region const& r : {Region{0, 0, 0, 5}, Region{-1, 0, 5, 5}, Region{90, 0, 11, 5}, Region{0, 75, 5, 6}}) {
    try {
      read_image_region(path("a.tif"), r);
      FAIL() << "region accepted";
    } catch (Error const& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
      EXPECT_NE(std::string(e.what()).find("not inside the 100x80 image"), std::string::npos) << e.what();
    }
  }
  try {
    read_image_region(path("a.png"), Region{0, 0, 5, 5});
    FAIL() << "PNG region accepted";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot be read by region"), std::string::npos) << e.what();
  }
}

// Tiles handed over from four threads in a scrambled order make the same image, for masks, labels
// and distances under every codec; the file is tiled (BigTIFF when asked) and readable by region.
TEST_F(ImageFiles, TileWriterAssemblesTilesFromManyThreadsInAnyOrder) {
  index_t const w = 1000, h = 700, tile = 256;  // 4 x 6 tiles of 256 x 128, the last column and row partial
  auto const u8 = test::noise_u8(w, h, 51);
  auto const f32 = test::noise_f32(w, h, 52);
  auto const labels = blocky_labels(w, h);
  auto write_all = [&](auto const& image, std::string const& name, WriteOptions const& options) {
    TiffTileWriter writer(path(name), w, h, pixel_type(AnyHostImage(image)), tile, tile / 2, options);
    std::vector<std::pair<index_t, index_t>> order;
    for (index_t r = 0; r < writer.tiles_down(); ++r)
      for (index_t c = 0; c < writer.tiles_across(); ++c) order.emplace_back(c, r);
    std::reverse(order.begin(), order.end());
    std::swap(order[1], order[7]);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (std::size_t k = t; k < order.size(); k += 4) {
          auto const [c, r] = order[k];
          index_t const th = tile / 2;
          Region const part{c * tile, r * th, std::min(tile, w - c * tile), std::min(th, h - r * th)};
          writer.write_tile(c, r, crop(image, part));
        }
      });
    for (auto& thread : threads) thread.join();
    EXPECT_FALSE(std::ifstream(path(name)).good()) << "nothing under the final name before commit";
    writer.commit();
  };
  for (TiffCompression compression : {TiffCompression::none, TiffCompression::deflate, TiffCompression::zstd}) {
    SCOPED_TRACE(to_string(compression));
    WriteOptions options;
    options.tiff_compression = compression;
    options.force_bigtiff = compression == TiffCompression::zstd;
    write_all(u8, "mask.tif", options);
    write_all(labels, "labels.tif", options);
    write_all(f32, "distance.tif", options);
    expect_same(read_image(path("mask.tif")), u8);
    expect_same(read_image(path("labels.tif")), labels);
    expect_same(read_image(path("distance.tif")), f32);
    Region const middle{300, 200, 400, 300};
    expect_same(read_image_region(path("labels.tif"), middle), crop(labels, middle));
    EXPECT_EQ(tags_of(path("labels.tif")).tile_width, std::uint32_t(tile));  // tiles of 256 x 128
    EXPECT_EQ(read_bytes("labels.tif")[2], options.force_bigtiff ? 43 : 42);
    for (auto const& name : {"mask.tif", "labels.tif", "distance.tif"}) std::remove(path(name).c_str());
  }
}

// A tile writer that is not committed, or lacks tiles at commit, leaves nothing; bad tiles are
// usage errors naming the file.
TEST_F(ImageFiles, TileWriterLeavesNothingUnlessEveryTileIsWritten) {
  auto const image = test::noise_u8(100, 40, 53);
  {
    TiffTileWriter writer(path("a.tif"), 100, 40, PixelType::u8, 64, 64);
    writer.write_tile(0, 0, crop(image, Region{0, 0, 64, 40}));
  }  // destroyed without commit
  EXPECT_TRUE(entries().empty());
  auto expect_usage = [&](auto&& action, std::string const& fragment) {
    try {
      action();
      FAIL() << "accepted: " << fragment;
    } catch (Error const& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("a.tif"), std::string::npos) << e.what();
    }
  };
  {
    TiffTileWriter writer(path("a.tif"), 100, 40, PixelType::u8, 64, 64);
    writer.write_tile(1, 0, crop(image, Region{64, 0, 36, 40}));
    expect_usage([&] { writer.write_tile(1, 0, crop(image, Region{64, 0, 36, 40})); }, "written twice");
    expect_usage([&] { writer.write_tile(2, 0, crop(image, Region{64, 0, 36, 40})); }, "outside the 2 x 1 tiles");
    expect_usage([&] { writer.write_tile(0, 0, crop(image, Region{0, 0, 36, 40})); }, "must be 64x40");
    expect_usage([&] { writer.commit(); }, "1 of 2 tiles were not written");
  }
  EXPECT_TRUE(entries().empty());
  expect_usage([&] { TiffTileWriter(path("a.tif"), 100, 40, PixelType::u8, 40, 64); }, "multiples of 16");
}

// BigTIFF is chosen on the bytes stored, padded edge tiles included: 30000^2 32-bit pixels fit
// classic TIFF in strips or in 1008 x 704 tiles, not in 4096 x 4096 tiles (8 x 8 tiles of 4096^2,
// 4 GiB), where classic TIFF's offsets ran out before.
TEST(Io, BigTiffCountsThePaddedTiles) {
  EXPECT_FALSE(detail::needs_bigtiff(30000, 30000, 4, 0, 0));
  EXPECT_FALSE(detail::needs_bigtiff(30000, 30000, 4, 1008, 704));
  EXPECT_TRUE(detail::needs_bigtiff(30000, 30000, 4, 4096, 4096));
  EXPECT_FALSE(detail::needs_bigtiff(30000, 30000, 1, 4096, 4096));
  EXPECT_TRUE(detail::needs_bigtiff(40000, 40000, 3, 0, 0));
}

TEST(OrderedChunks, WritesEveryChunkInOrderAndStopsAtTheFirstFailure) {
  for (int threads : {1, 2, 5}) {
    std::vector<std::size_t> order;
    detail::encode_in_order(
        1000, threads,
        [](std::size_t i, std::vector<unsigned char>& bytes) { bytes.assign(i % 7 + 1, (unsigned char)(i)); },
        [&](std::size_t i, std::vector<unsigned char>& bytes) {
          EXPECT_EQ(bytes.size(), i % 7 + 1);
          EXPECT_EQ(bytes[0], (unsigned char)(i));
          order.push_back(i);
        });
    ASSERT_EQ(order.size(), 1000u);
    for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], i);

    std::size_t written = 0;
    EXPECT_THROW(detail::encode_in_order(
                     1000, threads,
                     [](std::size_t i, std::vector<unsigned char>&) {
                       if (i == 500) throw std::runtime_error("encode failed");
                     },
                     [&](std::size_t, std::vector<unsigned char>&) { ++written; }),
                 std::runtime_error);
    EXPECT_LE(written, 500u);
    written = 0;
    EXPECT_THROW(detail::encode_in_order(
                     1000, threads, [](std::size_t, std::vector<unsigned char>&) {},
                     [&](std::size_t i, std::vector<unsigned char>&) {
                       if (i == 10) throw std::runtime_error("disk full");
                       ++written;
                     }),
                 std::runtime_error);
    EXPECT_EQ(written, 10u);
  }
}

TEST_F(ImageFiles, PnmRoundTrips) {
  for (auto [w, h] : sizes) {
    auto const u8 = test::noise_u8(w, h, 8);
    auto const u16 = test::noise_u16(w, h, 9);
    auto const rgb = test::noise_rgb8(w, h, 10);
    write_image(path("a.pgm"), u8);
    expect_same(read_image(path("a.pgm")), u8);
    write_image(path("b.pgm"), u16);
    expect_same(read_image(path("b.pgm")), u16);
    write_image(path("c.ppm"), rgb);
    expect_same(read_image(path("c.ppm")), rgb);
  }
}

TEST_F(ImageFiles, PitchedRoisAreWrittenWithoutTheirGaps) {
  auto padded = test::padded_roi<std::uint8_t>(45, 19, 4, 77);
  auto const content = test::noise_u8(45, 19, 11);
  for (index_t y = 0; y < 19; ++y)
    for (index_t x = 0; x < 45; ++x) padded.roi(y, x) = content(y, x);
  for (char const* name : {"roi.png", "roi.tif", "roi.pgm"}) {
    write_image(path(name), padded.roi);
    expect_same(read_image(path(name)), content);
  }
}

TEST_F(ImageFiles, HandWrittenNetpbmBytes) {
  // Independent of our writer: bytes as the Netpbm specification lays them out.
  write_bytes("p2.pgm", "P2\n# a comment\n3 2\n255\n0 1 2\n253 254 255\n");
  HostImage<std::uint8_t> p2("p2", 3, 2);
  std::uint8_t const p2_values[] = {0, 1, 2, 253, 254, 255};
  for (int i = 0; i < 6; ++i) p2(i / 3, i % 3) = p2_values[i];
  expect_same(read_image(path("p2.pgm")), p2);

  write_bytes("p5.pgm", std::string("P5 2 1 65535\n\x01\x02\xff\xfe", 17));
  HostImage<std::uint16_t> p5("p5", 2, 1);
  p5(0, 0) = 0x0102;
  p5(0, 1) = 0xfffe;
  expect_same(read_image(path("p5.pgm")), p5);

  write_bytes("p6.ppm", std::string("P6\n2 1\n255\n\x0a\x14\x1e\x28\x32\x3c", 17));
  HostImage<Rgb8> p6("p6", 2, 1);
  p6(0, 0) = Rgb8{10, 20, 30};
  p6(0, 1) = Rgb8{40, 50, 60};
  expect_same(read_image(path("p6.ppm")), p6);

  write_bytes("p3.ppm", "P3 1 1 65535 65535 0 32768\n");
  HostImage<Rgb8> p3("p3", 1, 1);
  p3(0, 0) = Rgb8{255, 0, detail::scale_16_to_8(32768)};
  expect_same(read_image(path("p3.ppm")), p3);
  EXPECT_EQ(detail::scale_16_to_8(32768), 128);
}

TEST_F(ImageFiles, MissingEmptyAndUnknownFiles) {
  expect_input_error(path("missing.png"), "No such file");
  write_bytes("empty.png", "");
  expect_input_error(path("empty.png"), "empty");
  write_bytes("text.png", "hello, this is not an image");
  expect_input_error(path("text.png"), "not a PNG, TIFF, PGM/PPM, FITS or whole-slide image");
}

// An image read ahead is read_image's, in memory Kokkos did not allocate (an unmanaged view, so
// that the read can run before Kokkos::initialize), with 128-byte aligned rows; a failure is
// read_image's error, thrown by take(); an image is taken once.
TEST_F(ImageFiles, ReadAheadGivesReadImagesImageInMemoryOfItsOwn) {
  auto const u8 = test::noise_u8(301, 77, 11);
  auto const u16 = test::noise_u16(64, 129, 12);
  auto const f32 = test::noise_f32(97, 31, 13);
  auto const rgb = test::noise_rgb8(45, 66, 14);
  HostImage<std::uint32_t> const labels = blocky_labels(200, 90);
  write_image(path("a.png"), u16);
  write_image(path("b.tif"), f32, WriteOptions{false, 0});  // strips
  write_image(path("c.tif"), labels, WriteOptions{true, 32, TiffCompression::zstd});
  write_image(path("d.ppm"), rgb);
  write_image(path("e.pgm"), u8);
  auto const own_memory = [](AnyHostImage const& image) {
    return std::visit(
        [](auto const& i) {
          return i.storage().use_count() == 0 &&
                 reinterpret_cast<std::uintptr_t>(i.row(0)) % row_alignment_bytes == 0 &&
                 i.pitch_bytes() == aligned_pitch(i.width(), index_t(sizeof(*i.data())));
        },
        image);
  };
  {
    ReadAhead a(path("a.png")), b(path("b.tif")), c(path("c.tif")), d(path("d.ppm")), e(path("e.pgm"));
    EXPECT_TRUE(a.pending());
    AnyHostImage const images[] = {a.take(), b.take(), c.take(), d.take(), e.take()};
    EXPECT_FALSE(a.pending());
    expect_same(images[0], u16);
    expect_same(images[1], f32);
    expect_same(images[2], labels);
    expect_same(images[3], rgb);
    expect_same(images[4], u8);
    for (auto const& image : images) EXPECT_TRUE(own_memory(image));
    EXPECT_FALSE(own_memory(read_image(path("a.png"))));  // read_image's is Kokkos's
    EXPECT_GT(a.read_ms(), 0.0);
    try {
      a.take();
      FAIL() << "a second take";
    } catch (Error const& error) {
      EXPECT_EQ(error.kind(), ErrorKind::internal) << error.what();
    }
  }
  // The errors are read_image's, whole.
  write_bytes("text.png", "hello, this is not an image");
  truncate_to("c.tif", 0.5);
  for (std::string const name : {"missing.tif", "text.png", "c.tif"}) {
    std::string expected;
    try {
      read_image(path(name));
    } catch (Error const& error) {
      expected = error.what();
    }
    ASSERT_FALSE(expected.empty()) << name;
    ReadAhead ahead(path(name));
    try {
      ahead.take();
      FAIL() << "no error for " << name;
    } catch (Error const& error) {
      EXPECT_EQ(error.kind(), ErrorKind::input);
      EXPECT_EQ(std::string(error.what()), expected);
    }
  }
  // A read discarded is never taken, and its error is dropped.
  ReadAhead discarded(path("text.png"));
  discarded.discard();
  EXPECT_FALSE(discarded.pending());
  EXPECT_THROW(discarded.take(), Error);
}

TEST_F(ImageFiles, TruncatedFilesAreInputErrors) {
  auto const image = test::noise_u8(300, 200, 12);  // noise: no compression hides the cut
  write_image(path("t.png"), image);
  truncate_to("t.png", 0.5);
  expect_input_error(path("t.png"), "PNG");
  write_image(path("t.tif"), image);
  truncate_to("t.tif", 0.5);
  expect_input_error(path("t.tif"), "");
  WriteOptions tiled;
  tiled.tiff_tile = 64;
  write_image(path("tiles.tif"), image, tiled);
  truncate_to("tiles.tif", 0.5);
  expect_input_error(path("tiles.tif"), "");
  write_image(path("t.pgm"), image);
  truncate_to("t.pgm", 0.5);
  expect_input_error(path("t.pgm"), "truncated");
  write_bytes("header.pgm", "P5\n300 ");
  expect_input_error(path("header.pgm"), "truncated");
}

TEST_F(ImageFiles, CorruptHeadersAreInputErrors) {
  write_bytes("zero.pgm", "P5 0 10 255\n");
  expect_input_error(path("zero.pgm"), "zero width");
  write_bytes("maxval.pgm", "P5 1 1 70000\n\x01");
  expect_input_error(path("maxval.pgm"), "maxval");
  write_bytes("value.pgm", "P2 1 1 10 11\n");
  expect_input_error(path("value.pgm"), "exceeds maxval");
  write_bytes("p4.pbm", "P4 1 1\n\x80");
  expect_input_error(path("p4.pbm"), "");
  auto const image = test::noise_u8(40, 30, 13);
  write_image(path("bad.png"), image);
  std::string bytes = read_bytes("bad.png");
  for (std::size_t i = 40; i < bytes.size() && i < 80; ++i) bytes[i] = char(0x5a);  // IDAT header
  write_bytes("bad.png", bytes);
  expect_input_error(path("bad.png"), "PNG");
  write_bytes("bad.tif", std::string("II*\0\x08\0\0\0\xff\xff", 10));
  expect_input_error(path("bad.tif"), "");
}

TEST_F(ImageFiles, HugeClaimedSizesFailBeforeAllocating) {
  // A 20-byte PGM claiming 100000x100000 pixels: the raster's size is known, so it is truncated.
  write_bytes("huge.pgm", "P5 100000 100000 255\n");
  expect_input_error(path("huge.pgm"), "truncated");
  // The reader limit (for services reading untrusted files, and the fuzzers): resource error.
  auto const image = test::noise_u8(64, 64, 15);
  write_image(path("limit.png"), image);
  write_image(path("limit.tif"), image);
  write_image(path("limit.pgm"), image);
  set_read_pixel_limit(64 * 64 - 1);
  for (char const* name : {"limit.png", "limit.tif", "limit.pgm"}) {
    try {
      read_image(path(name));
      ADD_FAILURE() << "no error for " << name;
    } catch (Error const& e) {
      EXPECT_EQ(e.kind(), ErrorKind::resource) << e.what();
      EXPECT_NE(std::string(e.what()).find(path(name)), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("64x64"), std::string::npos) << e.what();
    }
  }
  set_read_pixel_limit(64 * 64);
  expect_same(read_image(path("limit.tif")), image);
  set_read_pixel_limit(0);
  EXPECT_EQ(read_pixel_limit(), 0);
}

// tests/fuzz/corpus: the fuzzers' seeds and the inputs they found worth keeping. Each file reads or
// fails with a gigaseg::Error, under the fuzzers' pixel limit; anything else (another exception, a
// sanitizer report in the sanitizer job) fails. Every seed written by make_seeds.py is valid.
TEST(FuzzCorpus, EveryInputReadsOrFailsCleanly) {
  char const* env = std::getenv("GIGASEG_TEST_DATA");
  std::string const corpus = std::string(env ? env : GIGASEG_TEST_DATA) + "/../fuzz/corpus";
  set_read_pixel_limit(index_t(1) << 24);
  int files = 0, seeds_read = 0;
  for (char const* format : {"png", "tiff", "pnm", "fits"}) {
    std::string const folder = corpus + "/" + format;
    DIR* d = opendir(folder.c_str());
    ASSERT_NE(d, nullptr) << folder;
    while (dirent* e = readdir(d)) {
      std::string const name = e->d_name;
      if (name == "." || name == "..") continue;
      std::string const file = folder + "/" + name;
      ++files;
      bool const seed = name.find('.') != std::string::npos;  // libFuzzer names its finds by hash
      try {
        AnyHostImage const image = std::string(format) == "png"    ? detail::read_png(file)
                                   : std::string(format) == "tiff" ? detail::read_tiff(file)
                                   : std::string(format) == "fits" ? detail::read_fits(file)
                                                                   : detail::read_pnm(file);
        EXPECT_GT(width(image) * height(image), 0) << file;
        seeds_read += seed ? 1 : 0;
      } catch (Error const& e) {
        EXPECT_FALSE(seed) << "a valid seed failed: " << e.what();
      } catch (std::exception const& e) {
        ADD_FAILURE() << file << ": not a gigaseg::Error: " << e.what();
      }
    }
    closedir(d);
  }
  set_read_pixel_limit(0);
  EXPECT_GE(seeds_read, 39);  // make_seeds.py's 11 PNG, 15 TIFF, 7 PGM/PPM and 6 FITS seeds
  EXPECT_GE(files, seeds_read);
}

// An 8-bit gray PNG with Adam7 interlacing (its pixels in seven passes), written byte by byte:
// gigaseg writes no interlaced PNG, and libpng cannot hand its rows over one band at a time.
std::string interlaced_png(HostImage<std::uint8_t> const& image) {
  auto be32 = [](std::uint32_t v) {
    return std::string{char(v >> 24), char((v >> 16) & 255), char((v >> 8) & 255), char(v & 255)};
  };
  auto chunk = [&](char const* type, std::string const& data) {
    std::string const body = std::string(type, 4) + data;
    return be32(std::uint32_t(data.size())) + body +
           be32(std::uint32_t(crc32(0, reinterpret_cast<Bytef const*>(body.data()), uInt(body.size()))));
  };
  index_t const w = image.width(), h = image.height();
  std::string raw;  // each pass's rows, each row after its filter byte (0: none)
  int const x0[] = {0, 4, 0, 2, 0, 1, 0}, y0[] = {0, 0, 4, 0, 2, 0, 1};
  int const dx[] = {8, 8, 4, 4, 2, 2, 1}, dy[] = {8, 8, 8, 4, 4, 2, 2};
  for (int p = 0; p < 7; ++p) {
    if (x0[p] >= w) continue;
    for (index_t y = y0[p]; y < h; y += dy[p]) {
      raw += char(0);
      for (index_t x = x0[p]; x < w; x += dx[p]) raw += char(image(y, x));
    }
  }
  uLongf size = compressBound(uLong(raw.size()));
  std::string deflated(size, '\0');
  compress(reinterpret_cast<Bytef*>(deflated.data()), &size, reinterpret_cast<Bytef const*>(raw.data()),
           uLong(raw.size()));
  deflated.resize(size);
  std::string const header = be32(std::uint32_t(w)) + be32(std::uint32_t(h)) + std::string{8, 0, 0, 0, 1};
  return std::string("\x89PNG\r\n\x1a\n", 8) + chunk("IHDR", header) + chunk("IDAT", deflated) + chunk("IEND", "");
}

// The way into the tile engine for formats that cannot be read by region: a tiled TIFF copy made a
// band of rows at a time is the image, pixel for pixel, for every PNG and PGM/PPM layout (also an
// interlaced PNG, decoded whole), with tiles that do not divide the image; a truncated file is an
// input error that leaves nothing behind.
TEST_F(ImageFiles, TiledCopiesOfStreamFormatsAreTheImage) {
  WriteOptions options;
  options.compression_level = 1;
  auto const gray = test::noise_u8(203, 157, 71);
  auto const wide = test::noise_u16(97, 61, 72);
  HostImage<Rgb8> colour("colour", 75, 49);
  for (index_t y = 0; y < 49; ++y)
    for (index_t x = 0; x < 75; ++x) colour(y, x) = Rgb8{std::uint8_t(x * 3), std::uint8_t(y * 5), gray(y, x)};
  write_image(path("gray.png"), gray);
  write_image(path("wide.png"), wide);
  write_image(path("colour.png"), colour);
  write_image(path("gray.pgm"), gray);
  write_image(path("wide.pgm"), wide);
  write_image(path("colour.ppm"), colour);
  write_image(path("gray.tif"), gray);
  write_bytes("interlaced.png", interlaced_png(gray));
  write_bytes("ascii.pgm", "P2\n3 2\n# a comment\n255\n0 1 2\n250 251 252\n");
  for (char const* name : {"gray.png", "wide.png", "colour.png", "gray.pgm", "wide.pgm", "colour.ppm", "gray.tif",
                           "interlaced.png", "ascii.pgm"}) {
    SCOPED_TRACE(name);
    AnyHostImage const whole = read_image(path(name));
    ImageShape const shape = image_shape(path(name));
    EXPECT_EQ(shape.width, width(whole));
    EXPECT_EQ(shape.height, height(whole));
    write_tiled_copy(path(name), path("copy.tif"), 48, 32, options);
    AnyHostImage const copy = read_image(path("copy.tif"));
    ASSERT_EQ(copy.index(), whole.index());
    std::visit(
        [&](auto const& expected) {
          using Image = std::decay_t<decltype(expected)>;
          EXPECT_EQ(test::count_differences(std::get<Image>(copy), expected), 0);
        },
        whole);
    ImageShape const copied = image_shape(path("copy.tif"));
    EXPECT_EQ(copied.block_width, 48);
    EXPECT_EQ(copied.block_height, 32);
  }
  EXPECT_EQ(image_shape(path("gray.tif")).block_width, 203);  // strips: the full width
  truncate_to("gray.png", 0.5);
  EXPECT_THROW(write_tiled_copy(path("gray.png"), path("broken.tif"), 48, 32, options), Error);
  truncate_to("gray.pgm", 0.5);
  EXPECT_THROW(write_tiled_copy(path("gray.pgm"), path("broken.tif"), 48, 32, options), Error);
  for (auto const& name : entries()) EXPECT_TRUE(name.find("broken") == std::string::npos) << name;
}

TEST_F(ImageFiles, PaletteWithTransparencyReadsAsRgb) {
  // Seed palette8_trns.png: a 6x3 palette image with a tRNS chunk; its alpha is dropped.
  char const* env = std::getenv("GIGASEG_TEST_DATA");
  AnyHostImage const image =
      read_image(std::string(env ? env : GIGASEG_TEST_DATA) + "/../fuzz/corpus/png/palette8_trns.png");
  ASSERT_TRUE(std::holds_alternative<HostImage<Rgb8>>(image)) << to_string(pixel_type(image));
  auto const& rgb = std::get<HostImage<Rgb8>>(image);
  ASSERT_EQ(rgb.width(), 6);
  ASSERT_EQ(rgb.height(), 3);
  // Row 0's first index is 0: palette entry 0 is (0, 255, 0).
  EXPECT_EQ(rgb(0, 0).r, 0);
  EXPECT_EQ(rgb(0, 0).g, 255);
  EXPECT_EQ(rgb(0, 0).b, 0);
}

// The clean cached pages of a large file an output will replace are let go when the output starts
// (the file's bytes stay until the rename): counted with mincore over a mapping of the file.
TEST_F(ImageFiles, AnOutputLetsGoOfTheCacheOfTheFileItReplaces) {
  std::size_t const bytes = std::size_t(64) << 20;
  std::string const old_output = path("old.bin");
  {
    std::vector<char> block(std::size_t(1) << 20, 'x');
    std::FILE* file = std::fopen(old_output.c_str(), "wb");
    ASSERT_NE(file, nullptr);
    for (std::size_t done = 0; done < bytes; done += block.size()) std::fwrite(block.data(), 1, block.size(), file);
    std::fflush(file);
    ::fsync(fileno(file));  // clean pages, still cached
    std::fclose(file);
  }
  auto resident = [&] {
    int const fd = ::open(old_output.c_str(), O_RDONLY);
    void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    std::vector<unsigned char> pages(bytes / std::size_t(::sysconf(_SC_PAGESIZE)));
    EXPECT_EQ(::mincore(map, bytes, pages.data()), 0);
    ::munmap(map, bytes);
    return std::size_t(std::count_if(pages.begin(), pages.end(), [](unsigned char p) { return (p & 1) != 0; }));
  };
  std::size_t const before = resident();
  ASSERT_GT(before, 0u) << "the file's pages were not cached to begin with";
  AtomicOutput output(old_output);
  EXPECT_LT(resident(), before / 8) << "of " << before << " cached pages";
  EXPECT_EQ(std::filesystem::file_size(old_output), bytes);
}

// An output's disk writes start a block at a time as each write completes one; the blocks a write
// started are the whole ones it finished, each once however the writes are cut.
TEST(Writeback, StartsEachCompletedBlockOnce) {
  constexpr std::uint64_t block = writeback_block;
  EXPECT_EQ(writeback_range(block - 1, block - 1).length, 0u);
  ByteRange const first = writeback_range(block + 10, 20);
  EXPECT_EQ(first.offset, 0u);
  EXPECT_EQ(first.length, block);
  ByteRange const three = writeback_range(4 * block, 3 * block);  // from the end of block 0 to that of block 3
  EXPECT_EQ(three.offset, block);
  EXPECT_EQ(three.length, 3 * block);
  EXPECT_EQ(writeback_range(100, 1000).length, 0u);  // a write longer than the offset: from 0
  // Writes of every size from 1 to 3 blocks start each block exactly once, in order.
  for (std::uint64_t piece : {std::uint64_t(4096), block / 3, block, block + 12345}) {
    std::uint64_t end = 0, next = 0;
    while (end < 5 * block) {
      end += piece;
      ByteRange const r = writeback_range(end, piece);
      if (r.length == 0) continue;
      EXPECT_EQ(r.offset, next) << "piece " << piece;
      next = r.offset + r.length;
    }
    EXPECT_EQ(next, end / block * block) << "piece " << piece;
  }
}

// A text output longer than a writeback block is written in pieces: the same bytes.
TEST_F(ImageFiles, LongTextOutputsAreWrittenWhole) {
  std::string text;
  for (int i = 0; text.size() < writeback_block * 2 + 777; ++i) text += std::to_string(i) + ",x\n";
  write_text_file(path("long.csv"), text);
  EXPECT_EQ(read_bytes("long.csv"), text);
}

TEST_F(ImageFiles, WritesAreAtomic) {
  auto const image = test::noise_u8(20, 10, 14);
  write_image(path("keep.png"), image);
  std::string const before = read_bytes("keep.png");
  // A float image cannot be a PNG: the write fails, the old file stays, no temporary is left.
  auto const floats = test::noise_f32(20, 10, 15);
  try {
    write_image(path("keep.png"), floats);
    FAIL();
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("keep.png"), std::string::npos);
  }
  EXPECT_EQ(read_bytes("keep.png"), before);
  EXPECT_EQ(entries(), std::vector<std::string>{"keep.png"});
  EXPECT_THROW(write_image(path("x.jpg"), image), Error);
  EXPECT_THROW(write_image(path("no/such/folder/x.png"), image), Error);
  EXPECT_THROW(write_image(path("rgb.pgm"), test::noise_rgb8(2, 2, 1)), Error);
  EXPECT_EQ(entries(), std::vector<std::string>{"keep.png"});
  {
    AtomicOutput output(path("never.txt"));
    std::ofstream(output.temp_path()) << "partial";
    // destroyed without commit(): the temporary goes, the final name never appears
  }
  EXPECT_EQ(entries(), std::vector<std::string>{"keep.png"});
  write_text_file(path("table.csv"), "a,b\n1,2\n");
  EXPECT_EQ(read_bytes("table.csv"), "a,b\n1,2\n");
}

}  // namespace
}  // namespace gigaseg
