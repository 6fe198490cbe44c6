#pragma once
// Implementation of algorithms/distance.hpp: the checks and the dispatch between the portable
// passes (algorithms/detail/distance_portable.hpp) and a backend's tuned transform (instantiated by
// backends/instantiate/distance.cpp, which also sees the backends' specialisations). A tuned path
// declines (returns false) when the image has no zero pixel; the portable path then reports it.
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/dispatch.hpp"
#include "gigaseg/algorithms/detail/distance_portable.hpp"
#include "gigaseg/algorithms/distance.hpp"
#include "gigaseg/core/error.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace gigaseg {
namespace detail {

template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void distance_transform_portable(ExecSpace const& space,
                                 ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                                 ImageView<float, typename ExecSpace::memory_space> const& distance,
                                 DistanceOutputs<typename ExecSpace::memory_space> const& extra) {
  using Memory = typename ExecSpace::memory_space;
  ImageView<std::int32_t, Memory> rows("gigaseg::distance::nearest_rows", in.width(), in.height());
  GIGASEG_REQUIRE(nearest_zero_rows(space, in, rows), ErrorKind::input, "distance_transform",
                  "the image has no zero pixel, so no distance to one is defined");
  envelope_rows(space, ImageView<std::int32_t const, Memory>(rows), distance, extra.squared, extra.nearest);
}

}  // namespace detail

template <class ExecSpace>
Path distance_path(Path requested) {
  return resolved_path<DistanceAlgorithm, ExecSpace>(requested);
}

template <class ExecSpace>
void distance_transform(ExecSpace const& space,
                        ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                        ImageView<float, typename ExecSpace::memory_space> const& distance,
                        DistanceOutputs<typename ExecSpace::memory_space> const& extra, DistanceParams const& params) {
  detail::require_same_size("distance_transform", in.width(), in.height(), distance.width(), distance.height());
  if (!extra.squared.empty())
    detail::require_same_size("distance_transform", in.width(), in.height(), extra.squared.width(),
                              extra.squared.height());
  if (!extra.nearest.empty())
    detail::require_same_size("distance_transform", in.width(), in.height(), extra.nearest.width(),
                              extra.nearest.height());
  GIGASEG_REQUIRE(in.width() <= (index_t(1) << 30) && in.height() <= (index_t(1) << 30), ErrorKind::usage,
                  "distance_transform", "sides up to 2^30 pixels (exact 64-bit squared distances)");
  if (in.empty()) {
    (void)distance_path<ExecSpace>(params.path);  // still validates a forced path
    return;
  }
  detail::dispatch<DistanceAlgorithm>(
      space, params.path, [&] { detail::distance_transform_portable(space, in, distance, extra); }, in, distance,
      extra.squared, extra.nearest);
}

}  // namespace gigaseg
