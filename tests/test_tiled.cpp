// Labelling under tiling on every backend: label_tiled on a TIFF must give, pixel for pixel, the
// labels of label() on the whole image in memory and the statistics of region_stats(), for small
// tiles (so that most components cross tile edges and corners), rectangular tiles, 4- and
// 8-connectivity, equal-value class maps, striped and tiled inputs, colour, and adversarial
// images: one component through every tile, chains of pixels that touch only diagonally at tile
// corners, a spiral whose first pixel is in the last tile it crosses.
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/distance.hpp"
#include "gigaseg/algorithms/filters.hpp"
#include "gigaseg/algorithms/histogram.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/markers.hpp"
#include "gigaseg/algorithms/pipelines/cells.hpp"
#include "gigaseg/algorithms/pipelines/kmeans_segment.hpp"
#include "gigaseg/algorithms/pipelines/nuclei.hpp"
#include "gigaseg/algorithms/pipelines/synthetic.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/algorithms/watershed.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/engine/tile_pipeline.hpp"
#include "gigaseg/engine/tile_reader.hpp"
#include "gigaseg/engine/tiled.hpp"
#include "tests/backends.hpp"
#include "tests/generators.hpp"
#include "tests/stain_image.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <vector>
#include <string>
#include <thread>
#include <unistd.h>

namespace gigaseg {
namespace {

template <class ExecSpace>
class Tiled : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gigaseg-tiled-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (char const* name : {"in.tif", "out.tif", "markers.tif", "mask.tif"}) std::remove((dir_ + "/" + name).c_str());
    rmdir(dir_.c_str());
  }
  std::string path(char const* name) const { return dir_ + "/" + name; }
  std::string dir_;
};
GIGASEG_BACKEND_TEST_SUITE(Tiled);

template <class Space>
ContextOptions context_on() {
  ContextOptions options;
#ifdef KOKKOS_ENABLE_SERIAL
  if (std::is_same<Space, Kokkos::Serial>::value) options.backend = Backend::serial;
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (std::is_same<Space, Kokkos::OpenMP>::value) options.backend = Backend::openmp;
#endif
#ifdef KOKKOS_ENABLE_CUDA
  if (std::is_same<Space, Kokkos::Cuda>::value) options.backend = Backend::cuda;
#endif
  options.set_small_image_pixels(0);
  return options;
}

// Masks with many components of every shape: noise thresholded at `percent`.
HostImage<std::uint8_t> noise_mask(index_t w, index_t h, int percent, std::uint64_t seed) {
  auto mask = test::noise_u8(w, h, seed);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) mask(y, x) = mask(y, x) < percent * 255 / 100 ? std::uint8_t(1 + x % 200) : 0;
  return mask;
}

// A one-pixel-wide spiral from the outside in: one component crossing every tile, whose first
// pixel in raster order is on the first row while its other end is in the middle.
HostImage<std::uint8_t> spiral(index_t side) {
  HostImage<std::uint8_t> image("spiral", side, side);
  for (index_t y = 0; y < side; ++y)
    for (index_t x = 0; x < side; ++x) image(y, x) = 0;
  index_t x0 = 0, y0 = 0, x1 = side - 1, y1 = side - 1;
  while (x0 <= x1 && y0 <= y1) {
    for (index_t x = x0; x <= x1; ++x) image(y0, x) = 9;
    for (index_t y = y0; y <= y1; ++y) image(y, x1) = 9;
    for (index_t x = x0; x <= x1; ++x) image(y1, x) = 9;
    for (index_t y = y0 + 2; y <= y1; ++y) image(y, x0) = 9;
    if (x0 + 2 <= x1) image(y0 + 2, x0 + 1) = 9;
    x0 += 2;
    y0 += 2;
    x1 -= 2;
    y1 -= 2;
  }
  return image;
}

// Diagonal chains: pixels that touch only at corners, placed so that many meet at tile corners.
HostImage<std::uint8_t> diagonals(index_t w, index_t h) {
  HostImage<std::uint8_t> image("diagonals", w, h);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) image(y, x) = ((x + y) % 16 == 0 || (x - y + 4 * h) % 16 == 0) ? 5 : 0;
  return image;
}

// Class maps: equal values connected (equal-value mode).
HostImage<std::uint8_t> classes(index_t w, index_t h) {
  HostImage<std::uint8_t> image("classes", w, h);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) image(y, x) = std::uint8_t(((x / 5) + (y / 7) * 3 + (x * y) % 3) % 4);
  return image;
}

// An 8-bit gray image as it is, a colour one as its BT.601 gray (as the pipelines read them).
HostImage<std::uint8_t> gray_of(AnyHostImage const& image) {
  if (auto const* gray = std::get_if<HostImage<std::uint8_t>>(&image)) return *gray;
  auto const& rgb = std::get<HostImage<Rgb8>>(image);
  HostImage<std::uint8_t> gray("gray", rgb.width(), rgb.height());
  Kokkos::DefaultHostExecutionSpace host;
  rgb_to_gray(host, ImageView<Rgb8 const, Kokkos::HostSpace>(rgb), gray);
  host.fence();
  return gray;
}

// run() must throw Error(input) naming the input file in.tif, and leave nothing at `output`.
template <class Run>
void expect_input_error(Run&& run, std::string const& output, char const* otherwise) {
  try {
    run();
    ADD_FAILURE() << otherwise;
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_NE(std::string(e.what()).find("in.tif"), std::string::npos) << e.what();
  }
  EXPECT_NE(access(output.c_str(), F_OK), 0) << "nothing under the output's name";
}

