#pragma once
// Tuned K-means assignment pass on CUDA (see kmeans_cuda.cpp).
#include "gigaseg/algorithms/detail/kmeans_state.hpp"
#include "gigaseg/algorithms/kmeans_types.hpp"
#include "gigaseg/gigaseg_config.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

#if defined(KOKKOS_ENABLE_CUDA) && GIGASEG_HAVE_CUDA_KERNELS
namespace gigaseg {
namespace tuned {

// One pass of algorithms/detail/kmeans_state.hpp's contract, enqueued on `space`'s stream.
void kmeans_pass(Kokkos::Cuda const& space, detail::KMeansPassArgs<Kokkos::CudaSpace> const& args);

// The tuned entry of kmeans() (algorithms/detail/kmeans_impl.hpp): the pass above; the sums stay
// in the state on the device (`sums_on_host` is unused). Always applicable.
inline bool kmeans_pass(Kokkos::Cuda const& space, detail::KMeansPassArgs<Kokkos::CudaSpace> const& args,
                        std::uint64_t* /*sums_on_host*/) {
  kmeans_pass(space, args);
  return true;
}

}  // namespace tuned

GIGASEG_DECLARE_TUNED(KMeansAlgorithm, Kokkos::Cuda, tuned::kmeans_pass);

}  // namespace gigaseg
#endif
