#pragma once
// Tuned 256-bin histogram of an 8-bit image on CUDA (see histogram_cuda.cpp).
#include "gigaseg/algorithms/histogram_types.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/gigaseg_config.hpp"

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
namespace gigaseg {
namespace tuned {

// Returns false, doing nothing, when its precondition fails (rows not 16-byte aligned: a roi that
// starts at an x not divisible by 16); the caller then takes the portable path.
bool histogram_u8(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& image,
                  Counts<Kokkos::CudaSpace> const& counts);

}  // namespace tuned

GIGASEG_DECLARE_TUNED(HistogramAlgorithm, Kokkos::Cuda, tuned::histogram_u8);

}  // namespace gigaseg
#endif
