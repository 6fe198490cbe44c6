#pragma once
// Pitched 2-D copies through cudaMemcpy2DAsync: any pair of host, pinned and device buffers,
// different pitches on each side, only the bytes of the region's rows moved.
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

namespace gigaseg::cuda {

// Enqueued on `space`'s stream.
void copy_2d(Kokkos::Cuda const& space, void* dst, index_t dst_pitch, void const* src, index_t src_pitch,
             index_t row_bytes, index_t rows);

// Any other execution space: fences it, copies on the default stream and waits.
template <class ExecSpace>
void copy_2d(ExecSpace const& space, void* dst, index_t dst_pitch, void const* src, index_t src_pitch,
             index_t row_bytes, index_t rows) {
  space.fence();
  Kokkos::Cuda cuda;
  copy_2d(cuda, dst, dst_pitch, src, src_pitch, row_bytes, rows);
  cuda.fence();
}

}  // namespace gigaseg::cuda