template <class Space, class T>
void expect_tiled_equals_memory(std::string const& in, std::string const& out, HostImage<T> const& image,
                                LabelParams params, TiledOptions options, WriteOptions input_options) {
  SCOPED_TRACE("connectivity " + std::to_string(params.connectivity) + (params.equal_value ? " equal-value" : "") +
               " tiles " + std::to_string(options.tile_width) + "x" + std::to_string(options.tile_height) +
               " input tile " + std::to_string(input_options.tiff_tile));
  write_image(in, image, input_options);
  Kokkos::DefaultHostExecutionSpace host;
  HostImage<Label> expected("expected", image.width(), image.height());
  index_t const n = label(host, ImageView<T const, Kokkos::HostSpace>(image), expected, params);
  auto const stats = region_stats(host, ImageView<Label const, Kokkos::HostSpace>(expected), n,
                                  ImageView<T const, Kokkos::HostSpace>(image));
  ExecutionContext context(context_on<Space>());
  // The first pass's masks kept for the second (the default cache), and the image read again.
  for (std::size_t const cache : {options.mask_cache_bytes, std::size_t(0)}) {
    SCOPED_TRACE("mask cache " + std::to_string(cache));
    options.mask_cache_bytes = cache;
    index_t calls = 0;
    options.progress = [&](index_t done, index_t all) {
      ++calls;
      EXPECT_LE(done, all);
    };
    TiledLabelResult const result = label_tiled(context, in, out, params, true, options);
    ASSERT_EQ(result.components, n);
    AnyHostImage const written = read_image(out);
    ASSERT_TRUE(std::holds_alternative<HostImage<Label>>(written));
    EXPECT_EQ(test::count_differences(std::get<HostImage<Label>>(written), expected), 0);
    ASSERT_EQ(result.regions.size(), stats.size());
    for (std::size_t i = 0; i < stats.size(); ++i) {
      RegionStats const &a = result.regions[i], &b = stats[i];
      ASSERT_TRUE(a.label == b.label && a.area == b.area && a.x0 == b.x0 && a.y0 == b.y0 && a.x1 == b.x1 &&
                  a.y1 == b.y1 && a.cx == b.cx && a.cy == b.cy && a.perimeter == b.perimeter &&
                  a.mean_intensity == b.mean_intensity && a.min_intensity == b.min_intensity &&
                  a.max_intensity == b.max_intensity)
          << "region " << b.label << ": area " << a.area << " vs " << b.area << ", perimeter " << a.perimeter << " vs "
          << b.perimeter << ", box " << a.x0 << "," << a.y0 << "-" << a.x1 << "," << a.y1;
    }
    index_t const tiles = ((image.width() + options.tile_width - 1) / options.tile_width) *
                          ((image.height() + options.tile_height - 1) / options.tile_height);
    EXPECT_EQ(result.report.tiles, tiles);
    EXPECT_EQ(calls, 2 * tiles);
    EXPECT_EQ(result.report.pixel_bytes_written, std::size_t(image.width() * image.height()) * sizeof(Label));
    bool const kept = cache > 0 && !params.equal_value;
    EXPECT_EQ(result.report.kept_mask_bytes > 0, kept);
    std::size_t const image_bytes = std::size_t(image.width() * image.height()) * sizeof(T);
    EXPECT_EQ(result.report.pixel_bytes_read, kept ? image_bytes : 2 * image_bytes) << "the image read once or twice";
  }
}

TYPED_TEST(Tiled, LabelsAndStatisticsEqualTheWholeImage) {
  WriteOptions striped, tiled;
  tiled.tiff_tile = 32;
  TiledOptions small;
  small.tile_width = small.tile_height = 16;
  TiledOptions oblong;
  oblong.tile_width = 48;
  oblong.tile_height = 32;
  for (int connectivity : {4, 8}) {
    LabelParams params;
    params.connectivity = connectivity;
    for (int percent : {20, 60}) {
      auto const mask = noise_mask(203, 157, percent, std::uint64_t(percent));
      expect_tiled_equals_memory<TypeParam>(this->path("in.tif"), this->path("out.tif"), mask, params, small, striped);
      expect_tiled_equals_memory<TypeParam>(this->path("in.tif"), this->path("out.tif"), mask, params, oblong, tiled);
    }
    expect_tiled_equals_memory<TypeParam>(this->path("in.tif"), this->path("out.tif"), spiral(150), params, small,
                                          tiled);
    expect_tiled_equals_memory<TypeParam>(this->path("in.tif"), this->path("out.tif"), diagonals(160, 144), params,
                                          small, striped);
    LabelParams equal = params;
    equal.equal_value = true;
    expect_tiled_equals_memory<TypeParam>(this->path("in.tif"), this->path("out.tif"), classes(130, 90), equal, oblong,
                                          striped);
    auto const u16 = test::noise_u16(77, 61, 7);
    HostImage<std::uint16_t> sparse("sparse", 77, 61);
    for (index_t y = 0; y < 61; ++y)
      for (index_t x = 0; x < 77; ++x) sparse(y, x) = u16(y, x) < 30000 ? u16(y, x) : 0;
    expect_tiled_equals_memory<TypeParam>(this->path("in.tif"), this->path("out.tif"), sparse, params, small, tiled);
  }
}

// One tile as large as the image, and a tile larger than the image: the in-memory result too.
TYPED_TEST(Tiled, OneTileIsTheInMemoryCase) {
  TiledOptions big;
  big.tile_width = 256;
  big.tile_height = 512;
  expect_tiled_equals_memory<TypeParam>(this->path("in.tif"), this->path("out.tif"), noise_mask(200, 100, 40, 3),
                                        LabelParams{}, big, WriteOptions{});
}

bool same_stats(RegionStats const& a, RegionStats const& b) {
  return a.label == b.label && a.area == b.area && a.x0 == b.x0 && a.y0 == b.y0 && a.x1 == b.x1 && a.y1 == b.y1 &&
         a.cx == b.cx && a.cy == b.cy && a.perimeter == b.perimeter && a.mean_intensity == b.mean_intensity &&
         a.min_intensity == b.min_intensity && a.max_intensity == b.max_intensity;
}

// The nuclei pipeline tile by tile: the threshold, the side, the labels and the statistics of
// segment_nuclei on the whole image, on synthetic tissue (dark nuclei) and on its inverse (bright),
// gray and colour, with tiles that cut most cells.
TYPED_TEST(Tiled, NucleiPipelineEqualsTheWholeImage) {
  SyntheticParams synthetic;
  synthetic.width = 333;
  synthetic.height = 250;
  synthetic.seed = 5;
  HostImage<std::uint8_t> const tissue = synthetic_tissue(synthetic).image;
  HostImage<std::uint8_t> inverse("inverse", tissue.width(), tissue.height());
  HostImage<Rgb8> colour("colour", tissue.width(), tissue.height());
  for (index_t y = 0; y < tissue.height(); ++y)
    for (index_t x = 0; x < tissue.width(); ++x) {
      std::uint8_t const v = tissue(y, x);
      inverse(y, x) = std::uint8_t(255 - v);
      colour(y, x) = Rgb8{v, std::uint8_t(v / 2 + 40), std::uint8_t(255 - v / 3)};
    }
  Kokkos::DefaultHostExecutionSpace host;
  ExecutionContext context(context_on<TypeParam>());
  for (int connectivity : {4, 8}) {
    NucleiParams params;
    params.connectivity = connectivity;
    for (index_t tile : {index_t(16), index_t(64)}) {
      TiledOptions options;
      options.tile_width = tile;
      options.tile_height = 2 * tile;
      if (tile == 64) options.mask_cache_bytes = 0;  // the image read again in the second pass
      bool dark = false;
      auto check = [&](AnyHostImage const& image, char const* name) {
        SCOPED_TRACE(std::string(name) + " connectivity " + std::to_string(connectivity) + " tile " +
                     std::to_string(tile));
        write_image(this->path("in.tif"), image);
        HostImage<std::uint8_t> const gray = gray_of(image);
        HostImage<Label> expected("expected", gray.width(), gray.height());
        NucleiResult const memory =
            segment_nuclei(host, ImageView<std::uint8_t const, Kokkos::HostSpace>(gray), expected, params);
        TiledNucleiResult const tiled =
            segment_nuclei_tiled(context, this->path("in.tif"), this->path("out.tif"), params, options);
        EXPECT_EQ(tiled.threshold, memory.threshold);
        EXPECT_EQ(tiled.dark, memory.dark);
        ASSERT_EQ(tiled.components, memory.components);
        EXPECT_EQ(test::count_differences(std::get<HostImage<Label>>(read_image(this->path("out.tif"))), expected), 0);
        ASSERT_EQ(tiled.regions.size(), memory.regions.size());
        for (std::size_t i = 0; i < memory.regions.size(); ++i)
          ASSERT_TRUE(same_stats(tiled.regions[i], memory.regions[i])) << "region " << i + 1;
        EXPECT_EQ(tiled.report.passes, 3);
        dark = memory.dark;
      };
      check(tissue, "tissue");
      EXPECT_TRUE(dark) << "synthetic tissue has dark nuclei";
      check(inverse, "inverse");
      EXPECT_FALSE(dark) << "its inverse has bright ones";
      check(colour, "colour");
    }
  }
}

