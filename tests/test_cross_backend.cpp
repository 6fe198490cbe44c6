// The same answer on every backend: every operation run on Serial, OpenMP and (where built) CUDA,
// on the default path (tuned where a backend has one) and forced portable, must give the same
// output bit for bit: images byte for byte, counts, centres and region statistics exactly.
// Inputs: photographs, the sample images of Debian's python3-skimage package (camera, coins, cell,
// astronaut, ihc; GIGASEG_PHOTOS names another folder holding them; the sanitizer run takes coins
// alone), adversarial images made of plateaus (a few grey levels in blocks, rings and noise) and
// the synthetic tissue of the pipelines. The convolution is compared on its direct method; the FFT
// method's rounding depends on the FFT library of the backend (FFTW, cuFFT), by design.
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/convolve.hpp"
#include "gigaseg/algorithms/distance.hpp"
#include "gigaseg/algorithms/filters.hpp"
#include "gigaseg/algorithms/histogram.hpp"
#include "gigaseg/algorithms/kmeans.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/markers.hpp"
#include "gigaseg/algorithms/morphology.hpp"
#include "gigaseg/algorithms/otsu.hpp"
#include "gigaseg/algorithms/pipelines/cells.hpp"
#include "gigaseg/algorithms/pipelines/kmeans_segment.hpp"
#include "gigaseg/algorithms/pipelines/nuclei.hpp"
#include "gigaseg/algorithms/pipelines/synthetic.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/algorithms/threshold.hpp"
#include "gigaseg/algorithms/watershed.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "tests/device_helpers.hpp"
#include "tests/generators.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace gigaseg {
namespace {

struct Inputs {
  std::string name;
  HostImage<std::uint8_t> gray;
  HostImage<Rgb8> colour;
  // Watershed inputs, computed once on the host so that every backend floods the same ones: an
  // 8-bit relief (the Sobel magnitude, saturated), 16-bit and float versions, markers (the darkest
  // 5% of pixels as one marker, each connected region of the brightest 5% as its own) and a mask.
  HostImage<std::uint8_t> relief8, mask;
  HostImage<std::uint16_t> relief16;
  HostImage<float> relief_float;
  HostImage<Label> markers;
};

// Everything one backend computed, by name.
struct Outputs {
  std::map<std::string, HostImage<std::uint8_t>> u8;
  std::map<std::string, HostImage<Label>> labels;
  std::map<std::string, HostImage<float>> f32;
  std::map<std::string, std::vector<double>> numbers;
};

std::vector<double> flatten(std::vector<RegionStats> const& regions) {
  std::vector<double> v;
  for (auto const& r : regions)
    v.insert(v.end(), {double(r.label), double(r.area), double(r.x0), double(r.y0), double(r.x1), double(r.y1), r.cx,
                       r.cy, double(r.perimeter), r.mean_intensity, r.min_intensity, r.max_intensity});
  return v;
}

template <class Space>
Outputs run_everything(Space const& space, Inputs const& in, Path path) {
  using M = typename Space::memory_space;
  index_t const w = in.gray.width(), h = in.gray.height();
  Outputs o;
  auto const gray = ImageView<std::uint8_t const, M>(test::to_space(space, in.gray));
  auto const colour = ImageView<Rgb8 const, M>(test::to_space(space, in.colour));
  auto u8 = [&](std::string const& name, auto&& f) {
    ImageView<std::uint8_t, M> out("out", w, h);
    f(out);
    o.u8[name] = test::to_host(space, out);
  };

  // Point operations and the histogram.
  int const level = otsu_threshold(space, gray, HistogramParams{path});
  o.numbers["otsu"] = {double(level)};
  u8("threshold", [&](auto const& out) { threshold(space, gray, out, double(level)); });
  u8("threshold_local_mean", [&](auto const& out) { threshold_local_mean(space, gray, out, LocalMeanParams{15, 4}); });
  Counts<M> counts("counts", 256);
  histogram(space, gray, counts, HistogramParams{path});
  auto const host_counts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
  o.numbers["histogram"] = std::vector<double>(host_counts.data(), host_counts.data() + 256);

  // K-means on the colours.
  {
    ImageView<std::uint8_t, M> classes("classes", w, h);
    KMeansParams params;
    params.k = 4, params.seed = 7, params.attempts = 2, params.space = FeatureSpace::lab, params.path = path;
    KMeansResult const r = kmeans(space, colour, classes, params);
    o.u8["kmeans"] = test::to_host(space, classes);
    std::vector<double> v{double(r.iterations), r.inertia, double(r.attempt)};
    for (auto const& c : r.centres) v.insert(v.end(), c.begin(), c.end());
    o.numbers["kmeans"] = v;
  }

  // Labels and their statistics, of the Otsu mask.
  ImageView<std::uint8_t, M> mask("mask", w, h);
  threshold(space, gray, mask, double(level));
  for (int connectivity : {4, 8}) {
    ImageView<Label, M> labels("labels", w, h);
    index_t const n =
        label(space, ImageView<std::uint8_t const, M>(mask), labels, LabelParams{connectivity, false, path});
    std::string const name = "label" + std::to_string(connectivity);
    o.labels[name] = test::to_host(space, labels);
    o.numbers[name] = {double(n)};
    o.numbers["stats" + std::to_string(connectivity)] =
        flatten(region_stats(space, ImageView<Label const, M>(labels), n, gray, path));
  }

  // Filters and morphology.
  for (int size : {3, 5})
    u8("median" + std::to_string(size), [&](auto const& out) { median(space, gray, out, size, FilterParams{path}); });
  for (double sigma : {0.8, 2.5})
    u8("gaussian" + std::to_string(sigma), [&](auto const& out) {
      gaussian(space, gray, out, GaussianParams{sigma, 0, path});
    });
  {
    ImageView<float, M> magnitude("sobel", w, h);
    sobel_magnitude(space, gray, magnitude, FilterParams{path});
    o.f32["sobel"] = test::to_host(space, magnitude);
  }
  for (auto op : {MorphOp::erode, MorphOp::dilate, MorphOp::open, MorphOp::close, MorphOp::gradient})
    for (auto shape : {StructuringShape::rect, StructuringShape::cross, StructuringShape::ellipse})
      for (int size : {3, 9, shape == StructuringShape::rect ? 31 : 5})
        u8("morph" + std::to_string(int(op)) + "/" + std::to_string(int(shape)) + "/" + std::to_string(size),
           [&](auto const& out) {
             morphology(space, gray, out, MorphParams{op, shape, size, path});
           });
  {
    ConvolutionKernel kernel{5, 3, {}};
    for (int i = 0; i < 15; ++i) kernel.weights.push_back(float((i * 7) % 5) - 1.75f);
    ImageView<float, M> out("convolved", w, h);
    convolve(space, gray, out, kernel, ConvolveMethod::direct);
    o.f32["convolve_direct"] = test::to_host(space, out);
  }

  // Distance, markers, watershed.
  ImageView<float, M> distance("distance", w, h);
  distance_transform(space, ImageView<std::uint8_t const, M>(mask), distance, {}, DistanceParams{path});
  o.f32["edt"] = test::to_host(space, distance);
  {
    ImageView<Label, M> markers("markers", w, h);
    MarkerParams params;
    params.h = 0.5f, params.min_separation = 8.f, params.path = path;
    index_t const n = distance_markers(space, ImageView<float const, M>(distance), markers, params);
    o.labels["markers"] = test::to_host(space, markers);
    o.numbers["markers"] = {double(n)};
  }
  auto const markers = ImageView<Label const, M>(test::to_space(space, in.markers));
  auto const ws_mask = ImageView<std::uint8_t const, M>(test::to_space(space, in.mask));
  auto flood = [&](std::string const& name, auto const& relief) {
    for (int connectivity : {4, 8})
      for (bool masked : {false, true}) {
        ImageView<Label, M> out("watershed", w, h);
        watershed(space, relief, markers, out, WatershedParams{connectivity, path},
                  masked ? ws_mask : ImageView<std::uint8_t const, M>());
        o.labels[name + std::to_string(connectivity) + (masked ? "/mask" : "")] = test::to_host(space, out);
      }
  };
  flood("watershed_u8_", ImageView<std::uint8_t const, M>(test::to_space(space, in.relief8)));
  flood("watershed_u16_", ImageView<std::uint16_t const, M>(test::to_space(space, in.relief16)));
  flood("watershed_float_", ImageView<float const, M>(test::to_space(space, in.relief_float)));

  // The pipelines (their stages take the automatic paths; the same on both rounds).
  {
    ImageView<Label, M> labels("labels", w, h);
    NucleiResult const nuclei = segment_nuclei(space, gray, labels);
    o.labels["nuclei"] = test::to_host(space, labels);
    o.numbers["nuclei"] = flatten(nuclei.regions);
    o.numbers["nuclei"].push_back(double(nuclei.threshold));
    CellsResult const cells = segment_cells(space, gray, labels);
    o.labels["cells"] = test::to_host(space, labels);
    o.numbers["cells"] = flatten(cells.regions);
    o.numbers["cells"].insert(o.numbers["cells"].end(), {double(cells.threshold), double(cells.markers)});
    CellsParams gradient;
    gradient.relief = CellsRelief::gradient;
    CellsResult const cells_gradient = segment_cells(space, gray, labels, gradient);
    o.labels["cells_gradient"] = test::to_host(space, labels);
    o.numbers["cells_gradient"] = flatten(cells_gradient.regions);
    KMeansSegmentResult const km = segment_kmeans(space, colour, labels);
    o.labels["kmeans_segment"] = test::to_host(space, labels);
    o.numbers["kmeans_segment"] = flatten(km.regions);
    o.numbers["kmeans_segment"].push_back(double(km.object_class));
  }
  return o;
}

// The watershed's inputs from the photograph, on the host.
void add_watershed_inputs(Inputs& in) {
  index_t const w = in.gray.width(), h = in.gray.height();
  HostImage<float> magnitude("magnitude", w, h);
  sobel_magnitude(Kokkos::DefaultHostExecutionSpace(), HostImage<std::uint8_t const>(in.gray), magnitude);
  in.relief8 = HostImage<std::uint8_t>("relief8", w, h);
  in.relief16 = HostImage<std::uint16_t>("relief16", w, h);
  in.relief_float = magnitude;
  std::vector<std::uint8_t> sorted;
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) {
      float const m = magnitude(y, x);
      in.relief8(y, x) = std::uint8_t(std::min(255.f, m));
      in.relief16(y, x) = std::uint16_t(std::min(65535.f, m * 16.f));
      sorted.push_back(in.gray(y, x));
    }
  std::sort(sorted.begin(), sorted.end());
  std::uint8_t const dark = sorted[sorted.size() / 20], bright = sorted[sorted.size() - 1 - sorted.size() / 20];
  HostImage<std::uint8_t> bright_mask("bright", w, h);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) bright_mask(y, x) = in.gray(y, x) > bright && bright < 255 ? 1 : 0;
  in.markers = HostImage<Label>("markers", w, h);
  label(Kokkos::DefaultHostExecutionSpace(), HostImage<std::uint8_t const>(bright_mask), in.markers);
  in.mask = HostImage<std::uint8_t>("mask", w, h);
  for (index_t y = 0; y < h; ++y)
    for (index_t x = 0; x < w; ++x) {
      if (in.gray(y, x) <= dark) in.markers(y, x) = 1u << 30;  // one marker for all the dark pixels
      in.mask(y, x) = (x / 37 + y / 29) % 7 != 3 ? 1 : 0;      // blocks cut out of the image
    }
}

