#include "backends/cuda/stream_scratch.hpp"

#include "backends/cuda/cuda_check.hpp"

#include <cuda_runtime.h>

#include <algorithm>

namespace gigaseg::cuda {

StreamScratch::StreamScratch(Kokkos::Cuda const& space, std::size_t bytes) : stream_(space.cuda_stream()) {
  GIGASEG_CUDA_CHECK(cudaMallocAsync(&pointer_, std::max<std::size_t>(bytes, 1), stream_));
}

StreamScratch::~StreamScratch() { cudaFreeAsync(pointer_, stream_); }

}  // namespace gigaseg::cuda
