#pragma once
// Tuned CUDA exact Euclidean distance transform (see distance_cuda.cpp).
#include "core/image.hpp"

#include <cstdint>

namespace gigaseg::tuned {

// algorithms/distance.hpp's transform: the same exact values and the same `nearest` (ties to the
// leftmost column, then to the row above). Returns false when the image has no zero pixel.
bool distance_transform(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                        ImageView<float, Kokkos::CudaSpace> const& distance,
                        ImageView<std::int64_t, Kokkos::CudaSpace> const& squared,
                        ImageView<index_t, Kokkos::CudaSpace> const& nearest);

}  // namespace gigaseg::tuned
