// Whole-slide input through OpenSlide (core/io/slide_file.cpp), against Aperio SVS files written
// here with libtiff (slide_writer.hpp): recognised as slides, their levels, size and resolution;
// uncompressed slides read to the exact pixels at level 0 and at reduced levels, whole and by
// region; regions that cross the read chunks equal the whole read; --level / --mpp choices;
// the premultiplied compositing; JPEG slides read alike by region and whole; a corrupt tile and a
// file OpenSlide rejects are input errors naming the file.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "tests/slide_writer.hpp"

#include <gtest/gtest.h>

#include <tiffio.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace gigaseg {
namespace {

std::string slide_path(std::string const& name) {
  return (std::filesystem::temp_directory_path() / ("gigaseg-test-" + name + ".svs")).string();
}

std::string write_slide(std::string const& name, test::SlideSpec const& spec) {
  std::string const path = slide_path(name);
  std::filesystem::remove(path);
  test::write_svs(path, spec);
  return path;
}

// The read options are process-wide: each test puts back the default.
struct LevelChoice {
  explicit LevelChoice(ReadOptions const& options) { set_default_read_options(options); }
  ~LevelChoice() { set_default_read_options(ReadOptions{}); }
};

HostImage<Rgb8> rgb(AnyHostImage const& image) {
  auto const* colour = std::get_if<HostImage<Rgb8>>(&image);
  EXPECT_NE(colour, nullptr) << "a slide reads as 8-bit RGB";
  return colour != nullptr ? *colour : HostImage<Rgb8>();
}

// Pixels of `image` that differ from the level's truth at (x0, y0).
index_t differences(HostImage<Rgb8> const& image, index_t x0, index_t y0, int downsample) {
  index_t count = 0;
  for (index_t y = 0; y < image.height(); ++y)
    for (index_t x = 0; x < image.width(); ++x) {
      test::Rgb const t = test::slide_level_pixel(x0 + x, y0 + y, downsample);
      Rgb8 const p = image(y, x);
      count += (p.r != t.r || p.g != t.g || p.b != t.b) ? 1 : 0;
    }
  return count;
}

index_t differences(HostImage<Rgb8> const& a, HostImage<Rgb8> const& b, index_t bx, index_t by) {
  index_t count = 0;
  for (index_t y = 0; y < a.height(); ++y)
    for (index_t x = 0; x < a.width(); ++x) count += a(y, x) != b(by + y, bx + x) ? 1 : 0;
  return count;
}

TEST(Slide, AnUncompressedSvsReadsToItsExactPixelsAtEveryLevel) {
  test::SlideSpec spec;
  spec.width = 2300;  // three read chunks across, two down
  spec.height = 1100;
  spec.tile = 256;
  spec.jpeg = false;
  spec.downsamples = {4};
  std::string const path = write_slide("exact", spec);

  EXPECT_EQ(detect_format(path), ImageFormat::slide);
  SlideInfo const info = slide_info(path);
  EXPECT_EQ(info.vendor, "aperio");
  ASSERT_EQ(info.levels.size(), 2u);
  EXPECT_EQ(info.levels[0].width, 2300);
  EXPECT_EQ(info.levels[0].height, 1100);
  EXPECT_EQ(info.levels[1].width, 575);
  EXPECT_EQ(info.levels[1].height, 275);
  EXPECT_DOUBLE_EQ(info.levels[1].downsample, 4.0);
  EXPECT_NEAR(info.mpp_x, 0.25, 1e-9);
  EXPECT_NEAR(info.objective_power, 40, 1e-9);

  ImageShape const shape = image_shape(path);
  EXPECT_EQ(shape.width, 2300);
  EXPECT_EQ(shape.height, 1100);
  EXPECT_NEAR(shape.microns_per_pixel_x, 0.25, 1e-9);

  HostImage<Rgb8> const whole = rgb(read_image(path));
  ASSERT_EQ(whole.width(), 2300);
  EXPECT_EQ(differences(whole, 0, 0, 1), 0);
  // Regions inside one chunk, across chunk edges and corners, and at the image's edges; those of
  // 1 Mpixel or more are painted in one band a thread, the bands' edges on the slide's tile rows.
  for (int const threads : {1, 2, 3}) {
    set_io_threads(threads);
    for (Region const r :
         {Region{5, 7, 100, 90}, Region{1000, 1000, 60, 100}, Region{1020, 10, 1100, 1030}, Region{2200, 1050, 100, 50},
          Region{0, 0, 2300, 1}, Region{3, 0, 1024, 1024}, Region{0, 0, 2048, 1028}})
      EXPECT_EQ(differences(rgb(read_image_region(path, r)), whole, r.x, r.y), 0)
          << r.width << "x" << r.height << " at " << r.x << "," << r.y << " on " << threads << " threads";
  }
  set_io_threads(0);

  LevelChoice const level1(ReadOptions{1, 0});
  HostImage<Rgb8> const reduced = rgb(read_image(path));
  ASSERT_EQ(reduced.width(), 575);
  ASSERT_EQ(reduced.height(), 275);
  EXPECT_EQ(differences(reduced, 0, 0, 4), 0);
  EXPECT_NEAR(image_shape(path).microns_per_pixel_x, 1.0, 1e-9);
  EXPECT_EQ(differences(rgb(read_image_region(path, Region{500, 200, 75, 75})), reduced, 500, 200), 0);
  std::filesystem::remove(path);
}

TEST(Slide, TheLevelIsChosenByNumberOrByTheNearestResolution) {
  test::SlideSpec spec;
  spec.width = 1024;
  spec.height = 512;
  spec.tile = 128;
  spec.downsamples = {4, 16};
  std::string const path = write_slide("levels", spec);
  SlideInfo const info = slide_info(path);
  ASSERT_EQ(info.levels.size(), 3u);
  // 0.25, 1 and 4 microns per pixel.
  EXPECT_EQ(detail::slide_level(path, info, ReadOptions{0, 0.3}), 0);
  EXPECT_EQ(detail::slide_level(path, info, ReadOptions{0, 0.6}), 1);
  EXPECT_EQ(detail::slide_level(path, info, ReadOptions{0, 1.9}), 1);
  EXPECT_EQ(detail::slide_level(path, info, ReadOptions{0, 2.1}), 2);
  EXPECT_EQ(detail::slide_level(path, info, ReadOptions{0, 50}), 2);
  EXPECT_EQ(detail::slide_level(path, info, ReadOptions{2, 0}), 2);
  {
    LevelChoice const choice(ReadOptions{0, 3.0});
    EXPECT_EQ(image_shape(path).width, 64);
  }
  try {
    LevelChoice const choice(ReadOptions{3, 0});
    image_shape(path);
    FAIL() << "level 3 of a slide with 3 levels";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_EQ(e.subject(), path);
    EXPECT_NE(std::string(e.what()).find("has 3 levels"), std::string::npos) << e.what();
  }
  test::SlideSpec unstated = spec;
  unstated.mpp = 0;
  std::string const plain = write_slide("no-mpp", unstated);
  try {
    LevelChoice const choice(ReadOptions{0, 1.0});
    image_shape(plain);
    FAIL() << "a resolution asked of a slide that states none";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_EQ(e.subject(), plain);
  }
  for (auto const& p : {path, plain}) std::filesystem::remove(p);
}

TEST(Slide, PremultipliedPixelsAreCompositedOverTheBackground) {
  Rgb8 const white{255, 255, 255}, grey{200, 100, 50};
  EXPECT_EQ(detail::over_background(0xff102030u, white), (Rgb8{0x10, 0x20, 0x30}));  // opaque: as it is
  EXPECT_EQ(detail::over_background(0x00000000u, white), white);                     // transparent: the background
  EXPECT_EQ(detail::over_background(0x00000000u, grey), grey);
  // Half covered red (premultiplied 128,0,0 at alpha 128) over white: 128 + 127 = 255, 127, 127.
  EXPECT_EQ(detail::over_background(0x80800000u, white), (Rgb8{255, 127, 127}));
  EXPECT_EQ(detail::over_background(0x80800000u, grey), (Rgb8{228, 50, 25}));
}

TEST(Slide, JpegSlidesReadAlikeWholeAndByRegionAtAFractionalDownsample) {
  test::SlideSpec spec;
  spec.width = 2101;  // a level of 700 x 433: OpenSlide's downsample 3.0014..., not a whole number
  spec.height = 1300;
  spec.tile = 240;
  spec.downsamples = {3};
  std::string const path = write_slide("jpeg", spec);
  HostImage<Rgb8> const whole = rgb(read_image(path));
  // JPEG at quality 80 stays near the truth.
  double error = 0;
  for (index_t y = 0; y < whole.height(); y += 7)
    for (index_t x = 0; x < whole.width(); x += 7) {
      test::Rgb const t = test::slide_pixel(x, y);
      error += std::abs(int(whole(y, x).g) - int(t.g));
    }
  EXPECT_LT(error / double((whole.height() / 7 + 1) * (whole.width() / 7 + 1)), 12.0);
  for (Region const r : {Region{1000, 1000, 60, 100}, Region{1010, 0, 1091, 1300}})
    EXPECT_EQ(differences(rgb(read_image_region(path, r)), whole, r.x, r.y), 0);
  LevelChoice const level1(ReadOptions{1, 0});
  HostImage<Rgb8> const reduced = rgb(read_image(path));
  ASSERT_EQ(reduced.width(), 700);
  for (Region const r : {Region{0, 0, 700, 433}, Region{300, 100, 399, 333}, Region{13, 411, 687, 22}})
    EXPECT_EQ(differences(rgb(read_image_region(path, r)), reduced, r.x, r.y), 0);
  std::filesystem::remove(path);
}

TEST(Slide, ACorruptTileAndARejectedSlideAreInputErrorsNamingTheFile) {
  test::SlideSpec spec;
  spec.width = 1200;
  spec.height = 800;
  spec.tile = 240;
  spec.downsamples = {4};
  std::string const path = write_slide("corrupt", spec);
  // Overwrite the middle of a tile in the middle of level 0 with garbage.
  {
    TIFF* tiff = TIFFOpen(path.c_str(), "r");
    ASSERT_NE(tiff, nullptr);
    toff_t* offsets = nullptr;
    ASSERT_TRUE(TIFFGetField(tiff, TIFFTAG_TILEOFFSETS, &offsets));
    std::uint32_t const tile = TIFFComputeTile(tiff, 600, 400, 0, 0);
    toff_t const at = offsets[tile];
    TIFFClose(tiff);
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(std::streamoff(at));
    std::string const garbage(64, '\xff');
    file.write(garbage.data(), std::streamsize(garbage.size()));
  }
  try {
    read_image_region(path, Region{480, 240, 480, 480});
    FAIL() << "a corrupt tile was read";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_EQ(e.subject(), path);
    EXPECT_NE(std::string(e.what()).find("OpenSlide"), std::string::npos) << e.what();
  }
  // After the failure the slide opens afresh: a region whose read chunk misses the bad tile reads.
  EXPECT_EQ(rgb(read_image_region(path, Region{1024, 0, 176, 200})).width(), 176);

  // A MIRAX slide (an index file and a folder of data) whose Slidedat.ini OpenSlide cannot parse:
  // OpenSlide knows the vendor and rejects the slide.
  auto const folder = std::filesystem::temp_directory_path() / "gigaseg-test-mirax";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder / "slide");
  std::string const mirax = (folder / "slide.mrxs").string();
  std::ofstream(mirax) << "[GENERAL]\nSLIDE_VERSION=01.02\n";
  std::ofstream(folder / "slide" / "Slidedat.ini") << "not a key file\n";
  EXPECT_EQ(detect_format(mirax), ImageFormat::slide);
  for (int read = 0; read < 2; ++read) try {
      if (read == 0)
        read_image(mirax);
      else
        slide_info(mirax);
      FAIL() << "OpenSlide's rejected slide was read";
    } catch (Error const& e) {
      EXPECT_EQ(e.kind(), ErrorKind::input);
      EXPECT_EQ(e.subject(), mirax);
      EXPECT_NE(std::string(e.what()).find("Slidedat.ini"), std::string::npos) << e.what();
    }
  std::filesystem::remove_all(folder);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gigaseg
