#include "apps/gigaseg/pipeline_run.hpp"

#include <type_traits>

namespace gigaseg::cli {
namespace {

Foreground foreground_of(std::string const& text) {
  return text == "bright" ? Foreground::bright : text == "dark" ? Foreground::dark : Foreground::automatic;
}

}  // namespace

PipelineArguments::PipelineArguments()
    : h(CellsParams{}.h),
      min_separation(CellsParams{}.min_separation),
      background_distance(CellsParams{}.background_distance),
      min_area(CellsParams{}.min_area) {}

void add_pipeline_options(CLI::App& app, PipelineArguments& a) {
  app.add_option("--pipeline", a.pipeline, "nuclei | cells | kmeans | stars")
      ->required()
      ->check(CLI::IsMember({"nuclei", "cells", "kmeans", "stars"}));
  app.add_option("--foreground", a.foreground, "auto|bright|dark: which side (class) is the object")
      ->check(CLI::IsMember({"auto", "bright", "dark"}));
  app.add_option("--connectivity", a.connectivity, "4 or 8")->check(CLI::IsMember({4, 8}));
  auto* cells = app.add_option_group("cells", "the cells pipeline");
  cells->add_option("--median", a.median, "median size 3 or 5 (0: none); default 3")
      ->check(CLI::IsMember({0, 1, 3, 5}));
  cells->add_option("--open", a.open, "opening size, odd (0: none); default 3")->check(non_negative_number());
  cells->add_option("--h", a.h, "h-maxima height of the markers, pixels; default 0.5")->check(positive_number());
  cells->add_option("--min-separation", a.min_separation, "pixels between markers of one object; default 8")
      ->check(non_negative_number());
  cells->add_option("--min-area", a.min_area, "smaller regions merge into a neighbour; default 16")
      ->check(non_negative_number());
  cells->add_option("--relief", a.relief, "distance (default) or gradient (with background markers)")
      ->check(CLI::IsMember({"distance", "gradient"}));
  cells
      ->add_option("--background-distance", a.background_distance,
                   "gradient relief: background marker distance; default 8")
      ->check(non_negative_number());
  auto* kmeans = app.add_option_group("kmeans", "the kmeans pipeline");
  kmeans->add_option("--k", a.k, "clusters; default 3")->check(in_range(2, max_clusters));
  kmeans->add_option("--iters", a.iterations, "at most this many iterations; default 10")->check(positive_number());
  kmeans->add_option("--seed", a.seed, "random seed; default 0")->check(unsigned_64());
  kmeans->add_option("--space", a.space, "rgb|lab|gray")->check(CLI::IsMember({"rgb", "lab", "gray"}));
  kmeans->add_option("--class", a.object_class, "the object class 0..k-1 (ascending luminance); default: --foreground")
      ->check(non_negative_number());
  auto* stars = app.add_option_group("stars", "the stars pipeline (segment only)");
  stars->add_option("--nsigma", a.nsigma, "sources: pixels above the background + this many noise sigmas; default 5")
      ->check(positive_number());
}

void check_pipeline_arguments(PipelineArguments const& a) {
  GIGASEG_REQUIRE(a.open <= 1 || a.open % 2 == 1, ErrorKind::usage, "--open", "the opening size must be odd");
  GIGASEG_REQUIRE(a.object_class < a.k, ErrorKind::usage, "--class", "the class must be below --k");
}

PipelineParams pipeline_params(PipelineArguments const& a) {
  if (a.pipeline == "kmeans") {
    KMeansSegmentParams params;
    params.kmeans.k = a.k;
    params.kmeans.iterations = a.iterations;
    params.kmeans.seed = a.seed;
    params.kmeans.space = a.space == "lab"    ? FeatureSpace::lab
                          : a.space == "gray" ? FeatureSpace::gray
                                              : FeatureSpace::rgb;
    params.foreground = foreground_of(a.foreground);
    params.object_class = a.object_class;
    params.connectivity = a.connectivity;
    return params;
  }
  if (a.pipeline == "nuclei") {
    NucleiParams params;
    params.connectivity = a.connectivity;
    params.foreground = foreground_of(a.foreground);
    return params;
  }
  CellsParams params;
  params.foreground = foreground_of(a.foreground);
  params.median_size = a.median;
  params.open_size = a.open;
  params.h = a.h;
  params.min_separation = a.min_separation;
  params.min_area = a.min_area;
  params.relief = a.relief == "gradient" ? CellsRelief::gradient : CellsRelief::distance;
  params.background_distance = a.background_distance;
  params.connectivity = a.connectivity;
  return params;
}

void report_kmeans(nlohmann::json& report, int object_class, KMeansResult const& clusters) {
  report["object_class"] = object_class;
  report["k"] = clusters.centres.size();
  report["centres"] = nlohmann::json::array();
  for (auto const& c : clusters.centres)
    report["centres"].push_back(clusters.channels == 1 ? nlohmann::json::array({c[0]})
                                                       : nlohmann::json::array({c[0], c[1], c[2]}));
}

void report_result(nlohmann::json& report, Segmentation const& s) {
  std::visit(
      [&](auto const& r) {
        using Result = std::decay_t<decltype(r)>;
        if constexpr (std::is_same<Result, KMeansSegmentResult>::value) {
          report_kmeans(report, r.object_class, r.clusters);
        } else {
          report["threshold"] = r.threshold;
          report["foreground"] = r.dark ? "dark" : "bright";
          if constexpr (std::is_same<Result, CellsResult>::value) report["markers"] = r.markers;
        }
      },
      s.result);
}

Segmentation segment_image(Session& session, PipelineArguments const& a, AnyHostImage const& image,
                           std::string const& path) {
  Segmentation s = gigaseg::segment_image(session.context, pipeline_params(a), image, path);
  session.report["backend"] = to_string(s.backend);
  return s;
}

}  // namespace gigaseg::cli
