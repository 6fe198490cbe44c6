// OME-Zarr outputs and Zarr inputs (core/io/zarr_file.cpp): every pixel type written as an OME-Zarr
// image and read back the same, whole and by region, with and without compression, at sizes with
// edge chunks and several levels; the levels are the 2 x 2 reduction of the one before (the most
// common label, the mean otherwise); the metadata is NGFF 0.4's; an output already there is
// replaced whole, a failed one leaves nothing; names and folders that are not Zarr are refused.
// python3-zarr reads the same files in the command-line tests (tests/readers/test_readers.py).
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "tests/generators.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace gigaseg {
namespace {

namespace fs = std::filesystem;

class ZarrFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gigaseg-zarr-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(std::string const& name) const { return dir_ + "/" + name; }
  std::string dir_;
};

template <class T>
void expect_same(AnyHostImage const& read, HostImage<T> const& expected) {
  ASSERT_TRUE(std::holds_alternative<HostImage<T>>(read)) << "read as " << to_string(pixel_type(read));
  EXPECT_EQ(test::count_differences(std::get<HostImage<T>>(read), expected), 0);
}

template <class T>
void expect_round_trip(std::string const& file, HostImage<T> const& image, WriteOptions const& options) {
  write_image(file, image, options);
  EXPECT_EQ(detect_format(file), ImageFormat::zarr);
  expect_same(read_image(file), image);
  ImageShape const shape = image_shape(file);
  EXPECT_EQ(shape.width, image.width());
  EXPECT_EQ(shape.height, image.height());
  EXPECT_EQ(shape.block_width, 512);
  // A region across chunk edges is the same rectangle of the whole image.
  index_t const x = image.width() / 3, y = image.height() / 4;
  index_t const w = std::max<index_t>(1, image.width() - x - 1), h = std::max<index_t>(1, image.height() - y - 1);
  HostImage<T> const part = image.roi(x, y, std::min(w, image.width() - x), std::min(h, image.height() - y));
  expect_same(read_image_region(file, Region{x, y, part.width(), part.height()}), part);
}

TEST_F(ZarrFiles, EveryPixelTypeRoundTripsWholeAndByRegion) {
  for (bool compress : {true, false})
    for (auto [w, h] : {std::pair<index_t, index_t>{1, 1}, {700, 513}, {1300, 40}}) {
      SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + (compress ? " blosc" : " none"));
      WriteOptions options;
      options.tiff_compression = compress ? TiffCompression::deflate : TiffCompression::none;
      expect_round_trip(path("a.ome.zarr"), test::noise_u8(w, h, 1), options);
      expect_round_trip(path("b.ome.zarr"), test::noise_u16(w, h, 2), options);
      expect_round_trip(path("c.ome.zarr"), test::noise_f32(w, h, 3), options);
      expect_round_trip(path("d.ome.zarr"), test::noise_rgb8(w, h, 4), options);
      HostImage<std::uint32_t> labels("labels", w, h);
      for (index_t yy = 0; yy < h; ++yy)
        for (index_t xx = 0; xx < w; ++xx) labels(yy, xx) = std::uint32_t(yy * w + xx) * 2654435761u;
      expect_round_trip(path("e.ome.zarr"), labels, options);
    }
}

