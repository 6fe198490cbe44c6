#pragma once
// Tuned CUDA exact Euclidean distance transform (see distance_cuda.cpp).
#include "gigaseg/algorithms/distance_types.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/gigaseg_config.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
namespace gigaseg {
namespace tuned {

// algorithms/distance.hpp's transform: the same exact values and the same `nearest` (ties to the
// leftmost column, then to the row above). Returns false when the image has no zero pixel (the
// portable path then reports it).
bool distance_transform(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& in,
                        ImageView<float, Kokkos::CudaSpace> const& distance,
                        ImageView<std::int64_t, Kokkos::CudaSpace> const& squared,
                        ImageView<index_t, Kokkos::CudaSpace> const& nearest);

}  // namespace tuned

GIGASEG_DECLARE_TUNED(DistanceAlgorithm, Kokkos::Cuda, tuned::distance_transform);

}  // namespace gigaseg
#endif
