#pragma once
// Tuned K-means assignment pass for the OpenMP backend (see kmeans_openmp.cpp): each thread sums
// its rows' members privately, no atomics. Always applicable.
#include "gigaseg/algorithms/detail/kmeans_state.hpp"
#include "gigaseg/algorithms/kmeans_types.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

#ifdef KOKKOS_ENABLE_OPENMP
namespace gigaseg {
namespace tuned {

// One pass of algorithms/detail/kmeans_state.hpp's contract on `space`. The threads' sums are
// reduced into `sums_on_host` (the state's sums, host memory), which the pass overwrites.
bool kmeans_pass(Kokkos::OpenMP const& space, detail::KMeansPassArgs<Kokkos::HostSpace> const& args,
                 std::uint64_t* sums_on_host);

}  // namespace tuned

GIGASEG_DECLARE_TUNED(KMeansAlgorithm, Kokkos::OpenMP, tuned::kmeans_pass);

}  // namespace gigaseg
#endif
