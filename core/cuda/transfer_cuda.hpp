#pragma once
// Pitched 2-D copies through cudaMemcpy2DAsync: any pair of host, pinned and device buffers,
// different pitches on each side, only the bytes of the region's rows moved.
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

namespace gigaseg::cuda {

// Enqueued on `space`'s stream.
void copy_2d(Kokkos::Cuda const& space, void* dst, index_t dst_pitch, void const* src, index_t src_pitch,
             index_t row_bytes, index_t rows);

// Copies of at least staged_copy_min_bytes between pageable host memory and the device go through
// two pinned blocks of 16 MiB, the host's side copied on every OpenMP thread while the other
// block's DMA runs. A plain copy from or into pageable memory is staged by the driver on one
// thread, and each fresh page of a new host image faults in on that thread. Returns false, having
// done nothing, where it does not apply (a smaller copy, a pinned host buffer, a row longer than a
// block, or the blocks in use by another copy): the caller copies the plain way. Done on return.
constexpr index_t staged_copy_min_bytes = index_t(128) << 20;
bool staged_copy_2d(Kokkos::Cuda const& space, void* dst, index_t dst_pitch, void const* src, index_t src_pitch,
                    index_t row_bytes, index_t rows, bool to_host);
// Frees the pinned blocks (Runtime's destructor, before Kokkos ends).
void release_staging() noexcept;

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
