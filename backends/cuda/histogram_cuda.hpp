#pragma once
// Tuned 256-bin histogram of an 8-bit image on CUDA (see histogram_cuda.cpp).
#include "algorithms/detail/histogram_types.hpp"
#include "core/image.hpp"

namespace gigaseg::tuned {

// Returns false, doing nothing, when its precondition fails (rows not 16-byte aligned: a roi that
// starts at an x not divisible by 16); the caller then takes the portable path.
bool histogram_u8(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& image,
                  Counts<Kokkos::CudaSpace> const& counts);

}  // namespace gigaseg::tuned
