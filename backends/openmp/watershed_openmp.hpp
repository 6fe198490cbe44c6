#pragma once
// Tuned watershed for the OpenMP backend (see watershed_openmp.cpp): the serial flood
// (algorithms/watershed.hpp) run per connected component of the mask, components spread over the
// threads. Components cannot interact (flooding never crosses the mask), so the labels are the
// serial flood's exactly.
#include "algorithms/detail/label_types.hpp"
#include "core/image.hpp"

namespace gigaseg {
struct WatershedParams;  // algorithms/watershed.hpp, which includes this header
}

namespace gigaseg::tuned {

// False, doing nothing, when there is no mask or the relief is float (then the caller floods the
// whole image with watershed_flood()).
template <class T>
bool watershed(Kokkos::OpenMP const& space, ImageView<T const, Kokkos::HostSpace> const& relief,
               ImageView<Label const, Kokkos::HostSpace> const& markers, ImageView<Label, Kokkos::HostSpace> const& out,
               WatershedParams const& params, ImageView<std::uint8_t const, Kokkos::HostSpace> const& mask);

}  // namespace gigaseg::tuned