// The kmeans pipeline tile by tile: the centres, iterations, inertia, attempt, object class, labels
// and statistics of segment_kmeans() on the whole image (run on the host backend; K-means is the
// same on every backend), over the three feature spaces, restarts, a tolerance that stops the
// steps early, every way of choosing the class, gray and colour inputs, and tiles of 16 x 32 (the
// samples spread over hundreds of tiles) and 64 x 128 (the second pass reading the image again).
TYPED_TEST(Tiled, KMeansPipelineEqualsTheWholeImage) {
  HostImage<Rgb8> const stain = test::stain_image(301, 233, 11);
  HostImage<std::uint8_t> const gray = gray_of(stain);
  Kokkos::DefaultHostExecutionSpace host;
  ExecutionContext context(context_on<TypeParam>());
  struct Case {
    char const* name;
    FeatureSpace space;
    int k, attempts, object_class;
    double tolerance;
    Foreground foreground;
    int connectivity;
  };
  Case const cases[] = {
      {"rgb, k 4, auto", FeatureSpace::rgb, 4, 1, -1, 0.0, Foreground::automatic, 8},
      {"lab, k 3, 3 attempts, bright", FeatureSpace::lab, 3, 3, -1, 0.0, Foreground::bright, 4},
      {"gray, k 3, tolerance, dark", FeatureSpace::gray, 3, 1, -1, 0.5, Foreground::dark, 8},
      {"rgb, k 5, class 2, 2 attempts", FeatureSpace::rgb, 5, 2, 2, 0.0, Foreground::automatic, 4},
  };
  for (Case const& c : cases)
    for (index_t tile : {index_t(16), index_t(64)})
      for (bool colour : {true, false}) {
        if (!colour && c.space != FeatureSpace::rgb) continue;
        SCOPED_TRACE(std::string(c.name) + (colour ? " colour" : " gray") + " tile " + std::to_string(tile));
        AnyHostImage const image = colour ? AnyHostImage(stain) : AnyHostImage(gray);
        write_image(this->path("in.tif"), image);
        KMeansSegmentParams params;
        params.kmeans.k = c.k;
        params.kmeans.space = c.space;
        params.kmeans.seed = 3;
        params.kmeans.iterations = 12;
        params.kmeans.attempts = c.attempts;
        params.kmeans.tolerance = c.tolerance;
        params.object_class = c.object_class;
        params.foreground = c.foreground;
        params.connectivity = c.connectivity;
        HostImage<Rgb8> const rgb = rgb8_of(image, "in.tif", "the test");
        HostImage<Label> expected("expected", rgb.width(), rgb.height());
        KMeansSegmentResult const memory =
            segment_kmeans(host, ImageView<Rgb8 const, Kokkos::HostSpace>(rgb), expected, params);
        TiledOptions options;
        options.tile_width = tile;
        options.tile_height = 2 * tile;
        if (tile == 64) options.mask_cache_bytes = 0;
        TiledKMeansResult const tiled =
            segment_kmeans_tiled(context, this->path("in.tif"), this->path("out.tif"), params, options);
        EXPECT_EQ(tiled.clusters.centres, memory.clusters.centres);
        EXPECT_EQ(tiled.clusters.iterations, memory.clusters.iterations);
        EXPECT_EQ(tiled.clusters.inertia, memory.clusters.inertia);
        EXPECT_EQ(tiled.clusters.attempt, memory.clusters.attempt);
        EXPECT_EQ(tiled.object_class, memory.object_class);
        ASSERT_EQ(tiled.components, memory.components);
        EXPECT_EQ(test::count_differences(std::get<HostImage<Label>>(read_image(this->path("out.tif"))), expected), 0);
        ASSERT_EQ(tiled.regions.size(), memory.regions.size());
        for (std::size_t i = 0; i < memory.regions.size(); ++i)
          ASSERT_TRUE(same_stats(tiled.regions[i], memory.regions[i])) << "region " << i + 1;
        EXPECT_EQ(tiled.report.passes, 3) << "one to count the colours, two to label";
        if (c.tolerance > 0) {
          EXPECT_LT(memory.clusters.iterations, params.kmeans.iterations) << "converged early";
        }
        EXPECT_GT(memory.components, 3);
      }
}

