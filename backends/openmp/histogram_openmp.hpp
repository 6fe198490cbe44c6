#pragma once
// Host histogram for the OpenMP backend: each thread counts its band of rows into a private
// histogram (four interleaved sub-histograms, so runs of equal pixels do not serialise on one
// counter), and the private histograms are summed at the end. No atomics.
#include "algorithms/detail/histogram_types.hpp"
#include "core/image.hpp"

namespace gigaseg::tuned {

bool histogram_u8(Kokkos::OpenMP const& space, ImageView<std::uint8_t const, Kokkos::HostSpace> const& image,
                  Counts<Kokkos::HostSpace> const& counts);

}  // namespace gigaseg::tuned
