#pragma once
// One image through a segmentation pipeline on the backend an ExecutionContext chooses for its
// size: the host image goes to that backend, the pipeline runs, the labels come back.
//
// Two forms: segment_image(context, params, image, name), one image at a time; and the form a
// batch uses, on a DeviceLane (its own CUDA stream and device images reused from one image to the
// next) with inputs in pinned memory (PinnedStaging), whose labels come back asynchronously.
#include "gigaseg/algorithms/pipelines/cells.hpp"
#include "gigaseg/algorithms/pipelines/kmeans_segment.hpp"
#include "gigaseg/algorithms/pipelines/nuclei.hpp"
#include "gigaseg/core/context.hpp"
#include "gigaseg/core/io/image_file.hpp"

#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace gigaseg {

// Which pipeline, and its parameters. nuclei and cells take 8-bit gray (RGB becomes BT.601 gray on
// the backend); kmeans takes 8-bit RGB (gray becomes R = G = B).
using PipelineParams = std::variant<NucleiParams, CellsParams, KMeansSegmentParams>;
// The pipeline's own result (threshold and side, markers, clusters, regions, stage timings); its
// alternative matches the PipelineParams'.
using PipelineResult = std::variant<NucleiResult, CellsResult, KMeansSegmentResult>;

char const* pipeline_name(PipelineParams const& params) noexcept;  // "nuclei", "cells", "kmeans"

struct Segmentation {
  HostImage<Label> labels;
  Backend backend = Backend::automatic;  // the one that ran
  PipelineResult result;
  // The pipeline's stages, and "upload" and "download" (milliseconds, each ending with a fence).
  std::map<std::string, double> timings_ms;

  index_t components() const;
  std::vector<RegionStats> const& regions() const;
  // Waits until `labels` hold the result: a lane's download is asynchronous (a no-op otherwise).
  // Any thread may call it.
  void wait_for_labels() const;

  std::shared_ptr<void> labels_memory;  // what keeps `labels` alive when a lane's pinned block holds them
  std::shared_ptr<void> download;       // a lane's download of `labels` (a CUDA event), still in flight
  int download_device = 0;              // the GPU of that event
};

// Runs the pipeline on `image` on the backend the context chooses for its size (OpFamily::pipeline).
// `name` (the image's file, say) is the subject of input errors.
Segmentation segment_image(ExecutionContext const& context, PipelineParams const& params, AnyHostImage const& image,
                           std::string const& name);

// A decoded image as a batch holds it; `memory` keeps `pixels` alive where they lie in a pinned
// block (then `pinned` is true, and an upload is one DMA copy, with no staging copy first).
struct InputImage {
  AnyHostImage pixels;
  std::shared_ptr<void> memory;
  bool pinned = false;
};

// Pinned host memory (cudaHostAlloc) shared by a batch's reader threads and lanes. Allocation is
// slow and freeing synchronises the device, so blocks are reused until the staging object goes.
// On builds without CUDA it holds nothing.
class PinnedStaging {
 public:
  PinnedStaging();
  ~PinnedStaging();
  PinnedStaging(PinnedStaging const&) = delete;
  PinnedStaging& operator=(PinnedStaging const&) = delete;
  // `image` as a batch input: 8-bit gray and RGB images that the context sends to CUDA are copied
  // into pinned memory, pitched as on the device; others are kept as they are. Any thread may call it.
  InputImage input(ExecutionContext const& context, AnyHostImage image) const;
  struct Pool;

 private:
  friend class DeviceLane;
  std::shared_ptr<Pool> pool_;
};

// A lane: an execution-space instance on its own CUDA stream, pinned host buffers for downloads,
// and the device images of the last image, reused while sizes repeat. Images taken in turn by two
// or more lanes overlap: one image's upload (stage) and download run on their lanes while another
// is segmented. On builds without CUDA a lane holds nothing and images run on the host backend.
class DeviceLane {
 public:
  explicit DeviceLane(PinnedStaging const& staging);
  ~DeviceLane();
  DeviceLane(DeviceLane const&) = delete;
  DeviceLane& operator=(DeviceLane const&) = delete;
  // Queues the upload of `image` (and its conversion to gray where the pipeline takes gray) on the
  // lane's stream without waiting, when the context sends it to CUDA and it is 8-bit gray or RGB;
  // the lane's next segment_image of this same object then starts from it. Returns whether it did.
  // Call it from the thread that initialised Kokkos.
  bool stage(ExecutionContext const& context, PipelineParams const& params, InputImage const& image);
  struct Impl;

 private:
  friend Segmentation segment_image(ExecutionContext const&, DeviceLane&, PipelineParams const&, InputImage const&,
                                    std::string const&);
  std::unique_ptr<Impl> impl_;
};

// The lane's form: images the context sends to CUDA run on the lane's stream, and their labels
// come back into pinned memory asynchronously (Segmentation::wait_for_labels); others run on the
// host backend. Call it from the thread that initialised Kokkos.
Segmentation segment_image(ExecutionContext const& context, DeviceLane& lane, PipelineParams const& params,
                           InputImage const& image, std::string const& name);

}  // namespace gigaseg
