#pragma once
// Host connected-component labelling for the OpenMP backend (see label_openmp.cpp): a
// strip-parallel, run-based scan, not the GPU algorithm run on a CPU. Always applicable: returns
// true and sets `components`.
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_OPENMP
namespace gigaseg {
namespace tuned {

bool label(Kokkos::OpenMP const& space, ImageView<std::uint8_t const, Kokkos::HostSpace> const& image,
           ImageView<Label, Kokkos::HostSpace> const& labels, LabelParams const& params, bool wide,
           index_t& components);
bool label(Kokkos::OpenMP const& space, ImageView<std::uint16_t const, Kokkos::HostSpace> const& image,
           ImageView<Label, Kokkos::HostSpace> const& labels, LabelParams const& params, bool wide,
           index_t& components);
bool label(Kokkos::OpenMP const& space, ImageView<std::uint32_t const, Kokkos::HostSpace> const& image,
           ImageView<Label, Kokkos::HostSpace> const& labels, LabelParams const& params, bool wide,
           index_t& components);

}  // namespace tuned

GIGASEG_DECLARE_TUNED(LabelAlgorithm, Kokkos::OpenMP, tuned::label);

}  // namespace gigaseg
#endif
