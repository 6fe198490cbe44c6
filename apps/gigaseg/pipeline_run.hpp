#pragma once
// The segmentation pipelines as the `segment` and `batch` commands offer them: their options, the
// library parameters those options make, and the results as the JSON report shows them.
#include "apps/gigaseg/cli.hpp"
#include "gigaseg/engine/segment.hpp"

#include <cstdint>
#include <string>

namespace gigaseg::cli {

struct PipelineArguments {
  PipelineArguments();  // the library's defaults (CellsParams)
  std::string pipeline, foreground = "auto", relief = "distance", space = "rgb";
  int connectivity = 8, median = 3, open = 3, k = 3, iterations = 10, object_class = -1;
  float h, min_separation, background_distance;
  index_t min_area;
  std::uint64_t seed = 0;
  double nsigma = 5;  // stars
};

// --pipeline (required) and the options of each pipeline.
void add_pipeline_options(CLI::App& app, PipelineArguments& a);
// The checks CLI11 cannot make alone (usage errors naming the option).
void check_pipeline_arguments(PipelineArguments const& a);
// The library's parameters for the chosen pipeline.
PipelineParams pipeline_params(PipelineArguments const& a);
// The pipeline-specific results in the JSON report: threshold and side (nuclei, cells), markers
// (cells), the object class and the cluster centres (kmeans).
void report_result(nlohmann::json& report, Segmentation const& s);
// The kmeans pipeline's entries of it: the object class, k and the centres.
void report_kmeans(nlohmann::json& report, int object_class, KMeansResult const& clusters);

// segment_image on the session's context; records the backend in session.report["backend"].
Segmentation segment_image(Session& session, PipelineArguments const& a, AnyHostImage const& image,
                           std::string const& path);

}  // namespace gigaseg::cli
