#pragma once
// Dispatch of algorithms/histogram.hpp: the tuned path where the backend has one, else portable.
#include "algorithms/detail/histogram_portable.hpp"
#include "gigaseg_config.hpp"

#include <type_traits>

#ifdef KOKKOS_ENABLE_OPENMP
#include "backends/openmp/histogram_openmp.hpp"
#endif
#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
#include "backends/cuda/histogram_cuda.hpp"
#endif

namespace gigaseg {
namespace detail {

template <class ExecSpace>
struct TunedHistogram : std::false_type {};
#ifdef KOKKOS_ENABLE_OPENMP
template <>
struct TunedHistogram<Kokkos::OpenMP> : std::true_type {};
#endif
#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
template <>
struct TunedHistogram<Kokkos::Cuda> : std::true_type {};
#endif

inline void require_bins(std::size_t have, int need) {
  GIGASEG_REQUIRE(have >= std::size_t(need), ErrorKind::usage, "histogram",
                  "counts has " + std::to_string(have) + " entries, " + std::to_string(need) + " needed");
}

}  // namespace detail

template <class ExecSpace>
Path histogram_path(HistogramParams const& params) {
  return resolve_path(params.path, detail::TunedHistogram<ExecSpace>::value, "histogram");
}

template <class ExecSpace>
void histogram(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& image,
               Counts<typename ExecSpace::memory_space> const& counts, HistogramParams const& params) {
  detail::require_bins(counts.extent(0), 256);
  if (histogram_path<ExecSpace>(params) == Path::tuned) {
    if constexpr (detail::TunedHistogram<ExecSpace>::value) {
      // The tuned kernels return false when a precondition (such as 16-byte-aligned rows) fails.
      if (tuned::histogram_u8(space, image, counts)) return;
    }
  }
  detail::histogram_portable(space, image, counts, 256, detail::ByteBins{});
}

template <class ExecSpace, class T>
void histogram(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& image,
               Counts<typename ExecSpace::memory_space> const& counts, BinRange const& range,
               HistogramParams const& params) {
  static_assert(std::is_same<T, std::uint8_t>::value || std::is_same<T, std::uint16_t>::value ||
                    std::is_same<T, float>::value,
                "binned histograms take 8-bit, 16-bit or float images");
  GIGASEG_REQUIRE(range.bins >= 1 && range.bins <= (1 << 20), ErrorKind::usage, "--bins",
                  "must be between 1 and 1048576");
  GIGASEG_REQUIRE(range.hi > range.lo, ErrorKind::usage, "--range", "HI must be greater than LO");
  detail::require_bins(counts.extent(0), range.bins);
  (void)histogram_path<ExecSpace>(params);  // validates a forced path
  // Binned histograms have only the portable path: for 16-bit and float data the bin arithmetic,
  // not the counting, dominates, and it is the same code either way.
  detail::histogram_portable(space, image, counts, range.bins, detail::RangeBins(range));
}

}  // namespace gigaseg
