#pragma once
// The segmentation pipelines as the `segment` and `batch` commands run them: their options, and
// one image through the backend the context picks (upload, pipeline, download of the labels).
#include "algorithms/region_stats.hpp"
#include "apps/gigaseg/cli.hpp"
#include "core/io/image_file.hpp"

#include <cstdint>
#include <map>
#include <memory>
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
  std::shared_ptr<void> labels_memory;  // what keeps `labels` alive when a lane's pinned buffer holds them
  std::shared_ptr<void> download;       // a lane's download of `labels`, still in flight
  Backend backend = Backend::automatic;  // the one that ran
  // Waits until `labels` hold the result (a lane's download is asynchronous); any thread may call it.
  void wait_for_labels() const;
  index_t components = 0;
  std::vector<RegionStats> regions;
  std::map<std::string, double> timings_ms;  // the pipeline's stages, upload and download
  nlohmann::json report;                     // pipeline-specific results (threshold, markers, ...)
};

// Runs the pipeline on `image` (read from `path`, named in errors) on the backend the context
// chooses for its size; records that backend in session.report["backend"].
Segmentation segment_image(Session& session, PipelineArguments const& a, AnyHostImage const& image,
                           std::string const& path);

// A batch lane: an execution-space instance on its own CUDA stream, pinned host buffers for uploads
// and downloads, and the device images of the last image, reused while sizes repeat. Images taken
// in turn by two or more lanes overlap one image's download with the next one's upload and
// compute. On builds without CUDA a lane holds nothing.
class DeviceLane {
 public:
  DeviceLane();
  ~DeviceLane();
  DeviceLane(DeviceLane const&) = delete;
  DeviceLane& operator=(DeviceLane const&) = delete;
  struct Impl;

 private:
  friend Segmentation segment_image(ExecutionContext const&, DeviceLane&, PipelineArguments const&, AnyHostImage const&,
                                    std::string const&);
  std::unique_ptr<Impl> impl_;
};

// The batch's form: images the context sends to CUDA run on the lane's stream, and their labels
// come back into the lane's pinned memory asynchronously (Segmentation::wait_for_labels); others
// run on the host backend. Call it from the thread that initialised Kokkos.
Segmentation segment_image(ExecutionContext const& context, DeviceLane& lane, PipelineArguments const& a,
                           AnyHostImage const& image, std::string const& path);

}  // namespace gigaseg::cli