// Filters tile by tile: the output of the filter on the whole image, byte for byte, with halos
// larger than some tiles (a Gaussian of 19 taps over 16-pixel tiles), for 8-bit and float outputs.
TYPED_TEST(Tiled, FiltersEqualTheWholeImage) {
  using Memory = typename TypeParam::memory_space;
  SyntheticParams synthetic;
  synthetic.width = 203;
  synthetic.height = 157;
  HostImage<std::uint8_t> const tissue = synthetic_tissue(synthetic).image;
  write_image(this->path("in.tif"), tissue);
  ExecutionContext context(context_on<TypeParam>());
  TypeParam space;
  TiledOptions options;
  options.tile_width = 16;
  options.tile_height = 32;
  auto check = [&](auto out_type, index_t halo, auto&& compute, char const* name) {
    using OutT = decltype(out_type);
    SCOPED_TRACE(name);
    auto const on_space = clone<Memory>(space, tissue, "in");
    ImageView<OutT, Memory> whole("whole", tissue.width(), tissue.height());
    compute(space, ImageView<std::uint8_t const, Memory>(on_space), whole);
    auto const expected = clone<Kokkos::HostSpace>(space, whole, "expected");
    space.fence();
    TiledReport const report = filter_tiled<OutT>(context, this->path("in.tif"), this->path("out.tif"), halo,
                                                  OpFamily::filter, compute, options);
    EXPECT_EQ(report.tiles, 13 * 5);
    AnyHostImage const written = read_image(this->path("out.tif"));
    ASSERT_TRUE(std::holds_alternative<HostImage<OutT>>(written));
    EXPECT_EQ(test::count_differences(std::get<HostImage<OutT>>(written), expected), 0);
  };
  check(
      std::uint8_t{}, 2, [](auto const& s, auto const& in, auto const& out) { median(s, in, out, 5); }, "median 5");
  GaussianParams const wide{3.0, 0};  // 19 taps: a halo of 9
  check(
      std::uint8_t{}, 9, [&](auto const& s, auto const& in, auto const& out) { gaussian(s, in, out, wide); },
      "gaussian sigma 3");
  check(
      float{}, 1, [](auto const& s, auto const& in, auto const& out) { sobel_magnitude(s, in, out); }, "sobel");
}

// The transfer lanes (TiledOptions::lanes, detail::TileLanes): with none (plain transfers), one
// (pinned, each tile after the last) and several (a tile's download in flight while the next ones
// are computed on the other streams), the outputs are the in-memory ones, over many small tiles so
// that many downloads overlap; on the host backends the lanes change nothing. Outside 0 to 16:
// Error(usage) naming the option.
TYPED_TEST(Tiled, EveryNumberOfTransferLanesGivesTheSameOutput) {
  using Memory = typename TypeParam::memory_space;
  SyntheticParams synthetic;
  synthetic.width = 301;
  synthetic.height = 211;
  synthetic.seed = 9;
  HostImage<std::uint8_t> const tissue = synthetic_tissue(synthetic).image;
  write_image(this->path("in.tif"), tissue);
  Kokkos::DefaultHostExecutionSpace host;
  NucleiParams const params;
  HostImage<Label> expected("expected", tissue.width(), tissue.height());
  NucleiResult const memory =
      segment_nuclei(host, ImageView<std::uint8_t const, Kokkos::HostSpace>(tissue), expected, params);
  TypeParam space;
  auto const on_space = clone<Memory>(space, tissue, "in");
  ImageView<std::uint8_t, Memory> whole("whole", tissue.width(), tissue.height());
  median(space, ImageView<std::uint8_t const, Memory>(on_space), whole, 5);
  auto const median_expected = clone<Kokkos::HostSpace>(space, whole, "expected");
  space.fence();
  ExecutionContext context(context_on<TypeParam>());
  for (int lanes : {0, 1, 2, 3}) {
    for (std::size_t cache : {std::size_t(1) << 30, std::size_t(0)}) {
      SCOPED_TRACE("lanes " + std::to_string(lanes) + " mask cache " + std::to_string(cache));
      TiledOptions options;
      options.tile_width = 16;
      options.tile_height = 32;
      options.lanes = lanes;
      options.mask_cache_bytes = cache;
      TiledNucleiResult const tiled =
          segment_nuclei_tiled(context, this->path("in.tif"), this->path("out.tif"), params, options);
      ASSERT_EQ(tiled.components, memory.components);
      EXPECT_EQ(test::count_differences(std::get<HostImage<Label>>(read_image(this->path("out.tif"))), expected), 0);
      ASSERT_EQ(tiled.regions.size(), memory.regions.size());
      for (std::size_t i = 0; i < memory.regions.size(); ++i)
        ASSERT_TRUE(same_stats(tiled.regions[i], memory.regions[i])) << "region " << i + 1;
      filter_tiled<std::uint8_t>(
          context, this->path("in.tif"), this->path("out.tif"), 2, OpFamily::filter,
          [](auto const& s, auto const& in, auto const& out) { median(s, in, out, 5); }, options);
      EXPECT_EQ(test::count_differences(std::get<HostImage<std::uint8_t>>(read_image(this->path("out.tif"))),
                                        median_expected),
                0);
    }
  }
  for (int lanes : {-1, 17}) {
    TiledOptions options;
    options.lanes = lanes;
    try {
      segment_nuclei_tiled(context, this->path("in.tif"), this->path("out.tif"), params, options);
      ADD_FAILURE() << "lanes " << lanes << " accepted";
    } catch (Error const& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_EQ(e.subject(), "TiledOptions::lanes");
    }
  }
}

