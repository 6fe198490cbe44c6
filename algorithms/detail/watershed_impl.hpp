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

namespace detail {

template <class T>
void require_watershed_inputs(char const* what, index_t width, index_t height, index_t markers_width,
                              index_t markers_height, index_t out_width, index_t out_height, index_t mask_width,
                              index_t mask_height, bool masked, WatershedParams const& params) {
  static_assert(
      std::is_same<T, std::uint8_t>::value || std::is_same<T, std::uint16_t>::value || std::is_same<T, float>::value,
      "watershed takes 8-bit, 16-bit or float reliefs");
  GIGASEG_REQUIRE(params.connectivity == 4 || params.connectivity == 8, ErrorKind::usage,
                  "WatershedParams::connectivity",
                  "connectivity must be 4 or 8, got " + std::to_string(params.connectivity));
  require_same_size(what, width, height, markers_width, markers_height);
  require_same_size(what, width, height, out_width, out_height);
  if (masked) require_same_size(what, width, height, mask_width, mask_height);
}

}  // namespace detail

template <class ExecSpace, class T>
void watershed_tile(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& relief,
                    ImageView<Label const, typename ExecSpace::memory_space> const& markers,
                    ImageView<std::uint64_t, typename ExecSpace::memory_space> const& keys,
                    ImageView<Label, typename ExecSpace::memory_space> const& out, WatershedParams const& params,
                    ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& mask) {
  detail::require_watershed_inputs<T>("watershed_tile", relief.width(), relief.height(), markers.width(),
                                      markers.height(), out.width(), out.height(), mask.width(), mask.height(),
                                      !mask.empty(), params);
  detail::require_same_size("watershed_tile", relief.width(), relief.height(), keys.width(), keys.height());
  GIGASEG_REQUIRE(relief.width() >= 3 && relief.height() >= 3, ErrorKind::usage, "watershed_tile",
                  "a tile and its ring take at least 3 x 3 pixels");
  detail::dispatch<WatershedTileAlgorithm>(
      space, params.path,
      [&] { detail::watershed_portable(space, relief, markers, out, params.connectivity, mask, keys); }, relief,
      markers, keys, out, params, mask);
}

template <class ExecSpace, class T>
void watershed(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& relief,
               ImageView<Label const, typename ExecSpace::memory_space> const& markers,
               ImageView<Label, typename ExecSpace::memory_space> const& out, WatershedParams const& params,
               ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& mask) {
  detail::require_watershed_inputs<T>("watershed", relief.width(), relief.height(), markers.width(), markers.height(),
                                      out.width(), out.height(), mask.width(), mask.height(), !mask.empty(), params);
  if (relief.empty()) {
    (void)watershed_path<ExecSpace>(params.path);  // still validates a forced path
    return;
  }
  detail::dispatch<WatershedAlgorithm>(
      space, params.path, [&] { detail::watershed_portable(space, relief, markers, out, params.connectivity, mask); },
      relief, markers, out, params, mask);
}

}  // namespace gigaseg
