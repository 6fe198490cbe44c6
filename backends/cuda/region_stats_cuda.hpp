#pragma once
// Tuned region statistics on CUDA (see region_stats_cuda.cpp).
#include "algorithms/detail/label_types.hpp"
#include "core/image.hpp"

#include <cstdint>

namespace gigaseg::tuned {

// Accumulates the statistics of algorithms/detail/region_stats_impl.hpp's layout into `sums`
// (components x stat_fields, initialised by the caller); sets *out_of_range when a label exceeds
// `components`. Enqueued on `space`.
void region_stats(Kokkos::Cuda const& space, ImageView<Label const, Kokkos::CudaSpace> const& labels, index_t components,
                  ImageView<std::uint8_t const, Kokkos::CudaSpace> const& intensity, unsigned long long* sums,
                  int* out_of_range);
void region_stats(Kokkos::Cuda const& space, ImageView<Label const, Kokkos::CudaSpace> const& labels, index_t components,
                  ImageView<std::uint16_t const, Kokkos::CudaSpace> const& intensity, unsigned long long* sums,
                  int* out_of_range);

}  // namespace gigaseg::tuned
