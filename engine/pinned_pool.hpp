#pragma once
// Pinned host memory (cudaHostAlloc) in blocks that are reused: allocating pinned memory is slow
// and freeing it synchronises the device, so a block goes back to the pool, not to the system,
// when its last user lets go of it. A copy between pinned host memory and the device is one DMA
// transfer queued on a stream (cudaMemcpyAsync returns at once), where a copy from pageable
// memory is staged by the driver and holds the calling thread. Used by a batch's lanes
// (engine/segment.hpp) and by the tile engine's lanes (engine/tile_lanes.hpp). CUDA builds only.
#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_CUDA
#include "gigaseg/core/context.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/engine/segment.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gigaseg::detail {

class PinnedPool {
 public:
  struct Block {
    void* data = nullptr;
    std::size_t bytes = 0;
    Block() = default;
    Block(Block const&) = delete;
    Block& operator=(Block const&) = delete;
    ~Block() {
      if (data != nullptr) (void)cudaFreeHost(data);
    }
  };
  // A block of at least `bytes` that no one else holds: one used before where one is free, else a
  // new one. Any thread may call it. A failed allocation is a resource error about `user`.
  std::shared_ptr<Block> acquire(std::size_t bytes, char const* user) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto const& block : blocks_)
      if (block.use_count() == 1 && block->bytes >= bytes) return block;
    auto block = std::make_shared<Block>();
    if (cudaHostAlloc(&block->data, bytes, cudaHostAllocDefault) != cudaSuccess) {
      (void)cudaGetLastError();
      GIGASEG_THROW(ErrorKind::resource, user,
                    "cannot allocate " + std::to_string(bytes >> 20) + " MiB of pinned host memory");
    }
    block->bytes = bytes;
    blocks_.push_back(block);
    return block;
  }

 private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<Block>> blocks_;
};

// The bytes of a w x h image pitched as on the device, and such an image in a block.
template <class T>
std::size_t pinned_bytes(index_t w, index_t h) {
  return std::size_t(aligned_pitch(w, index_t(sizeof(T))) * h);
}
template <class T>
HostImage<T> pinned_image(PinnedPool::Block const& block, index_t w, index_t h) {
  return HostImage<T>::wrap(static_cast<T*>(block.data), w, h, aligned_pitch(w, index_t(sizeof(T))));
}

// `host` copied into a block of `pool` (returned in `block`, which keeps the copy alive).
template <class T>
HostImage<T> pinned_copy(PinnedPool& pool, HostImage<T> const& host, char const* user,
                         std::shared_ptr<PinnedPool::Block>& block) {
  block = pool.acquire(pinned_bytes<T>(host.width(), host.height()), user);
  HostImage<T> const pinned = pinned_image<T>(*block, host.width(), host.height());
  for (index_t y = 0; y < host.height(); ++y)
    std::memcpy(pinned.row(y), host.row(y), std::size_t(host.width()) * sizeof(T));
  return pinned;
}

// `image` as an input that a device takes from pinned memory: an 8-bit gray or RGB image of
// `family` work that `context` sends to CUDA is copied into a block of `pool` (a resource error
// about `user` where none can be had); any other is kept as it is (engine/segment.cpp).
InputImage pinned_input(PinnedPool& pool, ExecutionContext const& context, AnyHostImage image, OpFamily family,
                        char const* user);

}  // namespace gigaseg::detail
#endif
