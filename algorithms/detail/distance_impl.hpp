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

template <class ExecSpace>
void require_outputs_fit(char const* what, index_t width, index_t height,
                         ImageView<float, typename ExecSpace::memory_space> const& distance,
                         DistanceOutputs<typename ExecSpace::memory_space> const& extra) {
  require_same_size(what, width, height, distance.width(), distance.height());
  if (!extra.squared.empty()) require_same_size(what, width, height, extra.squared.width(), extra.squared.height());
  if (!extra.nearest.empty()) require_same_size(what, width, height, extra.nearest.width(), extra.nearest.height());
  GIGASEG_REQUIRE(width <= (index_t(1) << 30) && height <= (index_t(1) << 30), ErrorKind::usage, what,
                  "sides up to 2^30 pixels (exact 64-bit squared distances)");
}

}  // namespace detail

template <class ExecSpace>
void distance_transform_band(ExecSpace const& space,
                             ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                             DistanceBand<typename ExecSpace::memory_space> const& band,
                             ImageView<float, typename ExecSpace::memory_space> const& distance,
                             DistanceOutputs<typename ExecSpace::memory_space> const& extra,
                             DistanceParams const& params) {
  using Memory = typename ExecSpace::memory_space;
  detail::require_outputs_fit<ExecSpace>("distance_transform_band", in.width(), in.height(), distance, extra);
  GIGASEG_REQUIRE(band.y >= 0 && band.image_height <= (index_t(1) << 30) && band.y + in.height() <= band.image_height,
                  ErrorKind::usage, "distance_transform_band", "the band's rows must lie inside its image");
  GIGASEG_REQUIRE(index_t(band.zero_above.extent(0)) == in.width() && index_t(band.zero_below.extent(0)) == in.width(),
                  ErrorKind::usage, "distance_transform_band", "one zero_above and zero_below entry a column");
  if (in.empty()) {
    (void)resolved_path<DistanceBandAlgorithm, ExecSpace>(params.path);
    return;
  }
  detail::dispatch<DistanceBandAlgorithm>(space, params.path, [&] {
    ImageView<std::int32_t, Memory> rows("gigaseg::distance::nearest_rows", in.width(), in.height());
    GIGASEG_REQUIRE(detail::nearest_zero_rows(space, in, rows, band), ErrorKind::input, "distance_transform_band",
                    "the image has no zero pixel, so no distance to one is defined");
    detail::envelope_rows(space, ImageView<std::int32_t const, Memory>(rows), distance, extra.squared, extra.nearest,
                          {}, band.y, band.image_height);
  });
}

template <class ExecSpace>
Path distance_path(Path requested) {
  return resolved_path<DistanceAlgorithm, ExecSpace>(requested);
}

template <class ExecSpace>
void distance_transform(ExecSpace const& space,
                        ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                        ImageView<float, typename ExecSpace::memory_space> const& distance,
                        DistanceOutputs<typename ExecSpace::memory_space> const& extra, DistanceParams const& params) {
  detail::require_outputs_fit<ExecSpace>("distance_transform", in.width(), in.height(), distance, extra);
  if (in.empty()) {
    (void)distance_path<ExecSpace>(params.path);  // still validates a forced path
    return;
  }
  detail::dispatch<DistanceAlgorithm>(
      space, params.path, [&] { detail::distance_transform_portable(space, in, distance, extra); }, in, distance,
      extra.squared, extra.nearest);
}

}  // namespace gigaseg
