// gigaseg segment IN OUT --pipeline nuclei|cells|kmeans [--stats CSV] [--geojson FILE] [--overlay PNG]: the
// end-to-end pipelines (docs/cli.md). nuclei: gray, Otsu, label, stats. cells: median, Otsu,
// opening, EDT, distance-peak markers, watershed, small-region merge, stats. kmeans: colour
// k-means, the object class's components, stats. The image goes to the backend once; the labels
// come back once; --json reports every stage's time.
#include "apps/gigaseg/label_output.hpp"
#include "apps/gigaseg/pipeline_run.hpp"
#include "apps/gigaseg/tiling.hpp"
#include "gigaseg/core/io/atomic_file.hpp"

#include <iostream>
#include <memory>
#include <vector>

namespace gigaseg::cli {
namespace {

struct SegmentArguments {
  std::string input, output, stats, geojson, overlay, tile, memory_limit;
  double simplify = 0;
  PipelineArguments pipeline;
};

// The nuclei or cells pipeline tile by tile (engine/tiled.hpp): the same labels and statistics.
void segment_tiled(Session& session, SegmentArguments const& a, Tiling const& tiling) {
  GIGASEG_REQUIRE(
      a.pipeline.pipeline == "nuclei" || a.pipeline.pipeline == "cells", ErrorKind::usage, "--tile",
      "tiles are for --pipeline nuclei and cells (the " + a.pipeline.pipeline + " pipeline runs in memory)");
  GIGASEG_REQUIRE(a.overlay.empty(), ErrorKind::usage, "--overlay", "an overlay is not written tile by tile");
  refuse_tiled_geojson(a.geojson);
  GIGASEG_REQUIRE(format_for_extension(a.output) == ImageFormat::tiff, ErrorKind::usage, a.output,
                  "tiled labels are written to a .tif or .tiff file");
  PipelineParams const params = pipeline_params(a.pipeline);
  TiledOptions const options = tiled_options(tiling, session);
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
      for (auto const& [stage, seconds] : result.stage_seconds) r["stage_seconds"][stage] = seconds;
    }
  }
  {
    StageTimer timer(session, "write");
    // Rank 0 writes the statistics; every rank ends with its outcome.
    detail::collectively(session.group, [&] {
      if (!a.stats.empty() && session.first_rank()) write_stats_csv(a.stats, regions);
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
  if (r.contains("stage_seconds")) {
    r["tiled"]["stage_seconds"] = r["stage_seconds"];
    r.erase("stage_seconds");
  }
  if (!session.options.json && !session.options.quiet) std::cout << components << "\n";
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
  add_geojson_options(app, a.geojson, a.simplify);
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
    GIGASEG_REQUIRE(a.pipeline.pipeline != "kmeans" || detail::group_size(session.group) <= 1, ErrorKind::usage,
                    "--pipeline", "the kmeans pipeline runs on one process, not over ranks");
    bool const can_tile = a.pipeline.pipeline == "nuclei" || a.pipeline.pipeline == "cells";
    Tiling const tiling =
        can_tile || !a.tile.empty()
            ? choose_tiling(session, a.input, a.tile, a.memory_limit, a.output,
                            a.pipeline.pipeline == "cells" ? cells_bytes_per_pixel : in_memory_bytes_per_pixel)
            : Tiling{};
    if (tiling.tiled()) return segment_tiled(session, a, tiling);
    AnyHostImage image;
    {
      StageTimer timer(session, "read");
      image = read_image(a.input);
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
      write_geojson(a.geojson, labels, outcome.regions(), a.pipeline.connectivity, a.simplify);
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
