#pragma once
// The segmentation pipelines as the `segment` and `batch` commands run them: their options, and
// one image through the backend the context picks (upload, pipeline, download of the labels).
#include "gigaseg/algorithms/region_stats.hpp"
#include "apps/gigaseg/cli.hpp"
#include "gigaseg/core/io/image_file.hpp"

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

// A decoded image as a batch holds it; `memory` keeps `pixels` alive where they lie in a pinned
// block (then `pinned` is true, and an upload is one DMA copy, with no staging copy first).
struct InputImage {
  AnyHostImage pixels;
  std::shared_ptr<void> memory;
  bool pinned = false;
};

// Pinned host memory (cudaHostAlloc) shared by a batch's reader threads and lanes. Allocation is
// slow and freeing synchronises the device, so blocks are reused until the batch ends. On builds
// without CUDA it holds nothing.
class PinnedStaging {
 public:
  PinnedStaging();
  ~PinnedStaging();
  PinnedStaging(PinnedStaging const&) = delete;
  PinnedStaging& operator=(PinnedStaging const&) = delete;
  // `image` as a batch input: 8-bit gray and RGB images that the context sends to CUDA are copied
  // into pinned memory, pitched as on the device; others are kept as they are. Any thread may call
  // it (the batch's readers do, after decoding).
  InputImage input(ExecutionContext const& context, AnyHostImage image) const;
  struct Pool;

 private:
  friend class DeviceLane;
  std::shared_ptr<Pool> pool_;
};

// A batch lane: an execution-space instance on its own CUDA stream, pinned host buffers for
// downloads, and the device images of the last image, reused while sizes repeat. Images taken in
// turn by two or more lanes overlap: one image's upload (stage) and download run on their lanes
// while another is segmented. On builds without CUDA a lane holds nothing.
class DeviceLane {
 public:
  explicit DeviceLane(PinnedStaging const& staging);
  ~DeviceLane();
  DeviceLane(DeviceLane const&) = delete;
  DeviceLane& operator=(DeviceLane const&) = delete;
  // Queues the upload of `image` (and its conversion to gray where the pipeline takes gray) on
  // the lane's stream without waiting, when the context sends it to CUDA and it is 8-bit gray or
  // RGB; the lane's next segment_image of this same object then starts from it. Returns whether
  // it did. Call it from the thread that initialised Kokkos.
  bool stage(ExecutionContext const& context, PipelineArguments const& a, InputImage const& image);
  struct Impl;

 private:
  friend Segmentation segment_image(ExecutionContext const&, DeviceLane&, PipelineArguments const&, InputImage const&,
                                    std::string const&);
  std::unique_ptr<Impl> impl_;
};

// The batch's form: images the context sends to CUDA run on the lane's stream, and their labels
// come back into pinned memory asynchronously (Segmentation::wait_for_labels); others run on the
// host backend. Call it from the thread that initialised Kokkos.
Segmentation segment_image(ExecutionContext const& context, DeviceLane& lane, PipelineArguments const& a,
                           InputImage const& image, std::string const& path);

}  // namespace gigaseg::cli
