#pragma once
// Small arrays between a backend and the host (histograms, per-region sums, edge lists), waiting
// for the given execution space only. Kokkos's create_mirror_view fills a new host array with a
// host parallel_for before anything is copied into it, and create_mirror_view_and_copy (like
// deep_copy without a space) fences every stream of the device. On the H200 machine each such fill
// cost 3 to 10 ms (waking the OpenMP threads), more than all of the cells pipeline's kernels on a
// 2048 x 2048 image (docs/performance.md, batch throughput); the global fences make a batch's lanes wait for
// each other.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

namespace gigaseg::detail {

// n values on the host, not initialised, laid out as Layout.
template <class T, class Layout = Kokkos::LayoutRight>
Kokkos::View<T*, Layout, Kokkos::HostSpace> host_array(std::string const& label, std::size_t n) {
  return Kokkos::View<T*, Layout, Kokkos::HostSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
}

// A host copy of `array`, complete on return (fences `space` only).
template <class ExecSpace, class T, class... P>
auto to_host_array(ExecSpace const& space, Kokkos::View<T*, P...> const& array) {
  using Array = Kokkos::View<T*, P...>;
  auto host = host_array<typename Array::non_const_value_type, typename Array::array_layout>(array.label() + "[host]",
                                                                                             array.extent(0));
  Kokkos::deep_copy(space, host, array);
  space.fence();
  return host;
}

}  // namespace gigaseg::detail
