// The pipelines on the backend a context picks: the plain form (new device images per call) and
// the lane form (a stream per lane, device images reused, pinned uploads and downloads).
#include "gigaseg/engine/segment.hpp"

#include "gigaseg/engine/on_backend.hpp"
#include "gigaseg/engine/pinned_pool.hpp"
#include "gigaseg/engine/tile_lanes.hpp"

#include <chrono>
#include <cstring>
#include <mutex>
#include <type_traits>

#ifdef KOKKOS_ENABLE_CUDA
#include "gigaseg/core/cuda/cuda_check.hpp"
#include "gigaseg/core/cuda/stream_instance.hpp"

#include <cuda_runtime_api.h>
#endif

namespace gigaseg {
namespace {

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The image on the backend, the plain way: a new device image per call (upload, gray8_on).
template <class Space>
struct PlainInputs {
  Space const& space;
  ImageView<Rgb8, typename Space::memory_space> rgb(HostImage<Rgb8> const& image) const { return upload(space, image); }
  ImageView<std::uint8_t, typename Space::memory_space> gray(AnyHostImage const& image, std::string const& name) const {
    return gray8_on(space, image, name);
  }
};

// inputs.rgb(HostImage<Rgb8>) and inputs.gray(AnyHostImage, name): the image on the backend.
template <class Space, class Inputs>
void run_pipeline(Space const& space, PipelineParams const& params, AnyHostImage const& image, std::string const& name,
                  ImageView<Label, typename Space::memory_space> const& labels, Segmentation& s, Inputs const& inputs) {
  using Memory = typename Space::memory_space;
  auto const start = std::chrono::steady_clock::now();  // the upload's
  if (auto const* kmeans = std::get_if<KMeansSegmentParams>(&params)) {
    HostImage<Rgb8> const rgb = rgb8_of(image, name, "the kmeans pipeline");
    auto const colour = inputs.rgb(rgb);
    space.fence();
    s.timings_ms["upload"] = elapsed_ms(start);
    s.result = segment_kmeans(space, ImageView<Rgb8 const, Memory>(colour), labels, *kmeans);
  } else {
    auto const gray = inputs.gray(image, name);
    space.fence();
    s.timings_ms["upload"] = elapsed_ms(start);
    auto const in = ImageView<std::uint8_t const, Memory>(gray);
    if (auto const* nuclei = std::get_if<NucleiParams>(&params))
      s.result = segment_nuclei(space, in, labels, *nuclei);
    else
      s.result = segment_cells(space, in, labels, std::get<CellsParams>(params));
  }
  std::visit(
      [&](auto const& r) {
        for (auto const& [stage, ms] : r.timings_ms) s.timings_ms[stage] = ms;
      },
      s.result);
}

}  // namespace

char const* pipeline_name(PipelineParams const& params) noexcept {
  switch (params.index()) {
    case 0: return "nuclei";
    case 1: return "cells";
    default: return "kmeans";
  }
}

index_t Segmentation::components() const {
  return std::visit([](auto const& r) { return r.components; }, result);
}

std::vector<RegionStats> const& Segmentation::regions() const {
  return std::visit([](auto const& r) -> std::vector<RegionStats> const& { return r.regions; }, result);
}

Segmentation segment_image(ExecutionContext const& context, PipelineParams const& params, AnyHostImage const& image,
                           std::string const& name) {
  Segmentation s;
  index_t const pixels = width(image) * height(image);
  s.backend = on_backend(context, pixels, OpFamily::pipeline, [&](auto const& space) {
    using Memory = typename std::decay_t<decltype(space)>::memory_space;
    ImageView<Label, Memory> out("gigaseg::labels", width(image), height(image));
    run_pipeline(space, params, image, name, out, s, PlainInputs<std::decay_t<decltype(space)>>{space});
    auto const start = std::chrono::steady_clock::now();
    s.labels = download(space, out);
    s.timings_ms["download"] = elapsed_ms(start);
  });
  return s;
}

#ifdef KOKKOS_ENABLE_CUDA
// The batch's pinned blocks (detail::PinnedPool): a block is free again when no one else holds it
// (a writer thread releases a label image's block when the file is written).
struct PinnedStaging::Pool : detail::PinnedPool {};

PinnedStaging::PinnedStaging() : pool_(std::make_shared<Pool>()) {}

namespace {
using detail::pinned_bytes;
using detail::pinned_image;
}  // namespace

namespace detail {
InputImage pinned_input(PinnedPool& pool, ExecutionContext const& context, AnyHostImage image, OpFamily family,
                        char const* user) {
  InputImage in;
  index_t const pixels = width(image) * height(image);
  if (pixels > 0 && context.resolve(pixels, family) == Backend::cuda) {
    // A reader thread's current device is 0 until set: the context's, so that the pinned memory's
    // allocation makes no context on another GPU.
    GIGASEG_CUDA_CHECK(cudaSetDevice(context.device().cuda_device()));
    auto pin = [&](auto const& host) {
      std::shared_ptr<PinnedPool::Block> block;
      in.pixels = pinned_copy(pool, host, user, block);
      in.memory = std::move(block);
      in.pinned = true;
    };
    if (auto const* gray = std::get_if<HostImage<std::uint8_t>>(&image))
      pin(*gray);
    else if (auto const* rgb = std::get_if<HostImage<Rgb8>>(&image))
      pin(*rgb);
  }
  if (!in.pinned) in.pixels = std::move(image);
  return in;
}
}  // namespace detail

InputImage PinnedStaging::input(ExecutionContext const& context, AnyHostImage image) const {
  return detail::pinned_input(*pool_, context, std::move(image), OpFamily::pipeline, "batch");
}

struct DeviceLane::Impl {
  using Memory = Kokkos::CudaSpace;
  void* stream = nullptr;
  Kokkos::Cuda space;
  std::shared_ptr<PinnedStaging::Pool> pinned;
  // The last image's device images, reused while the size repeats.
  ImageView<std::uint8_t, Memory> gray;
  ImageView<Rgb8, Memory> rgb;
  ImageView<Label, Memory> labels;
  std::vector<std::shared_ptr<void>> uploads;  // host memory of uploads in flight, held until the image is done
  InputImage const* staged = nullptr;          // the image whose upload stage() queued
  bool staged_gray = false;                    // ... into `gray` (else into `rgb`)

