#pragma once
// Tuned K-means assignment pass on CUDA (see kmeans_cuda.cpp).
#include "algorithms/detail/kmeans_types.hpp"

namespace gigaseg::tuned {

// One pass of algorithms/detail/kmeans_types.hpp's contract, enqueued on `space`'s stream.
void kmeans_pass(Kokkos::Cuda const& space, detail::KMeansPassArgs<Kokkos::CudaSpace> const& args);

}  // namespace gigaseg::tuned