// The distance transform under tiling: float for float the in-memory transform, for bands of 16
// and 48 rows (the last band shorter), output tiles narrower than the image, the masks kept
// between the passes or the image read again, and images whose distances come from far away: a
// single zero pixel in the last row (every band's distances from the carry below), zero pixels only
// in the first rows (from the carry above), bands without a zero pixel between bands with some, and
// colour taken to gray. No zero pixel at all: Error(input) naming the file, nothing written.
TYPED_TEST(Tiled, DistanceEqualsTheWholeImage) {
  ExecutionContext context(context_on<TypeParam>());
  Kokkos::DefaultHostExecutionSpace host;
  auto expect_equal = [&](HostImage<std::uint8_t> const& mask, AnyHostImage const& file_image, char const* name) {
    SCOPED_TRACE(name);
    write_image(this->path("in.tif"), file_image);
    HostImage<float> expected("expected", mask.width(), mask.height());
    distance_transform(host, ImageView<std::uint8_t const, Kokkos::HostSpace>(mask), expected);
    host.fence();
    for (index_t rows : {index_t(16), index_t(48)})
      for (std::size_t cache : {std::size_t(1) << 30, std::size_t(0)}) {
        SCOPED_TRACE("bands of " + std::to_string(rows) + " rows, mask cache " + std::to_string(cache));
        TiledOptions options;
        options.tile_width = 32;
        options.tile_height = rows;
        options.mask_cache_bytes = cache;
        index_t calls = 0;
        options.progress = [&](index_t, index_t) { ++calls; };
        TiledReport const report = distance_tiled(context, this->path("in.tif"), this->path("out.tif"), options);
        index_t const bands = (mask.height() + rows - 1) / rows;
        EXPECT_EQ(report.tiles, bands * ((mask.width() + 31) / 32));
        EXPECT_EQ(calls, 2 * bands);
        EXPECT_EQ(report.kept_mask_bytes > 0, cache > 0);
        AnyHostImage const written = read_image(this->path("out.tif"));
        ASSERT_TRUE(std::holds_alternative<HostImage<float>>(written));
        EXPECT_EQ(test::count_differences(std::get<HostImage<float>>(written), expected), 0);
      }
  };
  auto gray_of = [](HostImage<std::uint8_t> const& mask) { return AnyHostImage(mask); };
  index_t const w = 101, h = 157;
  HostImage<std::uint8_t> const noise = noise_mask(w, h, 85, 21);
  expect_equal(noise, gray_of(noise), "noise");
  HostImage<std::uint8_t> last_row("last_row", w, h), first_rows("first_rows", w, h), gaps("gaps", w, h);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) {
      last_row(y, x) = y == h - 1 && x == 7 ? 0 : 200;
      first_rows(y, x) = y < 3 && (x * 7 + y) % 23 == 0 ? 0 : 1;
      gaps(y, x) = (y / 16) % 3 == 1 && (x + y) % 19 == 0 ? 0 : 255;  // zero pixels in every third band of 16
    }
  expect_equal(last_row, gray_of(last_row), "one zero pixel in the last row");
  expect_equal(first_rows, gray_of(first_rows), "zero pixels in the first rows only");
  expect_equal(gaps, gray_of(gaps), "bands without zero pixels");
  auto colour = test::noise_rgb8(w, h, 22);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x)
      if ((x * 3 + y * 5) % 37 == 0) colour(y, x) = Rgb8{0, 0, 0};  // black: the zero pixels
  HostImage<std::uint8_t> colour_gray("colour_gray", w, h);
  rgb_to_gray(host, ImageView<Rgb8 const, Kokkos::HostSpace>(colour), colour_gray);
  host.fence();
  expect_equal(colour_gray, AnyHostImage(colour), "colour");

  HostImage<std::uint8_t> none("none", 40, 40);
  for (index_t y = 0; y < 40; ++y)
    for (index_t x = 0; x < 40; ++x) none(y, x) = 3;
  write_image(this->path("in.tif"), none);
  std::remove(this->path("out.tif").c_str());
  TiledOptions options;
  options.tile_width = options.tile_height = 16;
  expect_input_error([&] { distance_tiled(context, this->path("in.tif"), this->path("out.tif"), options); },
                     this->path("out.tif"), "an image without zero pixels was transformed");
}

// The watershed under tiling: the labels of the flood on the whole image, label for label, for
// reliefs with plateaus (8-bit, 16-bit, float), scattered markers (16- and 32-bit files), with and
// without a mask, 4- and 8-connected, tiles of 16 x 16 and 32 x 48; and a spiral corridor of one
// level through every tile, flooded from its outer end, which needs a round per tile crossing.
TYPED_TEST(Tiled, WatershedEqualsTheWholeImage) {
  ExecutionContext context(context_on<TypeParam>());
  auto check = [&](auto const& relief, HostImage<Label> const& markers, HostImage<std::uint8_t> const& mask,
                   int connectivity, index_t tw, index_t th, char const* name) {
    using T = typename std::decay_t<decltype(relief)>::value_type;
    SCOPED_TRACE(std::string(name) + " connectivity " + std::to_string(connectivity) + " tiles " + std::to_string(tw) +
                 "x" + std::to_string(th) + (mask.empty() ? "" : " masked"));
    HostImage<Label> expected("expected", relief.width(), relief.height());
    watershed_flood(HostImage<T const>(relief), HostImage<Label const>(markers), expected,
                    WatershedParams{connectivity}, HostImage<std::uint8_t const>(mask));
    write_image(this->path("in.tif"), relief);
    write_image(this->path("markers.tif"), markers);
    if (!mask.empty()) write_image(this->path("mask.tif"), mask);
    TiledOptions options;
    options.tile_width = tw;
    options.tile_height = th;
    TiledWatershedResult const result = watershed_tiled(context, this->path("in.tif"), this->path("markers.tif"),
                                                        mask.empty() ? std::string() : this->path("mask.tif"),
                                                        this->path("out.tif"), WatershedParams{connectivity}, options);
    AnyHostImage const written = read_image(this->path("out.tif"));
    EXPECT_TRUE(std::holds_alternative<HostImage<Label>>(written));
    if (std::holds_alternative<HostImage<Label>>(written)) {
      EXPECT_EQ(test::count_differences(std::get<HostImage<Label>>(written), expected), 0)
          << "after " << result.rounds << " rounds";
    }
    index_t const tiles = ((relief.width() + tw - 1) / tw) * ((relief.height() + th - 1) / th);
    EXPECT_EQ(result.report.tiles, tiles);
    EXPECT_GE(result.tile_computations, tiles);
    EXPECT_EQ(result.report.passes, result.rounds + 1);
    return result.rounds;
  };
  index_t const w = 97, h = 83;
  HostImage<Label> markers("markers", w, h);
  auto const noise = test::noise_u8(w, h, 31);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) markers(y, x) = noise(y, x) < 2 ? Label(1 + (x * 7 + y) % 300) : 0;
  HostImage<std::uint8_t> mask("mask", w, h), none;
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) mask(y, x) = (x / 9 + y / 11) % 5 == 0 && x % 13 == 5 ? 0 : 255;
  HostImage<std::uint8_t> relief8("relief8", w, h);
  HostImage<std::uint16_t> relief16("relief16", w, h);
  HostImage<float> relief32("relief32", w, h);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) {
      relief8(y, x) = std::uint8_t((x + 2 * y) / 13 % 4);  // plateaus
      relief16(y, x) = std::uint16_t(noise(y, x) / 64 * 1000);
      relief32(y, x) = float(std::sin(double(x) / 7.0) + std::cos(double(y) / 5.0));
    }
  for (int connectivity : {4, 8}) {
    check(relief8, markers, none, connectivity, 16, 16, "8-bit plateaus");
    check(relief8, markers, mask, connectivity, 32, 48, "8-bit plateaus");
    check(relief16, markers, mask, connectivity, 16, 16, "16-bit");
    check(relief32, markers, none, connectivity, 32, 48, "float");
  }
  // The spiral: walls (level 9) leaving a corridor (level 1) that winds inwards through every tile.
  index_t const side = 96;
  HostImage<std::uint8_t> spiral_relief("spiral", side, side);
  for (index_t y = 0; y < side; ++y)
    for (index_t x = 0; x < side; ++x) {
      index_t const ring = std::min(std::min(x, y), std::min(side - 1 - x, side - 1 - y));
      bool wall = ring % 2 == 1;
      if (wall && x == ring && y == ring + 1) wall = false;  // the door of each wall ring
      spiral_relief(y, x) = wall ? 9 : 1;
    }
  HostImage<Label> one("one", side, side);
  for (index_t y = 0; y < side; ++y)
    for (index_t x = 0; x < side; ++x) one(y, x) = 0;
  one(0, side - 1) = 7;
  one(side / 2, side / 2) = 8;
  index_t const rounds = check(spiral_relief, one, none, 4, 16, 16, "spiral corridor");
  EXPECT_GT(rounds, 5) << "a corridor through every tile needs many rounds";
  std::printf("watershed_tiled: the spiral corridor took %lld rounds over 6 x 6 tiles\n", (long long)rounds);
}

