#pragma once
// Temporary images and arrays of an algorithm, ordered on its execution space instance.
//
// A Kokkos allocation in CudaSpace is a cudaMalloc and its release a cudaFree, which waits for the
// whole device: about 40 + 50 microseconds a buffer on the H200 (measured, 1 to 128 MiB), so a
// pipeline of some thirty temporaries spent about 3 ms of its 17 on them. On CUDA these come from
// the library's stream-ordered pool instead (core/cuda/stream_scratch.hpp): allocated and freed
// on the instance's stream, so the memory is safe to reuse as soon as the kernels queued before
// the release have run, with no device-wide synchronisation. Every use must be on that instance
// (or ordered after it by the caller). Other spaces allocate as ImageView and Kokkos::View do.
// Contents start uninitialised.
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <memory>
#include <string>

#ifdef KOKKOS_ENABLE_CUDA
#include "gigaseg/core/cuda/stream_scratch.hpp"
#endif

namespace gigaseg {

template <class T, class ExecSpace>
class ScratchImage {
 public:
  using Memory = typename ExecSpace::memory_space;
  ScratchImage(ExecSpace const& space, std::string const& label, index_t width, index_t height) {
#ifdef KOKKOS_ENABLE_CUDA
    if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
      index_t const pitch = aligned_pitch(width, index_t(sizeof(T)));
      memory_ = std::make_unique<cuda::StreamScratch>(space, std::size_t(pitch * height), label.c_str());
      view_ = ImageView<T, Memory>::wrap(memory_->as<T>(), width, height, pitch);
      return;
    }
#endif
    (void)space;
    view_ = ImageView<T, Memory>(label, width, height);
  }
  ImageView<T, Memory> const& view() const noexcept { return view_; }

 private:
  ImageView<T, Memory> view_;
#ifdef KOKKOS_ENABLE_CUDA
  std::unique_ptr<cuda::StreamScratch> memory_;
#endif
};

template <class T, class ExecSpace>
class ScratchArray {
 public:
  using Memory = typename ExecSpace::memory_space;
  using View = Kokkos::View<T*, Memory, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  ScratchArray(ExecSpace const& space, std::string const& label, std::size_t size) {
#ifdef KOKKOS_ENABLE_CUDA
    if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
      memory_ = std::make_unique<cuda::StreamScratch>(space, size * sizeof(T), label.c_str());
      view_ = View(memory_->as<T>(), size);
      return;
    }
#endif
    (void)space;
    owned_ = Kokkos::View<T*, Memory>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), size);
    view_ = View(owned_.data(), size);
  }
  View const& view() const noexcept { return view_; }

 private:
  View view_;
  Kokkos::View<T*, Memory> owned_;
#ifdef KOKKOS_ENABLE_CUDA
  std::unique_ptr<cuda::StreamScratch> memory_;
#endif
};

}  // namespace gigaseg
