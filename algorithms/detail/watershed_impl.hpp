#pragma once
// Implementation of algorithms/watershed.hpp: the checks and the dispatch between the portable
// parallel watershed (algorithms/detail/watershed_portable.hpp) and a backend's tuned one
// (instantiated by backends/instantiate/watershed.cpp, which also sees the backends'
// specialisations).
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/dispatch.hpp"
#include "gigaseg/algorithms/detail/watershed_portable.hpp"
#include "gigaseg/algorithms/watershed.hpp"
#include "gigaseg/core/error.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace gigaseg {

template <class ExecSpace>
Path watershed_path(Path requested) {
  return resolved_path<WatershedAlgorithm, ExecSpace>(requested);
}

template <class ExecSpace, class T>
void watershed(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& relief,
               ImageView<Label const, typename ExecSpace::memory_space> const& markers,
               ImageView<Label, typename ExecSpace::memory_space> const& out, WatershedParams const& params,
               ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& mask) {
  static_assert(
      std::is_same<T, std::uint8_t>::value || std::is_same<T, std::uint16_t>::value || std::is_same<T, float>::value,
      "watershed takes 8-bit, 16-bit or float reliefs");
  GIGASEG_REQUIRE(params.connectivity == 4 || params.connectivity == 8, ErrorKind::usage,
                  "WatershedParams::connectivity",
                  "connectivity must be 4 or 8, got " + std::to_string(params.connectivity));
  detail::require_same_size("watershed", relief.width(), relief.height(), markers.width(), markers.height());
  detail::require_same_size("watershed", relief.width(), relief.height(), out.width(), out.height());
  if (!mask.empty())
    detail::require_same_size("watershed", relief.width(), relief.height(), mask.width(), mask.height());
  if (relief.empty()) {
    (void)watershed_path<ExecSpace>(params.path);  // still validates a forced path
    return;
  }
  detail::dispatch<WatershedAlgorithm>(
      space, params.path, [&] { detail::watershed_portable(space, relief, markers, out, params.connectivity, mask); },
      relief, markers, out, params, mask);
}

}  // namespace gigaseg
