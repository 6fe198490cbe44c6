#pragma once
// The `kmeans` pipeline: colour k-means (algorithms/kmeans.hpp), the mask of one class, its
// connected components and their statistics; on the backend holding the image throughout.
//
// Which class is the object: `object_class` when given (0..k-1, ascending luminance of the
// centres), else, following Foreground, the darkest class (dark), the brightest (bright) or,
// automatically, whichever of those two covers fewer pixels (objects cover less of a slide than
// what surrounds them).
#include "algorithms/histogram.hpp"
#include "algorithms/kmeans.hpp"
#include "algorithms/label.hpp"
#include "algorithms/pipelines/stages.hpp"
#include "algorithms/region_stats.hpp"
#include "core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <map>
#include <string>
#include <vector>

namespace gigaseg {

struct KMeansSegmentParams {
  KMeansParams kmeans = {3};  // k = 3: background, tissue, objects
  Foreground foreground = Foreground::automatic;
  int object_class = -1;  // -1: chosen by `foreground`
  int connectivity = 8;
};

struct KMeansSegmentResult {
  KMeansResult clusters;
  int object_class = 0;
  index_t components = 0;
  std::vector<RegionStats> regions;
  std::map<std::string, double> timings_ms;
};

template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
KMeansSegmentResult segment_kmeans(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& image,
                                   ImageView<Label, typename ExecSpace::memory_space> const& labels,
                                   KMeansSegmentParams const& params = {}) {
  using Memory = typename ExecSpace::memory_space;
  int const k = params.kmeans.k;
  GIGASEG_REQUIRE(params.object_class < k, ErrorKind::usage, "--class",
                  "the object class must be below k = " + std::to_string(k));
  index_t const width = image.width(), height = image.height();
  KMeansSegmentResult result;
  auto stage = [&](char const* name, auto&& work) { pipeline::timed(space, result.timings_ms, name, work); };
  ImageView<std::uint8_t, Memory> classes("gigaseg::kmeans_segment::classes", width, height);
  stage("kmeans", [&] { result.clusters = kmeans(space, image, classes, params.kmeans); });
  int object = params.object_class;
  if (object < 0) {
    Counts<Memory> counts("gigaseg::kmeans_segment::counts", 256);
    histogram(space, ImageView<std::uint8_t const, Memory>(classes), counts);
    auto const host = detail::to_host_array(space, counts);
    bool const dark = params.foreground == Foreground::dark ||
                      (params.foreground == Foreground::automatic && host(0) <= host(std::size_t(k - 1)));
    object = dark ? 0 : k - 1;
  }
  result.object_class = object;
  ImageView<std::uint8_t, Memory> mask("gigaseg::kmeans_segment::mask", width, height);
  stage("mask", [&] {
    auto const c = ImageView<std::uint8_t const, Memory>(classes);
    detail::for_each_row_pixel(space, "gigaseg::kmeans_segment::mask", height, width,
                               KOKKOS_LAMBDA(index_t y, index_t x) { mask(y, x) = c(y, x) == object ? 255 : 0; });
  });
  stage("label", [&] {
    LabelParams label_params;
    label_params.connectivity = params.connectivity;
    result.components = label(space, ImageView<std::uint8_t const, Memory>(mask), labels, label_params);
  });
  ImageView<std::uint8_t, Memory> gray("gigaseg::kmeans_segment::gray", width, height);
  stage("stats", [&] {
    rgb_to_gray(space, image, gray);
    result.regions = region_stats(space, ImageView<Label const, Memory>(labels), result.components,
                                  ImageView<std::uint8_t const, Memory>(gray));
  });
  return result;
}

}  // namespace gigaseg
