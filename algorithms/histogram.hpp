#pragma once
// Histograms: 256 bins for 8-bit images; N equal bins over a value range for 16-bit and float.
//
// Paths (algorithms/path.hpp):
//  - portable: team-privatised sub-histograms in Kokkos scratch memory, merged once per team
//    (algorithms/detail/histogram_portable.hpp);
//  - tuned on CUDA, 8-bit: per-warp shared-memory sub-histograms fed by 16-byte loads, one merge per
//    block (backends/cuda/histogram_cuda.cpp);
//  - tuned on OpenMP: a private histogram per thread, merged at the end
//    (backends/openmp/histogram_openmp.cpp).
// Every path counts exactly, so every path and every run gives the same counts.
#include "gigaseg/algorithms/histogram_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace gigaseg {

// counts(b) = number of pixels of value b; `counts` needs 256 entries and is overwritten.
// Enqueued on `space`; fence before reading counts on the host.
template <class ExecSpace>
void histogram(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& image,
               Counts<typename ExecSpace::memory_space> const& counts, HistogramParams const& params = {});

// Binned histogram of a 16-bit or float image (8-bit too); `counts` needs range.bins entries.
template <class ExecSpace, class T>
void histogram(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& image,
               Counts<typename ExecSpace::memory_space> const& counts, BinRange const& range,
               HistogramParams const& params = {});

// A non-const image, the same call.
template <class ExecSpace, class T, if_mutable<T> = 0>
void histogram(ExecSpace const& space, ImageView<T, typename ExecSpace::memory_space> const& image,
               Counts<typename ExecSpace::memory_space> const& counts, BinRange const& range,
               HistogramParams const& params = {}) {
  histogram(space, ImageView<T const, typename ExecSpace::memory_space>(image), counts, range, params);
}

// The path histogram() takes on ExecSpace for an 8-bit image.
template <class ExecSpace>
Path histogram_path(HistogramParams const& params = {});

// Defined in the library (algorithms/detail/histogram_impl.hpp) for every enabled execution space:
// the 8-bit histogram, and binned histograms of 8-bit, 16-bit and float images
// (backends/instantiate/histogram.cpp).
}  // namespace gigaseg
