#pragma once
// Temporary device memory ordered on an execution space instance's stream (cudaMallocAsync's
// pool): no device-wide synchronisation on allocation or release, and the library's pool for the
// instance's device keeps freed memory between calls (1 GiB unless the runtime's DevicePoolOptions
// say otherwise; core/runtime.hpp), so a kernel's scratch costs no cudaMalloc/cudaFree pair and
// no new mapping per call. Released (on the same stream) when the object goes out of scope.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace gigaseg::cuda {

// The kept memory of every device's pool (existing and future); release_pools() trims them all.
void configure_pools(std::uint64_t kept_bytes);
void release_pools();

class StreamScratch {
 public:
  // Throws Error(resource) naming `label` when the device is out of memory.
  StreamScratch(Kokkos::Cuda const& space, std::size_t bytes, char const* label = "gigaseg::scratch");
  ~StreamScratch();
  StreamScratch(StreamScratch const&) = delete;
  StreamScratch& operator=(StreamScratch const&) = delete;

  void* data() const noexcept { return pointer_; }
  template <class T>
  T* as() const noexcept {
    return static_cast<T*>(pointer_);
  }

 private:
  void* pointer_ = nullptr;
  cudaStream_t stream_;
};

}  // namespace gigaseg::cuda
