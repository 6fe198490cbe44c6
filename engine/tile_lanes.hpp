#pragma once
// The tile engine's compute stage with its transfers overlapped, on the GPU.
//
// Tiles computed on CUDA take turns on lanes (TiledOptions::lanes, two by default), each an
// execution-space instance on a CUDA stream of its own. A tile's input is uploaded from pinned host memory (the reader
// threads copy a decoded 8-bit tile into a pinned block: stage()) and its result is downloaded into a pinned block
// without waiting (download() returns a TileOutput whose wait() the writer thread calls before it stores the tile). So
// while one lane's download of tile i runs, the calling thread queues tile i + 1's upload and kernels on the other
// lane. Device buffers come from the stream-ordered pool (core/scratch.hpp), whose releases do not synchronise the
// device as cudaFree does. A lane is taken again only once its previous tile's work has ended; the memory that work
// used (pinned blocks, device buffers) is held until then.
//
// On host backends, and in builds without CUDA, run() calls the backend as on_backend does,
// stage(), upload() and download() copy nothing, and wait() returns at once. With no lanes
// (`lanes` 0), tiles on CUDA run on the context's instance with plain transfers (on_backend.hpp's
// upload, gray8_on and download, each waiting for its copy).
#include "gigaseg/core/context.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/core/scratch.hpp"
#include "gigaseg/engine/on_backend.hpp"
#include "gigaseg/engine/pinned_pool.hpp"
#include "gigaseg/engine/segment.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace gigaseg::detail {

// A tile's result in host memory: `image`, complete once wait() has returned.
template <class T>
struct TileOutput {
  HostImage<T> image;
  std::shared_ptr<void> memory;  // the pinned block `image` lies in, where it is downloaded into one
  std::shared_ptr<void> done;    // the download's CUDA event
  int device = 0;                // ... on this GPU
  void wait() const;
};

// Blocks until the event `done` (a cudaEvent_t on GPU `device`; null: nothing in flight) has passed.
// Any thread may call it.
void wait_for_download(void* done, int device);

template <class T>
void TileOutput<T>::wait() const {
  wait_for_download(done.get(), device);
}

class TileLanes {
 public:
  // `lanes`: 0 to 16 (an Error(usage) about TiledOptions::lanes otherwise).
  TileLanes(ExecutionContext const& context, int lanes);
  ~TileLanes();  // waits for every lane
  TileLanes(TileLanes const&) = delete;
  TileLanes& operator=(TileLanes const&) = delete;

  // On a reader thread: an 8-bit gray or RGB tile of `family` work that the context sends to CUDA,
  // copied into a pinned block (detail::pinned_input); any other tile as it is.
  InputImage stage(AnyHostImage image, OpFamily family) const;

  // f(space) for one tile of `pixels` of `family` work, on the backend the context picks: on CUDA
  // the next lane's instance, once that lane's previous tile is done. Call it from the thread that
  // computes (the one that initialised Kokkos).
  template <class F>
  void run(index_t pixels, OpFamily family, F&& f) {
#ifdef KOKKOS_ENABLE_CUDA
    if (!lanes_.empty() && context_.resolve(pixels, family) == Backend::cuda) {
      Lane& lane = take_lane();
      try {
        std::forward<F>(f)(lane.space);
      } catch (...) {
        current_ = nullptr;
        release(lane);  // nothing of the failed tile may still be in flight when its memory goes
        throw;
      }
      current_ = nullptr;
      return;
    }
#endif
    on_backend(context_, pixels, family, std::forward<F>(f));
  }

