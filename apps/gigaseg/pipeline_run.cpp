#include "apps/gigaseg/pipeline_run.hpp"

#include "algorithms/pipelines/cells.hpp"
#include "algorithms/pipelines/kmeans_segment.hpp"
#include "algorithms/pipelines/nuclei.hpp"
#include "apps/gigaseg/backend_dispatch.hpp"

#include <chrono>
#include <type_traits>

namespace gigaseg::cli {
namespace {

Foreground foreground_of(std::string const& text) {
  return text == "bright" ? Foreground::bright : text == "dark" ? Foreground::dark : Foreground::automatic;
}

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The fields every pipeline result has; threshold pipelines add T and the side.
template <class Result>
void take_result(Segmentation& s, Result&& r) {
  s.components = r.components;
  s.regions = std::move(r.regions);
  for (auto const& [stage, ms] : r.timings_ms) s.timings_ms[stage] = ms;
  if constexpr (std::is_same<std::decay_t<Result>, NucleiResult>::value || std::is_same<std::decay_t<Result>, CellsResult>::value) {
    s.report["threshold"] = r.threshold;
    s.report["foreground"] = r.dark ? "dark" : "bright";
  }
}

template <class Space>
void run_pipeline(Space const& space, PipelineArguments const& a, AnyHostImage const& image, std::string const& path,
                  ImageView<Label, typename Space::memory_space> const& labels, Segmentation& s) {
  using Memory = typename Space::memory_space;
  auto const start = std::chrono::steady_clock::now();  // the upload's
  if (a.pipeline == "kmeans") {
    HostImage<Rgb8> const rgb = rgb8_of(image, path, "the kmeans pipeline");
    auto const colour = upload(space, rgb);
    space.fence();
    s.timings_ms["upload"] = elapsed_ms(start);
    KMeansSegmentParams params;
    params.kmeans.k = a.k;
    params.kmeans.iterations = a.iterations;
    params.kmeans.seed = a.seed;
    params.kmeans.space = a.space == "lab" ? FeatureSpace::lab : a.space == "gray" ? FeatureSpace::gray : FeatureSpace::rgb;
    params.foreground = foreground_of(a.foreground);
    params.object_class = a.object_class;
    params.connectivity = a.connectivity;
    auto r = segment_kmeans(space, ImageView<Rgb8 const, Memory>(colour), labels, params);
    take_result(s, r);
    s.report["object_class"] = r.object_class;
    s.report["k"] = a.k;
    s.report["centres"] = nlohmann::json::array();
    for (auto const& c : r.clusters.centres)
      s.report["centres"].push_back(r.clusters.channels == 1 ? nlohmann::json::array({c[0]}) : nlohmann::json::array({c[0], c[1], c[2]}));
    return;
  }
  auto const gray = gray8_on(space, image, path);
  space.fence();
  s.timings_ms["upload"] = elapsed_ms(start);
  auto const in = ImageView<std::uint8_t const, Memory>(gray);
  if (a.pipeline == "nuclei") {
    NucleiParams params;
    params.connectivity = a.connectivity;
    params.foreground = foreground_of(a.foreground);
    take_result(s, segment_nuclei(space, in, labels, params));
    return;
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
  auto r = segment_cells(space, in, labels, params);
  take_result(s, r);
  s.report["markers"] = r.markers;
}

}  // namespace

PipelineArguments::PipelineArguments()
    : h(CellsParams{}.h),
      min_separation(CellsParams{}.min_separation),
      background_distance(CellsParams{}.background_distance),
      min_area(CellsParams{}.min_area) {}

void add_pipeline_options(CLI::App& app, PipelineArguments& a) {
  app.add_option("--pipeline", a.pipeline, "nuclei | cells | kmeans")->required()->check(CLI::IsMember({"nuclei", "cells", "kmeans"}));
  app.add_option("--foreground", a.foreground, "auto|bright|dark: which side (class) is the object")
      ->check(CLI::IsMember({"auto", "bright", "dark"}));
  app.add_option("--connectivity", a.connectivity, "4 or 8")->check(CLI::IsMember({4, 8}));
  auto* cells = app.add_option_group("cells", "the cells pipeline");
  cells->add_option("--median", a.median, "median size 3 or 5 (0: none); default 3")->check(CLI::IsMember({0, 1, 3, 5}));
  cells->add_option("--open", a.open, "opening size, odd (0: none); default 3")->check(CLI::NonNegativeNumber);
  cells->add_option("--h", a.h, "h-maxima height of the markers, pixels; default 0.5")->check(CLI::PositiveNumber);
  cells->add_option("--min-separation", a.min_separation, "pixels between markers of one object; default 8")
      ->check(CLI::NonNegativeNumber);
  cells->add_option("--min-area", a.min_area, "smaller regions merge into a neighbour; default 16")->check(CLI::NonNegativeNumber);
  cells->add_option("--relief", a.relief, "distance (default) or gradient (with background markers)")
      ->check(CLI::IsMember({"distance", "gradient"}));
  cells->add_option("--background-distance", a.background_distance, "gradient relief: background marker distance; default 8")
      ->check(CLI::NonNegativeNumber);
  auto* kmeans = app.add_option_group("kmeans", "the kmeans pipeline");
  kmeans->add_option("--k", a.k, "clusters; default 3")->check(CLI::Range(2, max_clusters));
  kmeans->add_option("--iters", a.iterations, "at most this many iterations; default 10")->check(CLI::PositiveNumber);
  kmeans->add_option("--seed", a.seed, "random seed; default 0");
  kmeans->add_option("--space", a.space, "rgb|lab|gray")->check(CLI::IsMember({"rgb", "lab", "gray"}));
  kmeans->add_option("--class", a.object_class, "the object class 0..k-1 (ascending luminance); default: --foreground")
      ->check(CLI::NonNegativeNumber);
}

void check_pipeline_arguments(PipelineArguments const& a) {
  GIGASEG_REQUIRE(a.open <= 1 || a.open % 2 == 1, ErrorKind::usage, "--open", "the opening size must be odd");
  GIGASEG_REQUIRE(a.object_class < a.k, ErrorKind::usage, "--class", "the class must be below --k");
}

Segmentation segment_image(Session& session, PipelineArguments const& a, AnyHostImage const& image,
                           std::string const& path) {
  Segmentation s;
  on_backend(session, width(image) * height(image), [&](auto const& space) {
    using Memory = typename std::decay_t<decltype(space)>::memory_space;
    ImageView<Label, Memory> out("gigaseg::cli::labels", width(image), height(image));
    run_pipeline(space, a, image, path, out, s);
    auto const start = std::chrono::steady_clock::now();
    s.labels = download(space, out);
    s.timings_ms["download"] = elapsed_ms(start);
  });
  return s;
}

}  // namespace gigaseg::cli
