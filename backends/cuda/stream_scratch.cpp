#include "backends/cuda/stream_scratch.hpp"

#include "backends/cuda/cuda_check.hpp"

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
// 2048 x 2048). This pool keeps up to `kept_bytes` between calls; more is trimmed at the next
// synchronisation. A pool of our own leaves the application's default pool as it configured it.
constexpr std::uint64_t kept_bytes = std::uint64_t(1) << 30;

cudaMemPool_t pool_of_current_device() {
  static std::mutex mutex;
  static std::map<int, cudaMemPool_t> pools;
  int device = 0;
  GIGASEG_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  auto found = pools.find(device);
  if (found != pools.end()) return found->second;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  GIGASEG_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
  std::uint64_t threshold = kept_bytes;
  GIGASEG_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  pools.emplace(device, pool);
  return pool;
}

}  // namespace

StreamScratch::StreamScratch(Kokkos::Cuda const& space, std::size_t bytes, char const* label)
    : stream_(space.cuda_stream()) {
  cudaError_t const status = cudaMallocFromPoolAsync(&pointer_, std::max<std::size_t>(bytes, 1), pool_of_current_device(), stream_);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // not sticky: the context stays usable
    GIGASEG_THROW(ErrorKind::resource, label,
                  "out of device memory allocating " + std::to_string(bytes >> 20) + " MiB (cudaMallocFromPoolAsync)");
  }
  if (status != cudaSuccess) throw_cuda_error(status, "cudaMallocFromPoolAsync", __FILE__, __LINE__);
}

StreamScratch::~StreamScratch() { cudaFreeAsync(pointer_, stream_); }

}  // namespace gigaseg::cuda
