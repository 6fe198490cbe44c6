#pragma once
// The segmentation pipelines as the `segment` and `batch` commands run them: their options, and
// one image through the backend the context picks (upload, pipeline, download of the labels).
#include "algorithms/region_stats.hpp"
#include "apps/gigaseg/cli.hpp"
#include "core/io/image_file.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gigaseg::cli {

struct PipelineArguments {
  PipelineArguments();  // the library's defaults (CellsParams)
  std::string pipeline, foreground = "auto", relief = "distance", space = "rgb";
  int connectivity = 8, median = 3, open = 3, k = 3, iterations = 10, object_class = -1;
  float h, min_separation, background_distance;
  index_t min_area;
  std::uint64_t seed = 0;
};

// --pipeline (required) and the options of each pipeline.
void add_pipeline_options(CLI::App& app, PipelineArguments& a);
// The checks CLI11 cannot make alone (usage errors naming the option).
void check_pipeline_arguments(PipelineArguments const& a);

struct Segmentation {
  HostImage<Label> labels;
  index_t components = 0;
  std::vector<RegionStats> regions;
  std::map<std::string, double> timings_ms;  // the pipeline's stages, upload and download
  nlohmann::json report;                     // pipeline-specific results (threshold, markers, ...)
};

// Runs the pipeline on `image` (read from `path`, named in errors) on the backend the context
// chooses for its size; records that backend in session.report["backend"].
Segmentation segment_image(Session& session, PipelineArguments const& a, AnyHostImage const& image,
                           std::string const& path);

}  // namespace gigaseg::cli