Inputs from_gray(std::string const& name, HostImage<std::uint8_t> const& gray) {
  Inputs in;
  in.name = name;
  in.gray = gray;
  in.colour = HostImage<Rgb8>("colour", gray.width(), gray.height());
  for (index_t y = 0; y < gray.height(); ++y)
    for (index_t x = 0; x < gray.width(); ++x) {
      std::uint8_t const v = gray(y, x);
      in.colour(y, x) = Rgb8{v, std::uint8_t(255 - v / 2), std::uint8_t(v / 3 + 40)};
    }
  add_watershed_inputs(in);
  return in;
}

std::vector<Inputs> test_images() {
  std::vector<Inputs> images;
  char const* env = std::getenv("GIGASEG_PHOTOS");
  std::string const folder = env && *env ? env : "/usr/lib/python3/dist-packages/skimage/data";
  // GIGASEG_CROSS_BACKEND_QUICK (the sanitizer run, where Debug code is some ten times slower)
  // keeps one photograph, the smallest; the plain run compares them all.
  bool const quick = std::getenv("GIGASEG_CROSS_BACKEND_QUICK") != nullptr;
  std::vector<char const*> const names = quick
                                             ? std::vector<char const*>{"coins"}
                                             : std::vector<char const*>{"camera", "coins", "cell", "astronaut", "ihc"};
  for (char const* name : names) {
    AnyHostImage const image = read_image(folder + "/" + name + ".png");
    if (auto const* photo = std::get_if<HostImage<std::uint8_t>>(&image)) {
      images.push_back(from_gray(name, *photo));
    } else {
      auto const& colour = std::get<HostImage<Rgb8>>(image);
      HostImage<std::uint8_t> gray("gray", colour.width(), colour.height());
      rgb_to_gray(Kokkos::DefaultHostExecutionSpace(), HostImage<Rgb8 const>(colour), gray);
      Inputs in = from_gray(name, gray);
      in.colour = colour;
      images.push_back(in);
    }
  }
  // Plateaus: four grey levels in blocks and rings, and a noise of two levels.
  HostImage<std::uint8_t> blocks("blocks", 301, 211), noise("noise", 160, 97);
  for (index_t y = 0; y < blocks.height(); ++y)
    for (index_t x = 0; x < blocks.width(); ++x) {
      int const ring = int(std::hypot(double(x - 150), double(y - 100)) / 23);
      blocks(y, x) = std::uint8_t(60 * ((x / 40 + y / 30 + ring) % 4));
    }
  for (index_t y = 0; y < noise.height(); ++y)
    for (index_t x = 0; x < noise.width(); ++x) noise(y, x) = std::uint8_t(((x * 7919 + y * 104729) >> 3) % 2 * 200);
  images.push_back(from_gray("plateau_blocks", blocks));
  images.push_back(from_gray("plateau_noise", noise));
  SyntheticParams tissue;
  tissue.width = 384, tissue.height = 320, tissue.seed = 5;
  images.push_back(from_gray("synthetic_tissue", synthetic_tissue(tissue).image));
  return images;
}