TEST_F(ZarrFiles, LevelsHalveByTheBlockRule) {
  // Labels: each 2 x 2 block holds label 7 three times and 5 once: level 1 is all 7; the last
  // column of the odd width makes blocks of one 7 above one 9, a tie, which the first (7) wins.
  index_t const w = 1025, h = 600;
  HostImage<std::uint32_t> labels("labels", w, h);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) labels(y, x) = x == w - 1 ? (y % 2 == 0 ? 7 : 9) : (x % 2 && y % 2) ? 5 : 7;
  write_image(path("l.ome.zarr"), labels, WriteOptions{});
  AnyHostImage const level1 = read_image(path("l.ome.zarr/1"));
  auto const& reduced = std::get<HostImage<std::uint32_t>>(level1);
  ASSERT_EQ(reduced.width(), 513);
  ASSERT_EQ(reduced.height(), 300);
  index_t wrong = 0;
  for (index_t y = 0; y < reduced.height(); ++y)
    for (index_t x = 0; x < reduced.width(); ++x) wrong += reduced(y, x) != 7;
  EXPECT_EQ(wrong, 0);
  // Level 2 (257 x 150) is the last: its largest side is at most 512.
  EXPECT_TRUE(fs::exists(path("l.ome.zarr/2/.zarray")));
  EXPECT_FALSE(fs::exists(path("l.ome.zarr/3")));
  // Gray: the mean, rounded.
  HostImage<std::uint8_t> gray("gray", 1030, 2);
  for (index_t x = 0; x < gray.width(); ++x) gray(0, x) = 10, gray(1, x) = x % 2 ? 13 : 10;
  write_image(path("g.ome.zarr"), gray, WriteOptions{});
  auto const half = std::get<HostImage<std::uint8_t>>(read_image(path("g.ome.zarr/1")));
  EXPECT_EQ(int(half(0, 0)), 11);  // (10 + 10 + 10 + 13) / 4 = 10.75
}

TEST_F(ZarrFiles, MetadataIsNgffZeroFour) {
  WriteOptions options;
  options.microns_per_pixel_x = 0.25;
  options.microns_per_pixel_y = 0.5;
  write_image(path("cells.ome.zarr"), HostImage<std::uint32_t>("labels", 1100, 300), options);
  std::ifstream in(path("cells.ome.zarr/.zattrs"));
  std::string const text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char const* expected : {"\"version\": \"0.4\"", "\"image-label\"", "\"unit\": \"micrometer\"", "\"path\": \"2\"",
                               "\"type\": \"mode\"", "\"name\": \"cells\""})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << " in " << text;
  EXPECT_TRUE(fs::exists(path("cells.ome.zarr/.zgroup")));
  write_image(path("gray.ome.zarr"), test::noise_u8(30, 20, 5), WriteOptions{});
  std::ifstream gray(path("gray.ome.zarr/.zattrs"));
  std::string const plain((std::istreambuf_iterator<char>(gray)), std::istreambuf_iterator<char>());
  EXPECT_EQ(plain.find("image-label"), std::string::npos);
  EXPECT_NE(plain.find("\"type\": \"mean\""), std::string::npos);
}

TEST_F(ZarrFiles, AnOutputIsReplacedWholeAndBadNamesAndFoldersAreRefused) {
  write_image(path("x.ome.zarr"), test::noise_u8(1200, 900, 6), WriteOptions{});
  EXPECT_TRUE(fs::exists(path("x.ome.zarr/2")));
  write_image(path("x.ome.zarr"), test::noise_u8(40, 30, 7), WriteOptions{});
  EXPECT_FALSE(fs::exists(path("x.ome.zarr/1"))) << "the old output's levels went with it";
  expect_same(read_image(path("x.ome.zarr")), test::noise_u8(40, 30, 7));
  // Nothing but the output (no temporary) is left in the folder.
  int entries = 0;
  for (auto const& entry : fs::directory_iterator(dir_)) entries += entry.path().filename() == "x.ome.zarr" ? 0 : 1;
  EXPECT_EQ(entries, 0);
  EXPECT_THROW(write_image(path("x.zarr"), test::noise_u8(4, 4, 8), WriteOptions{}), Error);
  fs::create_directory(path("empty"));
  try {
    read_image(path("empty"));
    FAIL() << "a folder read as an image";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
  }
  fs::create_directory(path("group.zarr"));
  std::ofstream(path("group.zarr/.zgroup")) << "{\"zarr_format\": 2}";
  std::ofstream(path("group.zarr/.zattrs")) << "{}";
  try {
    read_image(path("group.zarr"));
    FAIL() << "a group without multiscales read as an image";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_NE(std::string(e.what()).find("multiscales"), std::string::npos) << e.what();
  }
  try {
    read_image_region(path("x.ome.zarr"), Region{30, 0, 20, 5});
    FAIL() << "a region past the image";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
  }
}

}  // namespace
}  // namespace gigaseg
