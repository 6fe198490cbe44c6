#pragma once
// Copies between images in any two memory spaces, honouring each side's pitch and roi.
//
// Three paths, cheapest first (large copies between pageable host memory and a CUDA device go
// through pinned staging instead: core/cuda/transfer_cuda.hpp):
//  1. Same pitch and gaps that hold no pixels (whole allocated images, or a single row): one
//     contiguous copy of the span from the first pixel to the last (Kokkos::deep_copy on the
//     given instance: cudaMemcpyAsync on its stream for CUDA).
//  2. CUDA memory on either side: cudaMemcpy2DAsync, which takes both pitches and moves only the
//     roi's rows (core/cuda/transfer_cuda.cpp).
//  3. Both sides host-accessible: rows copied in parallel on the host execution space.
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstring>
#include <type_traits>

#ifdef KOKKOS_ENABLE_CUDA
#include "gigaseg/core/cuda/transfer_cuda.hpp"
#endif

namespace gigaseg {

namespace detail {
template <class MemorySpace>
constexpr bool host_accessible = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

inline void require_same_size(index_t dw, index_t dh, index_t sw, index_t sh) {
  GIGASEG_REQUIRE(dw == sw && dh == sh, ErrorKind::input, "copy",
                  "size mismatch: destination " + std::to_string(dw) + "x" + std::to_string(dh) + ", source " +
                      std::to_string(sw) + "x" + std::to_string(sh));
}
}  // namespace detail

// Enqueues the copy on `space`. Host-to-host copies run before returning; a copy that involves
// device memory is complete once `space` is fenced.
template <class ExecSpace, class TD, class MD, class TS, class MS>
void copy(ExecSpace const& space, ImageView<TD, MD> const& dst, ImageView<TS, MS> const& src) {
  static_assert(!std::is_const<TD>::value, "copy: destination pixels must be writable");
  static_assert(std::is_same<TD, std::remove_const_t<TS>>::value,
                "copy: source and destination pixel types differ (convert first)");
  detail::require_same_size(dst.width(), dst.height(), src.width(), src.height());
  if (dst.empty()) return;
  index_t const row_bytes = dst.width() * index_t(sizeof(TD));
  index_t const rows = dst.height();
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
    constexpr bool down = std::is_same<MD, Kokkos::HostSpace>::value && !detail::host_accessible<MS>;
    constexpr bool up = std::is_same<MS, Kokkos::HostSpace>::value && !detail::host_accessible<MD>;
    if constexpr (down || up)
      if (cuda::staged_copy_2d(space, dst.data(), dst.pitch_bytes(), src.data(), src.pitch_bytes(), row_bytes, rows,
                               down))
        return;
  }
#endif

  bool const one_span = dst.pitch_bytes() == src.pitch_bytes() &&
                        (rows == 1 || (dst.has_padding_only_gaps() && src.has_padding_only_gaps()));
  if (one_span) {
    index_t const span = (rows - 1) * dst.pitch_bytes() + row_bytes;
    auto d = Kokkos::subview(dst.storage(), Kokkos::make_pair(dst.offset_bytes(), dst.offset_bytes() + span));
    auto s = Kokkos::subview(src.storage(), Kokkos::make_pair(src.offset_bytes(), src.offset_bytes() + span));
    Kokkos::deep_copy(space, d, s);
    return;
  }
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (!detail::host_accessible<MD> || !detail::host_accessible<MS>) {
    cuda::copy_2d(space, dst.data(), dst.pitch_bytes(), src.data(), src.pitch_bytes(), row_bytes, rows);
    return;
  }
#endif
  if constexpr (detail::host_accessible<MD> && detail::host_accessible<MS>) {
    space.fence();  // work already queued on `space` may still use these images
    auto* dst_bytes = reinterpret_cast<unsigned char*>(dst.data());
    auto const* src_bytes = reinterpret_cast<unsigned char const*>(src.data());
    index_t const dst_pitch = dst.pitch_bytes(), src_pitch = src.pitch_bytes();
    Kokkos::parallel_for(
        "gigaseg::copy_rows[Host]",
        Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<index_t>>(0, rows), [=](index_t y) {
          std::memcpy(dst_bytes + y * dst_pitch, src_bytes + y * src_pitch, static_cast<std::size_t>(row_bytes));
        });
    Kokkos::DefaultHostExecutionSpace().fence();
  } else {
    GIGASEG_THROW(ErrorKind::internal, "copy",
                  std::string("no pitched transfer between ") + MS::name() + " and " + MD::name() + " in this build");
  }
}

namespace detail {
// Writes every page of a new host image from all host threads. A large new allocation is fresh
// zero pages mapped on first touch; a device-to-host copy into it would take those page faults
// one at a time in the driver (measured on the H200 machine: a 64 MiB download cost about 40 ms
// more than its transfer). Touched in parallel first, the copy finds the pages present.
template <class T>
void first_touch(ImageView<T, Kokkos::HostSpace> const& image) {
  index_t const rows = image.height(), pitch = image.pitch_bytes();
  if (rows == 0 || pitch * rows < (index_t(1) << 22)) return;  // below 4 MiB the faults are cheap
  auto* bytes = reinterpret_cast<unsigned char*>(image.data());
  Kokkos::parallel_for("gigaseg::first_touch[Host]",
                       Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<index_t>>(0, rows),
                       [=](index_t y) { std::memset(bytes + y * pitch, 0, static_cast<std::size_t>(pitch)); });
  Kokkos::DefaultHostExecutionSpace().fence();
}
}  // namespace detail

// A new image in `MemorySpace` holding a copy of `src` (fenced: ready on return).
template <class MemorySpace, class ExecSpace, class T, class SrcSpace>
ImageView<std::remove_const_t<T>, MemorySpace> clone(ExecSpace const& space, ImageView<T, SrcSpace> const& src,
                                                     std::string const& label) {
  ImageView<std::remove_const_t<T>, MemorySpace> out(label, src.width(), src.height());
  if constexpr (std::is_same<MemorySpace, Kokkos::HostSpace>::value && !detail::host_accessible<SrcSpace>) {
#ifdef KOKKOS_ENABLE_CUDA
    // A staged download writes the pages on every thread itself.
    if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value)
      if (cuda::staged_copy_2d(space, out.data(), out.pitch_bytes(), src.data(), src.pitch_bytes(),
                               src.width() * index_t(sizeof(T)), src.height(), true))
        return out;
#endif
    detail::first_touch(out);
  }
  copy(space, out, src);
  space.fence();
  return out;
}

}  // namespace gigaseg
