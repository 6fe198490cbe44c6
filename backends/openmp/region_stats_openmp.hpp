#pragma once
// Host region statistics for the OpenMP backend (see region_stats_openmp.cpp): each thread sums a
// strip of rows into accumulators of its own, without atomics, and the threads' copies are
// combined per component. Writes every accumulator of `sums` (the layout of
// algorithms/detail/region_stats_portable.hpp, uninitialised on entry) and sets out_of_range() when
// a label exceeds `largest`. Returns false, doing nothing, when the threads' copies would take more
// than 256 MiB; the caller then takes the portable path.
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/algorithms/region_stats_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

#ifdef KOKKOS_ENABLE_OPENMP
namespace gigaseg {
namespace tuned {

bool region_stats(Kokkos::OpenMP const& space, ImageView<Label const, Kokkos::HostSpace> const& labels,
                  ImageView<std::uint8_t const, Kokkos::HostSpace> const& intensity, Label largest,
                  Kokkos::View<unsigned long long*, Kokkos::HostSpace> const& sums,
                  Kokkos::View<int, Kokkos::HostSpace> const& out_of_range);
bool region_stats(Kokkos::OpenMP const& space, ImageView<Label const, Kokkos::HostSpace> const& labels,
                  ImageView<std::uint16_t const, Kokkos::HostSpace> const& intensity, Label largest,
                  Kokkos::View<unsigned long long*, Kokkos::HostSpace> const& sums,
                  Kokkos::View<int, Kokkos::HostSpace> const& out_of_range);

}  // namespace tuned

GIGASEG_DECLARE_TUNED(RegionStatsAlgorithm, Kokkos::OpenMP, tuned::region_stats);

}  // namespace gigaseg
#endif
