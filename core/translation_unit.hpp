#pragma once
// Keeps the host-backend instantiations of every function that holds a KOKKOS_LAMBDA inside the
// translation unit that makes them, in builds with CUDA (a workaround for an nvcc bug).
//
// nvcc turns an extended __host__ __device__ lambda into a wrapper object whose host-side copy,
// call and destruction go through function pointers kept in a helper in an anonymous namespace:
// one helper per translation unit, filled in when that unit's code creates the lambda. The
// wrapper's member functions and the Kokkos adaptors around it have external linkage, so when
// several units instantiate the same function for a host execution space (Serial, OpenMP), the
// linker keeps one unit's adaptor and may run another unit's lambda creation: the adaptor then
// calls through a pointer that was never set (a null call; seen in the markers, pipeline and
// conversion code on the H200). IPPL-framework/ippl#564 analyses it; arborx/ArborX#1297 and
// kynema/kynema-ugf#1306 hit it too.
//
// Every function template that holds a KOKKOS_LAMBDA takes a last template parameter
// `Unit = detail::unit_for<ExecSpace>`. For host spaces in a CUDA build it is a type of this
// unit's anonymous namespace, which gives the instantiation, its lambdas' wrappers and the Kokkos
// adaptors internal linkage: each unit keeps a consistent set of its own. For device spaces, and
// in builds without CUDA (where KOKKOS_LAMBDA is a plain lambda), it is void and nothing changes.
#include <Kokkos_Core.hpp>

#include <type_traits>

namespace gigaseg::detail {

namespace {
struct ThisTranslationUnit {};
}  // namespace

template <class ExecSpace>
using unit_for =
#ifdef KOKKOS_ENABLE_CUDA
    std::conditional_t<Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible,
                       ThisTranslationUnit, void>;
#else
    void;
#endif

}  // namespace gigaseg::detail
