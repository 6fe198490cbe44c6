// FITS input (core/io/fits_file.cpp), against files written here with cfitsio itself: 8-bit,
// unsigned 16- and 32-bit integers as they are; signed integers with BSCALE/BZERO and BLANK, and
// 32/64-bit floats with NaN, as float with the scaling applied and NaN for no data; a
// tile-compressed image in an extension, read by region; the shape and its decoding blocks; a cube
// (3 axes), a truncated file and a region outside the image refused, naming the file.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/image_file.hpp"

#include <fitsio.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace gigaseg {
namespace {

std::string fits_path(std::string const& name) {
  return (std::filesystem::temp_directory_path() / ("gigaseg-test-" + name + ".fits")).string();
}

// Writes a width x height image of BITPIX `bitpix` (with `compress`: RICE-compressed 16 x 8 tiles,
// in an extension) whose pixels are `values` (row 1 first), given as `datatype`; `keys` adds
// BSCALE/BZERO/BLANK as (name, value) before the pixels.
template <class T>
std::string write_fits(std::string const& name, int bitpix, int datatype, long width, long height,
                       std::vector<T> values, std::vector<std::pair<char const*, double>> const& keys = {},
                       bool compress = false) {
  std::string const path = fits_path(name);
  std::filesystem::remove(path);
  int status = 0;
  fitsfile* f = nullptr;
  std::string const target = compress ? path + "[compress R 16,8]" : path;
  fits_create_file(&f, target.c_str(), &status);
  long size[2] = {width, height};
  fits_create_img(f, bitpix, 2, size, &status);
  for (auto const& [key, value] : keys) {
    double v = value;
    long integer = long(value);  // BLANK is an integer keyword
    if (std::string(key) == "BLANK")
      fits_update_key(f, TLONG, key, &integer, nullptr, &status);
    else
      fits_update_key(f, TDOUBLE, key, &v, nullptr, &status);
  }
  // Write the stored values as they are (no scaling by the keys written above).
  if (!keys.empty()) fits_set_bscale(f, 1.0, 0.0, &status);
  for (auto const& [key, value] : keys)
    if (std::string(key) == "BLANK") fits_set_imgnull(f, long(value), &status);
  fits_write_img(f, datatype, 1, width * height, values.data(), &status);
  fits_close_file(f, &status);
  EXPECT_EQ(status, 0) << "cfitsio could not write " << path;
  return path;
}

TEST(Fits, UnsignedIntegersAreReadAsTheyAre) {
  std::vector<unsigned char> bytes(6 * 4);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 10);
  std::string const u8 = write_fits("u8", BYTE_IMG, TBYTE, 6, 4, bytes);
  EXPECT_EQ(detect_format(u8), ImageFormat::fits);
  AnyHostImage const image = read_image(u8);
  ASSERT_TRUE(std::holds_alternative<HostImage<std::uint8_t>>(image));
  auto const& pixels = std::get<HostImage<std::uint8_t>>(image);
  EXPECT_EQ(pixels.width(), 6);
  EXPECT_EQ(pixels.height(), 4);
  EXPECT_EQ(pixels(0, 0), 0);
  EXPECT_EQ(pixels(2, 3), 150) << "row 1 of the file is y = 0";
  ImageShape const shape = image_shape(u8);
  EXPECT_EQ(shape.width, 6);
  EXPECT_EQ(shape.block_width, 6);
  EXPECT_EQ(shape.block_height, 1);

  std::vector<unsigned short> words(5 * 3);
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = static_cast<unsigned short>(60000 + i);
  std::string const u16 = write_fits("u16", USHORT_IMG, TUSHORT, 5, 3, words);  // BITPIX 16, BZERO 32768
  AnyHostImage const words_image = read_image(u16);
  auto const& w = std::get<HostImage<std::uint16_t>>(words_image);
  EXPECT_EQ(w(2, 4), 60014);
  std::vector<unsigned int> longs{4000000000u, 1u, 2u, 3u};
  std::string const u32 = write_fits("u32", ULONG_IMG, TUINT, 2, 2, longs);  // BITPIX 32, BZERO 2^31
  AnyHostImage const longs_image = read_image(u32);
  auto const& l = std::get<HostImage<std::uint32_t>>(longs_image);
  EXPECT_EQ(l(0, 0), 4000000000u);
  EXPECT_EQ(l(1, 1), 3u);
  for (auto const& path : {u8, u16, u32}) std::filesystem::remove(path);
}

