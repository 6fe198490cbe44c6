#pragma once
// Tuned region statistics on CUDA (see region_stats_cuda.cpp).
#include "gigaseg/algorithms/detail/region_stats_portable.hpp"
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/algorithms/region_stats_types.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/gigaseg_config.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
namespace gigaseg {
namespace tuned {

// Accumulates the statistics in the layout of algorithms/detail/region_stats_portable.hpp into
// `sums` (components x stat_fields, initialised by the caller); sets *out_of_range when a label
// exceeds `components`. Enqueued on `space`.
void region_stats(Kokkos::Cuda const& space, ImageView<Label const, Kokkos::CudaSpace> const& labels,
                  index_t components, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& intensity,
                  unsigned long long* sums, int* out_of_range);
void region_stats(Kokkos::Cuda const& space, ImageView<Label const, Kokkos::CudaSpace> const& labels,
                  index_t components, ImageView<std::uint16_t const, Kokkos::CudaSpace> const& intensity,
                  unsigned long long* sums, int* out_of_range);

// The entry of the dispatch: initialises every accumulator, then runs the kernel above. Always
// applicable: returns true.
template <class T>
bool region_sums(Kokkos::Cuda const& space, ImageView<Label const, Kokkos::CudaSpace> const& labels,
                 ImageView<T const, Kokkos::CudaSpace> const& intensity, Label largest,
                 Kokkos::View<unsigned long long*, Kokkos::CudaSpace> const& sums,
                 Kokkos::View<int, Kokkos::CudaSpace> const& out_of_range) {
  detail::init_region_sums(space, sums);
  region_stats(space, labels, index_t(largest), intensity, sums.data(), out_of_range.data());
  return true;
}

}  // namespace tuned

GIGASEG_DECLARE_TUNED(RegionStatsAlgorithm, Kokkos::Cuda, tuned::region_sums);

}  // namespace gigaseg
#endif