// The markers under tiling: distance_markers() on the whole image, label for label, on the
// distance transform of a mask of overlapping discs (ridges and plateaus crossing tile edges) and of
// long bars (one ridge plateau through a row of tiles), h 0.5 and 2, without and with a minimum
// separation, 4- and 8-connected (four of their combinations), tiles of 16 x 16 and 32 x 48.
TYPED_TEST(Tiled, MarkersEqualTheWholeImage) {
  ExecutionContext context(context_on<TypeParam>());
  Kokkos::DefaultHostExecutionSpace host;
  auto check = [&](HostImage<std::uint8_t> const& mask, char const* name) {
    HostImage<float> d("d", mask.width(), mask.height());
    distance_transform(host, ImageView<std::uint8_t const, Kokkos::HostSpace>(mask), d);
    host.fence();
    write_image(this->path("in.tif"), d);
    struct Case {
      float h, separation;
      int connectivity;
    };
    for (Case const c : {Case{0.5f, 8.f, 8}, Case{2.f, 0.f, 4}, Case{0.5f, 0.f, 8}, Case{2.f, 8.f, 4}}) {
      MarkerParams params;
      params.h = c.h;
      params.min_separation = c.separation;
      params.connectivity = c.connectivity;
      HostImage<Label> expected("expected", mask.width(), mask.height());
      index_t const n = distance_markers(host, ImageView<float const, Kokkos::HostSpace>(d), expected, params);
      for (auto [tw, th] : {std::pair<index_t, index_t>{16, 16}, {32, 48}}) {
        SCOPED_TRACE(std::string(name) + " h " + std::to_string(c.h) + " separation " + std::to_string(c.separation) +
                     " connectivity " + std::to_string(c.connectivity) + " tiles " + std::to_string(tw) + "x" +
                     std::to_string(th));
        TiledOptions options;
        options.tile_width = tw;
        options.tile_height = th;
        TiledMarkersResult const result =
            distance_markers_tiled(context, this->path("in.tif"), this->path("out.tif"), params, options);
        EXPECT_EQ(result.markers, n);
        AnyHostImage const written = read_image(this->path("out.tif"));
        ASSERT_TRUE(std::holds_alternative<HostImage<Label>>(written));
        EXPECT_EQ(test::count_differences(std::get<HostImage<Label>>(written), expected), 0)
            << "after " << result.reconstruction_rounds << " and " << result.plateau_rounds << " rounds";
      }
    }
  };
  index_t const w = 120, h = 90;
  HostImage<std::uint8_t> discs("discs", w, h), bars("bars", w, h);
  std::uint64_t state = 12345;
  auto next = [&] { return (state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) discs(y, x) = 0, bars(y, x) = (y % 30 >= 10 && y % 30 < 21 && x > 2) ? 1 : 0;
  for (int k = 0; k < 25; ++k) {
    index_t const cx = index_t(next() % std::uint64_t(w)), cy = index_t(next() % std::uint64_t(h));
    index_t const r = 4 + index_t(next() % 9);
    for (index_t y = std::max<index_t>(0, cy - r); y <= std::min(h - 1, cy + r); ++y)
      for (index_t x = std::max<index_t>(0, cx - r); x <= std::min(w - 1, cx + r); ++x)
        if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) discs(y, x) = 255;
  }
  check(discs, "discs");
  check(bars, "bars");
}