  explicit Impl(std::shared_ptr<PinnedStaging::Pool> pool)
      : space(cuda::make_stream_instance(stream)), pinned(std::move(pool)) {}
  ~Impl() {
    try {
      space.fence();
    } catch (...) {  // a CUDA error surfacing here was the work's, reported by it or lost with it
    }
    gray = {};
    rgb = {};
    labels = {};
    space = Kokkos::Cuda();  // drop the instance before its stream goes
    cuda::destroy_stream(stream);
  }
  template <class T>
  static ImageView<T, Memory>& sized(ImageView<T, Memory>& image, index_t w, index_t h, char const* label) {
    if (image.width() != w || image.height() != h) {
      image = {};
      image = ImageView<T, Memory>(label, w, h);
    }
    return image;
  }
  // `host` on the device, queued on the lane's stream: straight from pinned memory, or through a
  // pinned block when the image is not pinned.
  template <class T>
  ImageView<T, Memory> const& upload(HostImage<T> const& host, InputImage const& image, ImageView<T, Memory>& device) {
    sized(device, host.width(), host.height(), "gigaseg::batch::input");
    if (image.pinned) {
      copy(space, device, host);
      uploads.push_back(image.memory);
      return device;
    }
    std::shared_ptr<detail::PinnedPool::Block> block;
    copy(space, device, detail::pinned_copy(*pinned, host, "batch", block));
    uploads.push_back(std::move(block));
    return device;
  }
  // The gray input on the device (uploaded, or converted there from RGB); nullptr for other types.
  ImageView<std::uint8_t, Memory> const* gray_input(InputImage const& image) {
    if (auto const* g = std::get_if<HostImage<std::uint8_t>>(&image.pixels)) return &upload(*g, image, gray);
    if (auto const* colour = std::get_if<HostImage<Rgb8>>(&image.pixels)) {
      auto const& device_rgb = upload(*colour, image, rgb);
      auto const& device_gray = sized(gray, device_rgb.width(), device_rgb.height(), "gigaseg::batch::gray");
      rgb_to_gray(space, ImageView<Rgb8 const, Memory>(device_rgb), device_gray);
      return &device_gray;
    }
    return nullptr;
  }
};

namespace {
// The lane's inputs: what stage() queued for this image, else uploads into the lane's device
// images; colour becomes gray there.
struct LaneInputs {
  DeviceLane::Impl& lane;
  InputImage const& input;
  ImageView<Rgb8, Kokkos::CudaSpace> rgb(HostImage<Rgb8> const& image) const {
    if (lane.staged == &input && !lane.staged_gray) return lane.rgb;
    return lane.upload(image, input, lane.rgb);
  }
  ImageView<std::uint8_t, Kokkos::CudaSpace> gray(AnyHostImage const& image, std::string const& name) const {
    if (lane.staged == &input && lane.staged_gray) return lane.gray;
    if (auto const* g = lane.gray_input(input)) return *g;
    return gray8_on(lane.space, image, name);  // converted on the host, or the input error naming the file
  }
};
}  // namespace

DeviceLane::DeviceLane(PinnedStaging const& staging) : impl_(std::make_unique<Impl>(staging.pool_)) {}

bool DeviceLane::stage(ExecutionContext const& context, PipelineParams const& params, InputImage const& image) {
  Impl& l = *impl_;
  l.staged = nullptr;
  index_t const pixels = width(image.pixels) * height(image.pixels);
  if (pixels == 0 || context.resolve(pixels, OpFamily::pipeline) != Backend::cuda) return false;
  try {
    if (std::holds_alternative<KMeansSegmentParams>(params)) {
      auto const* colour = std::get_if<HostImage<Rgb8>>(&image.pixels);
      if (colour == nullptr) return false;  // gray becomes RGB on the host first (rgb8_of)
      l.upload(*colour, image, l.rgb);
      l.staged_gray = false;
    } else {
      if (l.gray_input(image) == nullptr) return false;
      l.staged_gray = true;
    }
  } catch (...) {
    l.space.fence();
    l.uploads.clear();
    throw;
  }
  l.staged = &image;
  return true;
}
#else
struct PinnedStaging::Pool {};
PinnedStaging::PinnedStaging() = default;
InputImage PinnedStaging::input(ExecutionContext const&, AnyHostImage image) const {
  InputImage in;
  in.pixels = std::move(image);
  return in;
}
struct DeviceLane::Impl {};
DeviceLane::DeviceLane(PinnedStaging const&) {}
bool DeviceLane::stage(ExecutionContext const&, PipelineParams const&, InputImage const&) { return false; }
#endif
PinnedStaging::~PinnedStaging() = default;
DeviceLane::~DeviceLane() = default;

void Segmentation::wait_for_labels() const { detail::wait_for_download(download.get(), download_device); }

Segmentation segment_image(ExecutionContext const& context, DeviceLane& lane, PipelineParams const& params,
                           InputImage const& input, std::string const& name) {
  AnyHostImage const& image = input.pixels;
  Segmentation s;
  s.backend = context.resolve(width(image) * height(image), OpFamily::pipeline);
#ifdef KOKKOS_ENABLE_CUDA
  if (s.backend == Backend::cuda) {
    DeviceLane::Impl& l = *lane.impl_;
    auto& labels = DeviceLane::Impl::sized(l.labels, width(image), height(image), "gigaseg::batch::labels");
    try {
      run_pipeline(l.space, params, image, name, labels, s, LaneInputs{l, input});
      // The download is queued on the lane's stream and left running: the next image's upload and
      // kernels go on meanwhile (on another lane), and the writer waits for this event.
      auto block = l.pinned->acquire(pinned_bytes<Label>(labels.width(), labels.height()), "batch");
      s.labels = pinned_image<Label>(*block, labels.width(), labels.height());
      copy(l.space, s.labels, labels);
      cudaEvent_t done = nullptr;
      GIGASEG_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
      s.download =
          std::shared_ptr<void>(done, [](void* event) { (void)cudaEventDestroy(static_cast<cudaEvent_t>(event)); });
      GIGASEG_CUDA_CHECK(cudaEventRecord(done, l.space.cuda_stream()));
      s.download_device = l.space.cuda_device();
      s.labels_memory = std::move(block);
    } catch (...) {
      l.space.fence();  // nothing of this image may still be in flight when its buffers are reused
      l.uploads.clear();
      l.staged = nullptr;
      throw;
    }
    l.uploads.clear();
    l.staged = nullptr;
    return s;
  }
#else
  (void)lane;
#endif
  auto on = [&](auto const& space) {
    ImageView<Label, Kokkos::HostSpace> out("gigaseg::labels", width(image), height(image));
    run_pipeline(space, params, image, name, out, s, PlainInputs<std::decay_t<decltype(space)>>{space});
    s.labels = out;
  };
  switch (s.backend) {
#ifdef KOKKOS_ENABLE_OPENMP
    case Backend::openmp: on(Kokkos::OpenMP()); return s;
#endif
#ifdef KOKKOS_ENABLE_SERIAL
    case Backend::serial: on(Kokkos::Serial()); return s;
#endif
    default:
      GIGASEG_THROW(ErrorKind::usage, "ContextOptions::backend",
                    std::string(to_string(s.backend)) + " is not compiled into this gigaseg");
  }
}

}  // namespace gigaseg
