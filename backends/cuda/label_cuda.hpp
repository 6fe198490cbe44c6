#pragma once
// Tuned connected-component labelling on CUDA (see label_cuda.cpp).
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/gigaseg_config.hpp"

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
namespace gigaseg {
namespace tuned {

// Returns false, doing nothing, when a precondition fails (label rows not on 128-byte
// boundaries, or more than 2^32 - 2 pitched label slots, or 64-bit entries asked for); the caller
// then takes the portable path. Otherwise writes the labels and sets `components`; enqueued on
// `space`, which it fences to return the count.
bool label(Kokkos::Cuda const& space, ImageView<std::uint8_t const, Kokkos::CudaSpace> const& image,
           ImageView<Label, Kokkos::CudaSpace> const& labels, LabelParams const& params, bool wide,
           index_t& components);
bool label(Kokkos::Cuda const& space, ImageView<std::uint16_t const, Kokkos::CudaSpace> const& image,
           ImageView<Label, Kokkos::CudaSpace> const& labels, LabelParams const& params, bool wide,
           index_t& components);
bool label(Kokkos::Cuda const& space, ImageView<std::uint32_t const, Kokkos::CudaSpace> const& image,
           ImageView<Label, Kokkos::CudaSpace> const& labels, LabelParams const& params, bool wide,
           index_t& components);

}  // namespace tuned

GIGASEG_DECLARE_TUNED(LabelAlgorithm, Kokkos::Cuda, tuned::label);

}  // namespace gigaseg
#endif