// The cells pipeline under tiling: segment_cells() on the whole image, label for label and
// statistic for statistic, on synthetic tissue (gray, 8-connected, and colour, 4-connected) with
// tiles of 32 x 48 and 64 x 64, with and without the median, the minimum separation and the merge,
// by the rounds of tiles and by windows (held at the first halo, held after wider windows, and
// given up for the rounds where a component crosses every tile); the gradient relief is refused
// by name.
TYPED_TEST(Tiled, CellsPipelineEqualsTheWholeImage) {
  SyntheticParams synthetic;
  synthetic.width = 320;
  synthetic.height = 240;
  synthetic.seed = 9;
  HostImage<std::uint8_t> const tissue = synthetic_tissue(synthetic).image;
  HostImage<Rgb8> colour("colour", tissue.width(), tissue.height());
  for (index_t y = 0; y < tissue.height(); ++y)
    for (index_t x = 0; x < tissue.width(); ++x) {
      std::uint8_t const v = tissue(y, x);
      colour(y, x) = Rgb8{v, std::uint8_t(v / 2 + 40), std::uint8_t(255 - v / 3)};
    }
  // The tissue with a dark lattice of bars 7 pixels wide, one foreground component through every tile.
  HostImage<std::uint8_t> lattice = clone<Kokkos::HostSpace>(Kokkos::DefaultHostExecutionSpace(), tissue, "lattice");
  for (index_t y = 0; y < lattice.height(); ++y)
    for (index_t x = 0; x < lattice.width(); ++x)
      if (y % 40 < 7 || x % 40 < 7) lattice(y, x) = 0;
  // The tissue with its lower right part cleared to the background and dotted with discs of
  // radius 2, 3 x 3 squares once filtered: below the minimum area of 16 the merge removes them
  // all, so the windows there keep markers and no region.
  HostImage<std::uint8_t> specks = clone<Kokkos::HostSpace>(Kokkos::DefaultHostExecutionSpace(), tissue, "specks");
  for (index_t y = 140; y < specks.height(); ++y)
    for (index_t x = 200; x < specks.width(); ++x) {
      index_t const dx = (x - 200) % 20 - 10, dy = (y - 140) % 20 - 10;
      specks(y, x) = dx * dx + dy * dy <= 4 ? 20 : 230;
    }
  // One dark disc of radius 270 on a light ground, a few small ones beside it: distances of 256
  // and more, which the in-memory pipeline floods as a float relief.
  HostImage<std::uint8_t> large("large", 640, 600);
  for (index_t y = 0; y < large.height(); ++y)
    for (index_t x = 0; x < large.width(); ++x) {
      index_t const dx = x - 300, dy = y - 300, sx = x % 40 - 20, sy = y % 40 - 20;
      bool const dark = dx * dx + dy * dy <= 270 * 270 || (x > 590 && sx * sx + sy * sy <= 64);
      large(y, x) = dark ? 30 : 220;
    }
  Kokkos::DefaultHostExecutionSpace host;
  ExecutionContext context(context_on<TypeParam>());
  enum class Way { rounds, windows, wider_windows, given_up };
  auto check = [&](AnyHostImage const& image, CellsParams const& params, index_t tw, index_t th, index_t halo, Way way,
                   char const* name) {
    SCOPED_TRACE(std::string(name) + " connectivity " + std::to_string(params.connectivity) + " median " +
                 std::to_string(params.median_size) + " separation " + std::to_string(params.min_separation) +
                 " tiles " + std::to_string(tw) + "x" + std::to_string(th) + " halo " + std::to_string(halo));
    write_image(this->path("in.tif"), image);
    HostImage<std::uint8_t> const gray = gray_of(image);
    HostImage<Label> expected("expected", gray.width(), gray.height());
    CellsResult const memory =
        segment_cells(host, ImageView<std::uint8_t const, Kokkos::HostSpace>(gray), expected, params);
    TiledOptions options;
    options.tile_width = tw;
    options.tile_height = th;
    options.cells_window_halo = halo;
    TiledCellsResult const tiled =
        segment_cells_tiled(context, this->path("in.tif"), this->path("out.tif"), params, options);
    EXPECT_EQ(tiled.threshold, memory.threshold);
    EXPECT_EQ(tiled.dark, memory.dark);
    EXPECT_EQ(tiled.markers, memory.markers);
    ASSERT_EQ(tiled.components, memory.components);
    EXPECT_GE(memory.components, 10) << "the image has cells";
    EXPECT_EQ(test::count_differences(std::get<HostImage<Label>>(read_image(this->path("out.tif"))), expected), 0);
    ASSERT_EQ(tiled.regions.size(), memory.regions.size());
    for (std::size_t i = 0; i < memory.regions.size(); ++i)
      ASSERT_TRUE(same_stats(tiled.regions[i], memory.regions[i])) << "region " << i + 1;
    bool const by_windows = way == Way::windows || way == Way::wider_windows;
    EXPECT_EQ(tiled.window_halo, by_windows ? halo : 0);
    if (by_windows) {
      EXPECT_EQ(tiled.watershed_rounds, 0);
      EXPECT_EQ(tiled.report.passes, 2);
      if (way == Way::windows) {
        EXPECT_EQ(tiled.window_retries, 0);
      }
      if (way == Way::wider_windows) {
        EXPECT_GT(tiled.window_retries, 0);
      }
    } else {
      EXPECT_GE(tiled.watershed_rounds, 1);
    }
    if (way == Way::given_up) {
      EXPECT_GT(tiled.window_retries, 0);
    }
  };
  CellsParams params;
  check(tissue, params, 32, 48, 0, Way::rounds, "tissue");
  check(tissue, params, 64, 64, 32, Way::windows, "tissue");
  check(tissue, params, 64, 64, 6, Way::wider_windows, "tissue");
  check(lattice, params, 64, 64, 16, Way::given_up, "lattice");
  params.connectivity = 4;
  check(colour, params, 64, 64, 0, Way::rounds, "colour");
  check(colour, params, 64, 48, 24, Way::windows, "colour");
  CellsParams other;
  other.median_size = 5;
  other.open_size = 5;
  other.min_separation = 0;
  other.min_area = 40;
  check(tissue, other, 32, 32, 0, Way::rounds, "tissue");
  check(tissue, other, 48, 48, 44, Way::windows, "tissue");
  check(specks, CellsParams{}, 64, 64, 24, Way::windows, "specks");
  check(large, CellsParams{}, 256, 256, 64, Way::given_up, "large");
  other.median_size = 0;
  other.min_separation = 12;
  check(tissue, other, 48, 16, 0, Way::rounds, "tissue");
  check(tissue, other, 64, 32, 30, Way::windows, "tissue");
  CellsParams gradient;
  gradient.relief = CellsRelief::gradient;
  write_image(this->path("in.tif"), tissue);
  try {
    segment_cells_tiled(context, this->path("in.tif"), this->path("out.tif"), gradient);
    FAIL() << "the gradient relief ran tile by tile";
  } catch (Error const& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("CellsParams::relief"), std::string::npos) << e.what();
  }
}

TYPED_TEST(Tiled, HistogramEqualsTheWholeImage) {
  auto const image = test::noise_rgb8(203, 157, 9);
  write_image(this->path("in.tif"), image);
  Kokkos::DefaultHostExecutionSpace host;
  HostImage<std::uint8_t> gray("gray", 203, 157);
  rgb_to_gray(host, ImageView<Rgb8 const, Kokkos::HostSpace>(image), gray);
  Counts<Kokkos::HostSpace> counts("counts", 256);
  histogram(host, ImageView<std::uint8_t const, Kokkos::HostSpace>(gray), counts);
  host.fence();
  ExecutionContext context(context_on<TypeParam>());
  TiledOptions options;
  options.tile_width = 16;
  options.tile_height = 48;
  std::vector<std::uint64_t> const tiled = histogram_tiled(context, this->path("in.tif"), options);
  ASSERT_EQ(tiled.size(), 256u);
  for (int b = 0; b < 256; ++b) EXPECT_EQ(tiled[std::size_t(b)], std::uint64_t(counts(b))) << "bin " << b;
}

TYPED_TEST(Tiled, BadTilesAndInputsAreRefusedWithNothingWritten) {
  ExecutionContext context(context_on<TypeParam>());
  write_image(this->path("in.tif"), noise_mask(64, 64, 40, 4));
  TiledOptions bad;
  bad.tile_width = 40;
  EXPECT_THROW(label_tiled(context, this->path("in.tif"), this->path("out.tif"), LabelParams{}, false, bad), Error);
  write_image(this->path("in.tif"), test::noise_f32(64, 64, 5));
  expect_input_error([&] { label_tiled(context, this->path("in.tif"), this->path("out.tif")); }, this->path("out.tif"),
                     "a float image was labelled");
}

