#pragma once
// Host histogram for the OpenMP backend: each thread counts its band of rows into a private
// histogram (four interleaved sub-histograms, so runs of equal pixels do not serialise on one
// counter), and the private histograms are summed at the end. No atomics. Always applicable:
// returns true.
#include "gigaseg/algorithms/histogram_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_OPENMP
namespace gigaseg {
namespace tuned {

bool histogram_u8(Kokkos::OpenMP const& space, ImageView<std::uint8_t const, Kokkos::HostSpace> const& image,
                  Counts<Kokkos::HostSpace> const& counts);

}  // namespace tuned

GIGASEG_DECLARE_TUNED(HistogramAlgorithm, Kokkos::OpenMP, tuned::histogram_u8);

}  // namespace gigaseg
#endif
