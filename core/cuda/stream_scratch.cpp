#include "gigaseg/core/cuda/stream_scratch.hpp"

#include "gigaseg/core/cuda/cuda_check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>

namespace gigaseg::cuda {
namespace {

// The library's own stream-ordered pool, one per device. cudaMallocAsync's default pool has a
// release threshold of 0: it hands its memory back to the driver at every synchronisation, so the
// next call maps it again (tens to hundreds of microseconds, a third of a whole K-means run at
// 2048 x 2048). These pools keep up to `kept_bytes` between calls; more is trimmed at the next
// synchronisation. Pools of our own leave the application's default pool as it configured it.
struct Pools {
  std::mutex mutex;
  std::map<int, cudaMemPool_t> by_device;
  std::uint64_t kept_bytes = std::uint64_t(1) << 30;
};

Pools& pools() {
  static Pools instance;
  return instance;
}

void set_kept(cudaMemPool_t pool, std::uint64_t kept_bytes) {
  GIGASEG_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &kept_bytes));
}

// The pool of the device the instance runs on (not the calling thread's current device).
cudaMemPool_t pool_of(Kokkos::Cuda const& space) {
  int const device = space.cuda_device();
  Pools& all = pools();
  std::lock_guard<std::mutex> lock(all.mutex);
  auto found = all.by_device.find(device);
  if (found != all.by_device.end()) return found->second;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  GIGASEG_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
  set_kept(pool, all.kept_bytes);
  all.by_device.emplace(device, pool);
  return pool;
}

}  // namespace

StreamScratch::StreamScratch(Kokkos::Cuda const& space, std::size_t bytes, char const* label)
    : stream_(space.cuda_stream()) {
  cudaError_t const status =
      cudaMallocFromPoolAsync(&pointer_, std::max<std::size_t>(bytes, 1), pool_of(space), stream_);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // not sticky: the context stays usable
    GIGASEG_THROW(ErrorKind::resource, label,
                  "out of device memory allocating " + std::to_string(bytes >> 20) + " MiB (cudaMallocFromPoolAsync)");
  }
  if (status != cudaSuccess) throw_cuda_error(status, "cudaMallocFromPoolAsync", __FILE__, __LINE__);
}

void configure_pools(std::uint64_t kept_bytes) {
  Pools& all = pools();
  std::lock_guard<std::mutex> lock(all.mutex);
  all.kept_bytes = kept_bytes;
  for (auto const& entry : all.by_device) set_kept(entry.second, kept_bytes);
}

void release_pools() {
  Pools& all = pools();
  std::lock_guard<std::mutex> lock(all.mutex);
  for (auto const& entry : all.by_device) GIGASEG_CUDA_CHECK(cudaMemPoolTrimTo(entry.second, 0));
}

StreamScratch::~StreamScratch() { cudaFreeAsync(pointer_, stream_); }

}  // namespace gigaseg::cuda
