#include "gigaseg/core/cuda/transfer_cuda.hpp"

#include "gigaseg/core/cuda/cuda_check.hpp"

namespace gigaseg::cuda {

void copy_2d(Kokkos::Cuda const& space, void* dst, index_t dst_pitch, void const* src, index_t src_pitch,
             index_t row_bytes, index_t rows) {
  // cudaMemcpyDefault: the unified address space tells the driver which side each pointer is on.
  GIGASEG_CUDA_CHECK(cudaMemcpy2DAsync(dst, static_cast<std::size_t>(dst_pitch), src,
                                       static_cast<std::size_t>(src_pitch), static_cast<std::size_t>(row_bytes),
                                       static_cast<std::size_t>(rows), cudaMemcpyDefault, space.cuda_stream()));
}

}  // namespace gigaseg::cuda
