#pragma once
// Definition of algorithms/pipelines/kmeans_segment.hpp (instantiated by backends/instantiate/pipelines.cpp).
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/host_arrays.hpp"
#include "gigaseg/algorithms/histogram.hpp"
#include "gigaseg/algorithms/kmeans.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/pipelines/detail/stages.hpp"
#include "gigaseg/algorithms/pipelines/kmeans_segment.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/core/error.hpp"

#include <Kokkos_Core.hpp>

#include <string>

namespace gigaseg {

template <class ExecSpace>
KMeansSegmentResult segment_kmeans(ExecSpace const& space,
                                   ImageView<Rgb8 const, typename ExecSpace::memory_space> const& image,
                                   ImageView<Label, typename ExecSpace::memory_space> const& labels,
                                   KMeansSegmentParams const& params) {
  using Memory = typename ExecSpace::memory_space;
  int const k = params.kmeans.k;
  GIGASEG_REQUIRE(params.object_class < k, ErrorKind::usage, "KMeansSegmentParams::object_class",
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
    object = pipeline::kmeans_object_class(params.foreground, host(0), host(std::size_t(k - 1)), k);
  }
  result.object_class = object;
  ImageView<std::uint8_t, Memory> mask("gigaseg::kmeans_segment::mask", width, height);
  stage("mask", [&] { pipeline::class_mask(space, ImageView<std::uint8_t const, Memory>(classes), mask, object); });
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