// A PGM/PPM or PNG input (no reading by region) goes through a tiled scratch copy made by
// TiledInput: the labels and statistics of the in-memory run, a 32-bit image labelled without
// statistics, and the scratch file gone with the TiledInput.
TYPED_TEST(Tiled, StreamFormatsGoThroughAScratchCopy) {
  ExecutionContext context(context_on<TypeParam>());
  TiledOptions options;
  options.tile_width = 48;
  options.tile_height = 32;
  auto const mask = noise_mask(203, 157, 45, 12);
  Kokkos::DefaultHostExecutionSpace host;
  HostImage<Label> expected("expected", mask.width(), mask.height());
  index_t const n = label(host, ImageView<std::uint8_t const, Kokkos::HostSpace>(mask), expected, LabelParams{});
  auto const stats = region_stats(host, ImageView<Label const, Kokkos::HostSpace>(expected), n,
                                  ImageView<std::uint8_t const, Kokkos::HostSpace>(mask));
  for (char const* name : {"in.pgm", "in.png"}) {
    SCOPED_TRACE(name);
    write_image(this->path(name), mask);
    std::string scratch;
    {
      TiledInput const input(this->path(name), this->dir_, options);
      EXPECT_TRUE(input.decoded());
      scratch = input.path();
      EXPECT_EQ(access(scratch.c_str(), F_OK), 0);
      TiledLabelResult const result =
          label_tiled(context, input.path(), this->path("out.tif"), LabelParams{}, true, options);
      ASSERT_EQ(result.components, n);
      EXPECT_EQ(test::count_differences(std::get<HostImage<Label>>(read_image(this->path("out.tif"))), expected), 0);
      ASSERT_EQ(result.regions.size(), stats.size());
      for (std::size_t i = 0; i < stats.size(); ++i) EXPECT_TRUE(same_stats(result.regions[i], stats[i])) << i;
    }
    EXPECT_NE(access(scratch.c_str(), F_OK), 0) << "the scratch copy is removed";
    std::remove(this->path(name).c_str());
  }
  TiledInput const tiff(this->path("out.tif"), this->dir_, options);  // a TIFF is read as it is
  EXPECT_FALSE(tiff.decoded());
  EXPECT_EQ(tiff.path(), this->path("out.tif"));
  // 32-bit labels labelled again in equal-value mode: the same image (each label one component).
  LabelParams equal;
  equal.equal_value = true;
  TiledLabelResult const again = label_tiled(context, tiff.path(), this->path("in.tif"), equal, false, options);
  EXPECT_EQ(again.components, n);
  EXPECT_EQ(test::count_differences(std::get<HostImage<Label>>(read_image(this->path("in.tif"))), expected), 0);
  EXPECT_THROW(label_tiled(context, tiff.path(), this->path("in.tif"), equal, true, options), Error);
}

// The three stages see every tile once, compute in order (and with one reader and one writer every
// stage in order), and the first failure of any stage stops the run and reaches the caller: a bad
// read is reported at its tile's turn, so no tile after it is computed or written, whatever the
// readers; a failed write leaves at most the tiles in flight on the other writers to be written.
// Scratch TIFFs are written uncompressed while they take at most half the free disk, else with Zstd;
// a tile store gives back the last image put into each slot, pitched or not.
TEST(TileScratch, CompressedWhenTheDiskIsShortAndStoresGiveBackTheLastTile) {
  EXPECT_EQ(detail::scratch_write_options(".", 1.0).tiff_compression, TiffCompression::none);
  EXPECT_EQ(detail::scratch_write_options(".", 1e30).tiff_compression, TiffCompression::zstd);
  detail::TileStore<std::uint16_t> store(".", "test", 40 * 30);
  for (int round = 0; round < 2; ++round)
    for (index_t t = 0; t < 3; ++t) {
      HostImage<std::uint16_t> tile("tile", 40 - t, 30 - t);
      for (index_t y = 0; y < tile.height(); ++y)
        for (index_t x = 0; x < tile.width(); ++x) tile(y, x) = std::uint16_t(round * 1000 + t * 100 + y * 3 + x);
      store.put(t, tile.roi(0, 0, tile.width(), tile.height()));
    }
  for (index_t t = 0; t < 3; ++t) {
    HostImage<std::uint16_t> const back = store.get(t, 40 - t, 30 - t);
    index_t wrong = 0;
    for (index_t y = 0; y < back.height(); ++y)
      for (index_t x = 0; x < back.width(); ++x) wrong += back(y, x) != std::uint16_t(1000 + t * 100 + y * 3 + x);
    EXPECT_EQ(wrong, 0) << "tile " << t;
  }
}

TEST(TilePipeline, StagesRunInOrderAndFailuresReachTheCaller) {
  for (detail::PipelineWorkers const workers : {detail::PipelineWorkers{1, 1}, detail::PipelineWorkers{4, 3}}) {
    bool const ordered = workers.readers == 1 && workers.writers == 1;
    std::vector<std::size_t> computed;
    std::vector<std::atomic<int>> written(100);
    std::mutex order_mutex;
    std::vector<std::size_t> write_order;
    detail::pipeline_tiles(
        100,
        [](std::size_t i) {
          std::this_thread::sleep_for(std::chrono::microseconds((i * 37) % 200));  // reads finish out of order
          return i * 3;
        },
        [&](std::size_t i, std::size_t&& value) {
          EXPECT_EQ(value, i * 3);
          computed.push_back(i);
          return value + 1;
        },
        [&](std::size_t i, std::size_t&& value) {
          EXPECT_EQ(value, i * 3 + 1);
          written[i].fetch_add(1);
          std::lock_guard<std::mutex> lock(order_mutex);
          write_order.push_back(i);
        },
        workers);
    ASSERT_EQ(computed.size(), 100u);
    for (std::size_t i = 0; i < 100; ++i) EXPECT_EQ(computed[i], i);
    for (std::size_t i = 0; i < 100; ++i) EXPECT_EQ(written[i].load(), 1) << i;
    if (ordered) {
      for (std::size_t i = 0; i < 100; ++i) EXPECT_EQ(write_order[i], i);
    }
    for (int stage = 0; stage < 3; ++stage) {
      std::atomic<std::size_t> writes{0}, last_computed{0};
      try {
        detail::pipeline_tiles(
            100,
            [&](std::size_t i) {
              if (stage == 0 && (i == 40 || i == 60)) throw std::runtime_error("corrupt tile " + std::to_string(i));
              return i;
            },
            [&](std::size_t i, std::size_t&& value) {
              if (stage == 1 && i == 40) throw std::runtime_error("out of memory");
              last_computed = i;
              return value;
            },
            [&](std::size_t i, std::size_t&&) {
              if (stage == 2 && i == 40) throw std::runtime_error("disk full");
              ++writes;
            },
            workers);
        ADD_FAILURE() << "stage " << stage << ": no failure reached the caller";
      } catch (std::runtime_error const& e) {
        if (stage == 0) {
          EXPECT_STREQ(e.what(), "corrupt tile 40") << "the first bad tile in order";
        }
      }
      if (stage < 2) {
        EXPECT_LE(writes.load(), 40u) << "no tile after the failing one is written";
        EXPECT_LT(last_computed.load(), 40u);
      } else {
        EXPECT_LE(writes.load(), 40u + 2 * std::size_t(workers.writers)) << "only the tiles in flight";
      }
    }
  }
}

}  // namespace
}  // namespace gigaseg
