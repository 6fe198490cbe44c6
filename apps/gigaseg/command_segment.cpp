// gigaseg segment IN OUT --pipeline nuclei|cells|kmeans [--stats CSV] [--overlay PNG]: the
// end-to-end pipelines (shared/CLI.md). nuclei: gray, Otsu, label, stats. cells: median, Otsu,
// opening, EDT, distance-peak markers, watershed, small-region merge, stats. kmeans: colour
// k-means, the object class's components, stats. The image goes to the backend once; the labels
// come back once; --json reports every stage's time.
#include "algorithms/pipelines/cells.hpp"
#include "algorithms/pipelines/kmeans_segment.hpp"
#include "algorithms/pipelines/nuclei.hpp"
#include "apps/gigaseg/backend_dispatch.hpp"
#include "apps/gigaseg/label_output.hpp"
#include "core/io/atomic_file.hpp"

#include <chrono>
#include <iostream>
#include <type_traits>

namespace gigaseg::cli {
namespace {

struct SegmentArguments {
  std::string input, output, pipeline, stats, overlay, foreground = "auto", relief = "distance", space = "rgb";
  int connectivity = 8, median = 3, open = 3, k = 3, iterations = 10, object_class = -1;
  float h = CellsParams{}.h, min_separation = CellsParams{}.min_separation, background_distance = CellsParams{}.background_distance;
  index_t min_area = CellsParams{}.min_area;
  std::uint64_t seed = 0;
};

Foreground foreground_of(std::string const& text) {
  return text == "bright" ? Foreground::bright : text == "dark" ? Foreground::dark : Foreground::automatic;
}

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// What every pipeline returns to the command.
struct Outcome {
  index_t components = 0;
  std::vector<RegionStats> regions;
  std::map<std::string, double> timings_ms;
  nlohmann::json report;  // pipeline-specific results
};

// The fields every pipeline result has; threshold pipelines add T and the side.
template <class Result>
Outcome outcome_of(Result&& r) {
  Outcome o;
  o.components = r.components;
  o.regions = std::move(r.regions);
  o.timings_ms = std::move(r.timings_ms);
  if constexpr (std::is_same<std::decay_t<Result>, NucleiResult>::value || std::is_same<std::decay_t<Result>, CellsResult>::value) {
    o.report["threshold"] = r.threshold;
    o.report["foreground"] = r.dark ? "dark" : "bright";
  }
  return o;
}

template <class Space>
Outcome run_pipeline(Space const& space, SegmentArguments const& a, AnyHostImage const& image,
                     ImageView<Label, typename Space::memory_space> const& labels, Session& session) {
  using Memory = typename Space::memory_space;
  Outcome o;
  auto const start = std::chrono::steady_clock::now();  // the upload's
  if (a.pipeline == "kmeans") {
    HostImage<Rgb8> const rgb = rgb8_of(image, a.input, "the kmeans pipeline");
    auto const colour = upload(space, rgb);
    space.fence();
    session.timings_ms["upload"] = elapsed_ms(start);
    KMeansSegmentParams params;
    params.kmeans.k = a.k;
    params.kmeans.iterations = a.iterations;
    params.kmeans.seed = a.seed;
    params.kmeans.space = a.space == "lab" ? FeatureSpace::lab : a.space == "gray" ? FeatureSpace::gray : FeatureSpace::rgb;
    params.foreground = foreground_of(a.foreground);
    params.object_class = a.object_class;
    params.connectivity = a.connectivity;
    auto r = segment_kmeans(space, ImageView<Rgb8 const, Memory>(colour), labels, params);
    o = outcome_of(r);
    o.report["object_class"] = r.object_class;
    o.report["k"] = a.k;
    o.report["centres"] = nlohmann::json::array();
    for (auto const& c : r.clusters.centres)
      o.report["centres"].push_back(r.clusters.channels == 1 ? nlohmann::json::array({c[0]}) : nlohmann::json::array({c[0], c[1], c[2]}));
    return o;
  }
  auto const gray = gray8_on(space, image, a.input);
  space.fence();
  session.timings_ms["upload"] = elapsed_ms(start);
  auto const in = ImageView<std::uint8_t const, Memory>(gray);
  if (a.pipeline == "nuclei") {
    NucleiParams params;
    params.connectivity = a.connectivity;
    params.foreground = foreground_of(a.foreground);
    return outcome_of(segment_nuclei(space, in, labels, params));
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
  o = outcome_of(r);
  o.report["markers"] = r.markers;
  return o;
}

}  // namespace

Command make_segment_command(CLI::App& parent) {
  auto arguments = std::make_shared<SegmentArguments>();
  auto& a = *arguments;
  Command command;
  command.name = "segment";
  command.app = parent.add_subcommand("segment", "end-to-end segmentation pipelines");
  CLI::App& app = *command.app;
  app.add_option("IN", a.input, "input image (8-bit gray or RGB)")->required();
  app.add_option("OUT", a.output, "label image (.tif: 32-bit; .png: if N fits 16 bits)")->required();
  app.add_option("--pipeline", a.pipeline, "nuclei | cells | kmeans")->required()->check(CLI::IsMember({"nuclei", "cells", "kmeans"}));
  app.add_option("--stats", a.stats, "CSV of the regions");
  app.add_option("--overlay", a.overlay, "PNG of the input with coloured region boundaries");
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
  command.run = [arguments](Session& session) {
    SegmentArguments const& a = *arguments;
    GIGASEG_REQUIRE(a.open <= 1 || a.open % 2 == 1, ErrorKind::usage, "--open", "the opening size must be odd");
    GIGASEG_REQUIRE(a.object_class < a.k, ErrorKind::usage, "--class", "the class must be below --k");
    check_label_output(a.output);
    if (!a.stats.empty()) {
      AtomicOutput check(a.stats);
    }
    if (!a.overlay.empty()) {
      GIGASEG_REQUIRE(format_for_extension(a.overlay) == ImageFormat::png, ErrorKind::usage, "--overlay",
                      "the overlay is a .png file");
      AtomicOutput check(a.overlay);
    }
    AnyHostImage image;
    {
      StageTimer timer(session, "read");
      image = read_image(a.input);
    }
    Outcome outcome;
    HostImage<Label> labels;
    {
      StageTimer timer(session, "compute");
      on_backend(session, width(image) * height(image), [&](auto const& space) {
        using Memory = typename std::decay_t<decltype(space)>::memory_space;
        ImageView<Label, Memory> out("gigaseg::cli::labels", width(image), height(image));
        outcome = run_pipeline(space, a, image, out, session);
        auto const start = std::chrono::steady_clock::now();
        labels = download(space, out);
        session.timings_ms["download"] = elapsed_ms(start);
      });
    }
    for (auto const& [stage, ms] : outcome.timings_ms) session.timings_ms[stage] = ms;
    {
      StageTimer timer(session, "write");
      write_label_image(a.output, labels, outcome.components);
      if (!a.stats.empty()) write_stats_csv(a.stats, outcome.regions);
      if (!a.overlay.empty()) write_overlay(a.overlay, image, labels);
    }
    auto& r = session.report;
    r["command"] = "segment";
    r["pipeline"] = a.pipeline;
    r["width"] = width(image);
    r["height"] = height(image);
    for (auto const& [key, value] : outcome.report.items()) r[key] = value;
    r["components"] = outcome.components;
    if (!session.options.json && !session.options.quiet) std::cout << outcome.components << "\n";
  };
  return command;
}

}  // namespace gigaseg::cli