TEST(Fits, ScaledIntegersAndFloatsAreFloatWithNoDataAsNaN) {
  // Signed 16-bit stored values v, physical 0.5 v + 10; BLANK -1 is no data.
  std::vector<short> stored{-1, 0, 2, -4, 100, -1};
  std::string const scaled =
      write_fits("scaled", SHORT_IMG, TSHORT, 3, 2, stored, {{"BSCALE", 0.5}, {"BZERO", 10.0}, {"BLANK", -1.0}});
  AnyHostImage const image = read_image(scaled);
  ASSERT_TRUE(std::holds_alternative<HostImage<float>>(image));
  auto const& f = std::get<HostImage<float>>(image);
  EXPECT_TRUE(std::isnan(f(0, 0)));
  EXPECT_EQ(f(0, 1), 10.f);
  EXPECT_EQ(f(0, 2), 11.f);
  EXPECT_EQ(f(1, 0), 8.f);
  EXPECT_EQ(f(1, 1), 60.f);
  EXPECT_TRUE(std::isnan(f(1, 2)));
  float const nan = std::nanf("");
  std::string const floats = write_fits("f32", FLOAT_IMG, TFLOAT, 2, 2, std::vector<float>{1.5f, nan, -2.f, 3.25f});
  AnyHostImage const floats_image = read_image(floats);
  auto const& g = std::get<HostImage<float>>(floats_image);
  EXPECT_EQ(g(0, 0), 1.5f);
  EXPECT_TRUE(std::isnan(g(0, 1)));
  EXPECT_EQ(g(1, 1), 3.25f);
  std::string const doubles = write_fits("f64", DOUBLE_IMG, TDOUBLE, 2, 1, std::vector<double>{0.1, -7.0});
  AnyHostImage const doubles_image = read_image(doubles);
  auto const& d = std::get<HostImage<float>>(doubles_image);
  EXPECT_EQ(d(0, 0), 0.1f);
  EXPECT_EQ(d(0, 1), -7.f);
  for (auto const& path : {scaled, floats, doubles}) std::filesystem::remove(path);
}

TEST(Fits, TileCompressedImagesAreReadByRegion) {
  long const width = 70, height = 45;
  std::vector<short> values(std::size_t(width * height));
  for (long y = 0; y < height; ++y)
    for (long x = 0; x < width; ++x) values[std::size_t(y * width + x)] = short(x * 3 - y * 7);
  std::string const path = write_fits("rice", SHORT_IMG, TSHORT, width, height, values, {}, true);
  ImageShape const shape = image_shape(path);
  EXPECT_EQ(shape.width, width);
  EXPECT_EQ(shape.height, height);
  EXPECT_EQ(shape.block_width, 16);
  EXPECT_EQ(shape.block_height, 8);
  AnyHostImage const part = read_image_region(path, Region{13, 9, 30, 20});
  auto const& p = std::get<HostImage<float>>(part);
  ASSERT_EQ(p.width(), 30);
  ASSERT_EQ(p.height(), 20);
  for (index_t y = 0; y < 20; ++y)
    for (index_t x = 0; x < 30; ++x) ASSERT_EQ(p(y, x), float((13 + x) * 3 - (9 + y) * 7)) << x << "," << y;
  AnyHostImage const whole_image = read_image(path);
  auto const& whole = std::get<HostImage<float>>(whole_image);
  EXPECT_EQ(whole(44, 69), float(69 * 3 - 44 * 7));
  EXPECT_THROW(read_image_region(path, Region{60, 0, 20, 5}), Error) << "a region past the image";
  std::filesystem::remove(path);
}

TEST(Fits, CubesAndTruncatedFilesAreInputErrorsNamingTheFile) {
  std::string const cube = fits_path("cube");
  std::filesystem::remove(cube);
  int status = 0;
  fitsfile* f = nullptr;
  fits_create_file(&f, cube.c_str(), &status);
  long size[3] = {4, 4, 3};
  fits_create_img(f, BYTE_IMG, 3, size, &status);
  std::vector<unsigned char> zeros(48, 0);
  fits_write_img(f, TBYTE, 1, 48, zeros.data(), &status);
  fits_close_file(f, &status);
  ASSERT_EQ(status, 0);
  try {
    read_image(cube);
    FAIL() << "a cube was read";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_EQ(e.subject(), cube);
    EXPECT_NE(std::string(e.what()).find("3 axes"), std::string::npos) << e.what();
  }
  std::vector<unsigned char> bytes(100 * 100, 7);
  std::string const whole = write_fits("whole", BYTE_IMG, TBYTE, 100, 100, bytes);
  std::string const cut = fits_path("cut");
  {
    std::ifstream in(whole, std::ios::binary);
    std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(cut, std::ios::binary).write(data.data(), 2880 + 4000);  // the header and part of the pixels
  }
  try {
    read_image(cut);
    FAIL() << "a truncated file was read";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_EQ(e.subject(), cut);
  }
  for (auto const& path : {cube, whole, cut}) std::filesystem::remove(path);
}

}  // namespace
}  // namespace gigaseg
