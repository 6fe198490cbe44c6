// The tile engine's lanes (tile_lanes.hpp): their streams, turns and download events.
#include "gigaseg/engine/tile_lanes.hpp"

#include <string>

#ifdef KOKKOS_ENABLE_CUDA
#include "gigaseg/core/cuda/cuda_check.hpp"
#include "gigaseg/core/cuda/stream_instance.hpp"

#include <cuda_runtime_api.h>
#endif

namespace gigaseg::detail {

namespace {
void require_lanes(int lanes) {
  GIGASEG_REQUIRE(lanes >= 0 && lanes <= 16, ErrorKind::usage, "TiledOptions::lanes",
                  "must be 0 to 16, not " + std::to_string(lanes));
}
}  // namespace

void wait_for_download(void* done, int device) {
#ifdef KOKKOS_ENABLE_CUDA
  if (done == nullptr) return;
  // A writer thread's current device is 0 until set: the event's own device, so that no context
  // is made on another GPU.
  GIGASEG_CUDA_CHECK(cudaSetDevice(device));
  GIGASEG_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(done)));
#else
  (void)done;
  (void)device;
#endif
}

#ifdef KOKKOS_ENABLE_CUDA
TileLanes::TileLanes(ExecutionContext const& context, int lanes) : context_(context) {
  require_lanes(lanes);
  Backend const requested = context.requested();
  if (backend_available(Backend::cuda) && (requested == Backend::automatic || requested == Backend::cuda)) {
    pool_ = std::make_shared<PinnedPool>();
    try {
      for (int l = 0; l < lanes; ++l) {
        lanes_.push_back(std::make_unique<Lane>());
        lanes_.back()->space = cuda::make_stream_instance(lanes_.back()->stream);
      }
    } catch (...) {
      close();
      throw;
    }
  }
}

TileLanes::~TileLanes() { close(); }

void TileLanes::close() noexcept {
  for (auto& lane : lanes_) {
    try {
      release(*lane);
    } catch (...) {  // a CUDA error surfacing here was the work's, reported by it or lost with it
    }
    lane->held.clear();
    lane->space = Kokkos::Cuda();  // the instance goes before its stream
    if (lane->stream != nullptr) cuda::destroy_stream(lane->stream);
  }
  lanes_.clear();
}

TileLanes::Lane& TileLanes::take_lane() {
  Lane& lane = *lanes_[turn_++ % lanes_.size()];
  release(lane);  // its previous tile's work has ended: the memory it used is free again
  current_ = &lane;
  return lane;
}

void TileLanes::release(Lane& lane) {
  lane.space.fence();
  lane.held.clear();
}

std::shared_ptr<void> TileLanes::record_download(Kokkos::Cuda const& space) {
  cudaEvent_t done = nullptr;
  GIGASEG_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  std::shared_ptr<void> event(done, [](void* e) { (void)cudaEventDestroy(static_cast<cudaEvent_t>(e)); });
  GIGASEG_CUDA_CHECK(cudaEventRecord(done, space.cuda_stream()));
  return event;
}

InputImage TileLanes::stage(AnyHostImage image, OpFamily family) const {
  if (lanes_.empty()) {
    InputImage in;
    in.pixels = std::move(image);
    return in;
  }
  return pinned_input(*pool_, context_, std::move(image), family, "tile engine");
}
#else
TileLanes::TileLanes(ExecutionContext const& context, int lanes) : context_(context) { require_lanes(lanes); }
TileLanes::~TileLanes() = default;

InputImage TileLanes::stage(AnyHostImage image, OpFamily) const {
  InputImage in;
  in.pixels = std::move(image);
  return in;
}
#endif

}  // namespace gigaseg::detail