  // `host` in `space`'s memory: itself on the host; on a lane, a device image filled from pinned
  // memory (`memory`, the block `host` lies in, or a block it is copied into here).
  template <class Space, class T>
  ImageView<T const, typename Space::memory_space> upload(Space const& space, HostImage<T> const& host,
                                                          std::shared_ptr<void> const& memory = {}) {
    if constexpr (std::is_same<typename Space::memory_space, Kokkos::HostSpace>::value) {
      (void)space, (void)memory;
      return host;
    } else {
#ifdef KOKKOS_ENABLE_CUDA
      if (current_ == nullptr) return gigaseg::upload(space, host);  // not on a lane
      Lane& lane = *current_;
      auto device =
          std::make_shared<ScratchImage<T, Space>>(space, "gigaseg::tiled::input", host.width(), host.height());
      if (memory) {
        copy(space, device->view(), host);
        lane.held.push_back(memory);
      } else {
        std::shared_ptr<PinnedPool::Block> block;
        copy(space, device->view(), pinned_copy(*pool_, host, "tile engine", block));
        lane.held.push_back(std::move(block));
      }
      lane.held.push_back(device);
      return device->view();
#else
      static_assert(sizeof(T) == 0, "no device memory in this build");
#endif
    }
  }

  // The tile's 8-bit gray in `space`'s memory (colour becomes BT.601 gray there, as gray8_on);
  // other pixel types are an input error naming `name`.
  template <class Space>
  ImageView<std::uint8_t const, typename Space::memory_space> gray8(Space const& space, InputImage const& tile,
                                                                    std::string const& name) {
    using Memory = typename Space::memory_space;
    if constexpr (!std::is_same<Memory, Kokkos::HostSpace>::value) {
#ifdef KOKKOS_ENABLE_CUDA
      if (current_ == nullptr) return gray8_on(space, tile.pixels, name);  // not on a lane
      if (auto const* gray = std::get_if<HostImage<std::uint8_t>>(&tile.pixels))
        return upload(space, *gray, tile.memory);
      if (auto const* rgb = std::get_if<HostImage<Rgb8>>(&tile.pixels)) {
        auto const colour = upload(space, *rgb, tile.memory);
        auto gray = std::make_shared<ScratchImage<std::uint8_t, Space>>(space, "gigaseg::tiled::gray", colour.width(),
                                                                        colour.height());
        rgb_to_gray(space, colour, gray->view());
        current_->held.push_back(gray);
        return gray->view();
      }
#endif
    }
    return gray8_on(space, tile.pixels, name);
  }

  // `image` (in `space`'s memory) on the host: itself on the host; on a lane, a download into a
  // pinned block queued on the lane's stream, which the TileOutput's wait() waits for.
  template <class Space, class T>
  TileOutput<T> download(Space const& space, ImageView<T, typename Space::memory_space> const& image) {
    TileOutput<T> out;
    if constexpr (std::is_same<typename Space::memory_space, Kokkos::HostSpace>::value) {
      (void)space;
      out.image = image;
    } else {
#ifdef KOKKOS_ENABLE_CUDA
      if (current_ == nullptr) {  // not on a lane: a plain download, complete on return
        out.image = gigaseg::download(space, image);
        return out;
      }
      auto block = pool_->acquire(pinned_bytes<T>(image.width(), image.height()), "tile engine");
      out.image = pinned_image<T>(*block, image.width(), image.height());
      copy(space, out.image, ImageView<T const, typename Space::memory_space>(image));
      current_->held.push_back(block);  // not handed out again before the copy has ended, whoever drops it
      out.done = record_download(space);
      out.device = space.cuda_device();
      out.memory = std::move(block);
#endif
    }
    return out;
  }

 private:
#ifdef KOKKOS_ENABLE_CUDA
  struct Lane {
    void* stream = nullptr;
    Kokkos::Cuda space;
    std::vector<std::shared_ptr<void>> held;  // memory of the work queued on the lane
  };
  Lane& take_lane();
  static void release(Lane& lane);
  void close() noexcept;  // waits for every lane and lets its stream go
  static std::shared_ptr<void> record_download(Kokkos::Cuda const& space);
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::size_t turn_ = 0;
  Lane* current_ = nullptr;
  std::shared_ptr<PinnedPool> pool_;
#endif
  ExecutionContext const& context_;
};

}  // namespace gigaseg::detail