template <class T>
index_t differences(HostImage<T> const& a, HostImage<T> const& b) {
  if (a.width() != b.width() || a.height() != b.height()) return -1;
  index_t n = 0;
  for (index_t y = 0; y < a.height(); ++y)
    for (index_t x = 0; x < a.width(); ++x) n += std::memcmp(&a(y, x), &b(y, x), sizeof(T)) != 0;
  return n;
}

void expect_same(Outputs const& reference, Outputs const& ours, std::string const& where, std::size_t& compared) {
  auto images = [&](auto const& a, auto const& b) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (auto const& [name, image] : a) {
      index_t const n = differences(image, b.at(name));
      EXPECT_EQ(n, 0) << where << ": " << name << " differs in " << n << " pixels";
      ++compared;
    }
  };
  images(reference.u8, ours.u8);
  images(reference.labels, ours.labels);
  images(reference.f32, ours.f32);
  ASSERT_EQ(reference.numbers.size(), ours.numbers.size()) << where;
  for (auto const& [name, values] : reference.numbers) {
    EXPECT_EQ(values, ours.numbers.at(name)) << where << ": " << name;
    ++compared;
  }
}

TEST(CrossBackend, EveryOperationGivesTheSameAnswerOnEveryBackendAndPath) {
  std::size_t compared = 0;
  for (Inputs const& in : test_images()) {
    // The reference: the serial backend (portable code throughout) where built, else OpenMP's
    // portable path; every other backend on its default path and on the portable one.
#ifdef KOKKOS_ENABLE_SERIAL
    Outputs const reference = run_everything(Kokkos::Serial(), in, Path::automatic);
    std::string const against = " against Serial";
    expect_same(reference, run_everything(Kokkos::OpenMP(), in, Path::automatic), in.name + ", OpenMP" + against,
                compared);
#else
    Outputs const reference = run_everything(Kokkos::OpenMP(), in, Path::portable);
    std::string const against = " against OpenMP (portable)";
#endif
    expect_same(reference, run_everything(Kokkos::OpenMP(), in, Path::portable),
                in.name + ", OpenMP (portable)" + against, compared);
#ifdef KOKKOS_ENABLE_CUDA
    expect_same(reference, run_everything(Kokkos::Cuda(), in, Path::automatic), in.name + ", Cuda" + against, compared);
    expect_same(reference, run_everything(Kokkos::Cuda(), in, Path::portable), in.name + ", Cuda (portable)" + against,
                compared);
#endif
  }
  RecordProperty("outputs_compared", std::to_string(compared));
  std::printf("cross-backend: %zu outputs compared\n", compared);
  EXPECT_GT(compared, std::getenv("GIGASEG_CROSS_BACKEND_QUICK") ? 500u : 1000u);
}

}  // namespace
}  // namespace gigaseg
