// gigaseg segment IN OUT --pipeline nuclei|cells|kmeans [--stats CSV] [--geojson FILE] [--overlay PNG]: the
// end-to-end pipelines (docs/cli.md). nuclei: gray, Otsu, label, stats. cells: median, Otsu,
// opening, EDT, distance-peak markers, watershed, small-region merge, stats. kmeans: colour
// k-means, the object class's components, stats. The image goes to the backend once; the labels
// come back once; --json reports every stage's time.
#include "apps/gigaseg/backend_dispatch.hpp"
#include "apps/gigaseg/label_output.hpp"
#include "apps/gigaseg/pipeline_run.hpp"
#include "apps/gigaseg/tiling.hpp"
#include "gigaseg/algorithms/pipelines/stars.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/io/atomic_file.hpp"

#include <cstdio>
#include <iostream>
#include <memory>
#include <vector>

namespace gigaseg::cli {
namespace {

struct SegmentArguments {
  std::string input, output, stats, geojson, overlay, tile, memory_limit;
  GeoJsonOptions outlines;
  PipelineArguments pipeline;
};

// The nuclei, cells or kmeans pipeline tile by tile (engine/tiled.hpp): the same labels and statistics.
void segment_tiled(Session& session, SegmentArguments const& a, Tiling const& tiling) {
  GIGASEG_REQUIRE(a.overlay.empty(), ErrorKind::usage, "--overlay", "an overlay is not written tile by tile");
  GIGASEG_REQUIRE(
      format_for_extension(a.output) == ImageFormat::tiff || format_for_extension(a.output) == ImageFormat::zarr,
      ErrorKind::usage, a.output, "tiled labels are written to a .tif, .tiff or .ome.zarr output");
  PipelineParams const params = pipeline_params(a.pipeline);
  TiledOptions options = tiled_options(tiling, session);
  options.spread_regions = a.geojson.empty();  // the outlines are traced by rank 0, with every region
  auto& r = session.report;
  std::vector<RegionStats> regions;
  index_t components = 0;
  TiledReport report;
  {
    StageTimer timer(session, "compute");  // reading, segmenting and writing interleave
    if (a.pipeline.pipeline == "nuclei") {
      TiledNucleiResult result = segment_nuclei_tiled(session.context, tiling.engine_input(session), a.output,
                                                      std::get<NucleiParams>(params), options);
      r["threshold"] = result.threshold;
      r["foreground"] = result.dark ? "dark" : "bright";
      regions = std::move(result.regions);
      components = result.components;
      report = result.report;
    } else if (a.pipeline.pipeline == "kmeans") {
      TiledKMeansResult result = segment_kmeans_tiled(session.context, tiling.engine_input(session), a.output,
                                                      std::get<KMeansSegmentParams>(params), options);
      report_kmeans(r, result.object_class, result.clusters);
      r["iterations"] = result.clusters.iterations;
      regions = std::move(result.regions);
      components = result.components;
      report = result.report;
    } else {
      TiledCellsResult result = segment_cells_tiled(session.context, tiling.engine_input(session), a.output,
                                                    std::get<CellsParams>(params), options);
      r["threshold"] = result.threshold;
      r["foreground"] = result.dark ? "dark" : "bright";
      r["markers"] = result.markers;
      regions = std::move(result.regions);
      components = result.components;
      report = result.report;
      r["rounds"] = {{"reconstruction", result.reconstruction_rounds},
                     {"plateaus", result.plateau_rounds},
                     {"watershed", result.watershed_rounds}};
      r["windows"] = {{"halo", result.window_halo}, {"retried", result.window_retries}};
      for (auto const& [stage, seconds] : result.stage_seconds) r["stage_seconds"][stage] = seconds;
    }
  }
  {
    StageTimer timer(session, "write");
    // Every rank writes its regions' rows (cells: rank 0 holds them all).
    if (!a.stats.empty()) write_stats_csv(session.group, a.stats, regions);
  }
  if (!a.geojson.empty()) {
    StageTimer timer(session, "geojson");  // the labels read back in bands of rows, traced and written
    detail::collectively(session.group, [&] {
      if (session.first_rank()) write_geojson_tiled(a.geojson, a.output, regions, a.outlines, options.memory_bytes);
    });
  }
  ImageShape const shape = image_shape(a.input);
  r["command"] = "segment";
  r["pipeline"] = a.pipeline.pipeline;
  r["backend"] = to_string(session.context.resolve(tiling.tile_width * tiling.tile_height, OpFamily::pipeline));
  r["width"] = shape.width;
  r["height"] = shape.height;
  r["components"] = components;
  r["tiled"] = tiled_report(tiling, report, session.group);
  if (r.contains("rounds")) {
    r["tiled"]["rounds"] = r["rounds"];
    r.erase("rounds");
  }
  if (r.contains("windows")) {
    r["tiled"]["windows"] = r["windows"];
    r.erase("windows");
  }
  if (r.contains("stage_seconds")) {
    r["tiled"]["stage_seconds"] = r["stage_seconds"];
    r.erase("stage_seconds");
  }
  if (!session.options.json && !session.options.quiet) std::cout << components << "\n";
}

// The stars pipeline (algorithms/pipelines/stars.hpp) on a gray or float image, in memory: labels
// and a table of the sources' flux and flux-weighted centroids.
void segment_stars(Session& session, SegmentArguments const& a) {
  GIGASEG_REQUIRE(a.tile.empty() && a.memory_limit.empty(), ErrorKind::usage,
                  a.tile.empty() ? "--memory-limit" : "--tile", "the stars pipeline runs in memory");
  GIGASEG_REQUIRE(a.overlay.empty(), ErrorKind::usage, "--overlay", "the stars pipeline writes no overlay");
  GIGASEG_REQUIRE(a.geojson.empty(), ErrorKind::usage, "--geojson", "the stars pipeline writes no outlines");
  GIGASEG_REQUIRE(detail::group_size(session.group) <= 1, ErrorKind::usage, "--pipeline",
                  "the stars pipeline runs on one process, not over ranks");
  AnyHostImage image;
  {
    StageTimer timer(session, "read");
    image = read_input(session, a.input);
  }
  GIGASEG_REQUIRE(pixel_type(image) != PixelType::rgb8, ErrorKind::input, a.input,
                  "the stars pipeline takes a gray or float image, not RGB");
  // Integer images as float: the sky and the fluxes are computed in floating point.
  HostImage<float> pixels("gigaseg::cli::stars", width(image), height(image));
  std::visit(
      [&](auto const& in) {
        using T = typename std::decay_t<decltype(in)>::value_type;
        if constexpr (!std::is_same_v<T, Rgb8>)
          for (index_t y = 0; y < in.height(); ++y)
            for (index_t x = 0; x < in.width(); ++x) pixels(y, x) = float(in(y, x));
      },
      image);
  StarParams params;
  params.nsigma = a.pipeline.nsigma;
  params.connectivity = a.pipeline.connectivity;
  StarResult result;
  HostImage<Label> labels;
  {
    StageTimer timer(session, "compute");
    on_backend(session, pixels.pixel_count(), OpFamily::pipeline, [&](auto const& space) {
      using Memory = typename std::decay_t<decltype(space)>::memory_space;
      ImageView<float const, Memory> const on = upload(space, pixels);
      ImageView<Label, Memory> device_labels("gigaseg::cli::star_labels", pixels.width(), pixels.height());
      try {
        result = gigaseg::segment_stars(space, on, device_labels, params);
      } catch (Error const& e) {  // the library names its image; the user's is the input file
        if (e.kind() == ErrorKind::input) GIGASEG_THROW(ErrorKind::input, a.input, e.reason());
        throw;
      }
      labels = download(space, device_labels);
    });
  }
  for (auto const& [stage, ms] : result.timings_ms) session.timings_ms[stage] = ms;
  {
    StageTimer timer(session, "write");
    write_label_image(a.output, labels, result.components);
    if (!a.stats.empty()) {
      std::string csv = "label,area,x0,y0,x1,y1,flux_cx,flux_cy,flux,peak\n";
      char line[320];
      for (StarSource const& s : result.sources) {
        int const n = std::snprintf(line, sizeof line, "%u,%lld,%lld,%lld,%lld,%lld,%.4f,%.4f,%.6g,%.6g\n", s.label,
                                    (long long)s.area, (long long)s.x0, (long long)s.y0, (long long)s.x1,
                                    (long long)s.y1, s.cx, s.cy, s.flux, s.peak);
        csv.append(line, std::size_t(n));
      }
      write_text_file(a.stats, csv);
    }
  }
  auto& r = session.report;
  r["command"] = "segment";
  r["pipeline"] = "stars";
  r["width"] = pixels.width();
  r["height"] = pixels.height();
  r["background"] = result.background;
  r["noise"] = result.noise;
  r["threshold"] = result.threshold;
  r["components"] = result.components;
  if (!session.options.json && !session.options.quiet) std::cout << result.components << "\n";
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
  add_pipeline_options(app, a.pipeline);
  app.add_option("--stats", a.stats, "CSV of the regions");
  add_geojson_options(app, a.geojson, a.outlines);
  app.add_option("--overlay", a.overlay,
                 "PNG (or pyramidal OME-TIFF, .ome.tif) of the input with coloured region boundaries");
  add_tiling_options(app, a.tile, a.memory_limit);
  command.run = [arguments](Session& session) {
    SegmentArguments const& a = *arguments;
    check_pipeline_arguments(a.pipeline);
    check_label_output(a.output);
    for (std::string const* path : {&a.stats, &a.geojson})
      if (!path->empty()) {
        AtomicOutput check(*path);
      }
    if (!a.overlay.empty()) {
      GIGASEG_REQUIRE(format_for_extension(a.overlay) == ImageFormat::png || is_ome_tiff_name(a.overlay),
                      ErrorKind::usage, "--overlay", "the overlay is a .png or an OME-TIFF (.ome.tif) file");
      AtomicOutput check(a.overlay);
    }
    if (a.pipeline.pipeline == "stars") return segment_stars(session, a);
    Tiling const tiling = choose_tiling(session, a.input, a.tile, a.memory_limit, a.output,
                                        pipeline_bytes_per_pixel(a.pipeline.pipeline));
    if (tiling.tiled()) return segment_tiled(session, a, tiling);
    AnyHostImage image;
    {
      StageTimer timer(session, "read");
      image = read_input(session, a.input);
    }
    Segmentation outcome;
    {
      StageTimer timer(session, "compute");
      outcome = segment_image(session, a.pipeline, image, a.input);
    }
    for (auto const& [stage, ms] : outcome.timings_ms) session.timings_ms[stage] = ms;
    HostImage<Label> const& labels = outcome.labels;
    {
      StageTimer timer(session, "write");
      write_label_image(a.output, labels, outcome.components());
      if (!a.stats.empty()) write_stats_csv(a.stats, outcome.regions());
      if (!a.overlay.empty()) write_overlay(a.overlay, image, labels);
    }
    if (!a.geojson.empty()) {
      StageTimer timer(session, "geojson");  // tracing the outlines and writing them
      write_geojson(a.geojson, labels, outcome.regions(), a.outlines);
    }
    auto& r = session.report;
    r["command"] = "segment";
    r["pipeline"] = a.pipeline.pipeline;
    r["width"] = width(image);
    r["height"] = height(image);
    report_result(r, outcome);
    r["components"] = outcome.components();
    if (!session.options.json && !session.options.quiet) std::cout << outcome.components() << "\n";
  };
  return command;
}

}  // namespace gigaseg::cli
