#pragma once
// Definition of algorithms/pipelines/cells.hpp (instantiated by backends/instantiate/pipelines.cpp).
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/pixelwise.hpp"
#include "gigaseg/algorithms/distance.hpp"
#include "gigaseg/algorithms/filters.hpp"
#include "gigaseg/algorithms/markers.hpp"
#include "gigaseg/algorithms/morphology.hpp"
#include "gigaseg/algorithms/pipelines/cells.hpp"
#include "gigaseg/algorithms/pipelines/detail/stages.hpp"
#include "gigaseg/algorithms/region_stats.hpp"
#include "gigaseg/algorithms/watershed.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/scratch.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <optional>

namespace gigaseg {

template <class ExecSpace>
void segment_cells_from_mask(ExecSpace const& space,
                             ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& filtered,
                             ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& mask,
                             ImageView<float, typename ExecSpace::memory_space> const& distance,
                             ImageView<Label, typename ExecSpace::memory_space> const& markers,
                             ImageView<Label, typename ExecSpace::memory_space> const& labels,
                             CellsParams const& params, CellsResult& result, CellsPart const& part) {
  using Memory = typename ExecSpace::memory_space;
  detail::require_same_size("segment_cells_from_mask", mask.width(), mask.height(), labels.width(), labels.height());
  detail::require_same_size("segment_cells_from_mask", mask.width(), mask.height(), markers.width(), markers.height());
  detail::require_same_size("segment_cells_from_mask", mask.width(), mask.height(), distance.width(),
                            distance.height());
  detail::require_same_size("segment_cells_from_mask", mask.width(), mask.height(), filtered.width(),
                            filtered.height());
  index_t const width = mask.width(), height = mask.height();
  result.markers = 0;
  result.components = 0;
  auto stage = [&](char const* name, auto&& work) { pipeline::timed(space, result.timings_ms, name, work); };

  // The distance of every foreground pixel to the background. A mask that is all background or
  // all foreground (Otsu found no two classes) segments nothing.
  index_t background = 0;
  Kokkos::parallel_reduce(
      "gigaseg::cells::count_background", Kokkos::RangePolicy<ExecSpace>(space, 0, width * height),
      KOKKOS_LAMBDA(index_t i, index_t & n) { n += mask(i / width, i % width) == 0 ? 1 : 0; }, background);
  ScratchImage<std::int64_t, ExecSpace> const squared_memory(space, "gigaseg::cells::squared_distances", width, height);
  auto const& squared = squared_memory.view();
  if (background == 0 || background == width * height) {
    detail::for_each_row_pixel(
        space, "gigaseg::cells::none", height, width, KOKKOS_LAMBDA(index_t y, index_t x) { labels(y, x) = 0; });
    space.fence();
    return;
  }
  stage("edt", [&] { distance_transform(space, mask, distance, DistanceOutputs<Memory>{squared, {}}); });

  stage("markers", [&] {
    MarkerParams marker_params;
    marker_params.h = params.h;
    marker_params.min_separation = params.min_separation;
    marker_params.connectivity = params.connectivity;
    marker_params.origin_x = part.x;
    marker_params.origin_y = part.y;
    result.markers = distance_markers(space, ImageView<float const, Memory>(distance), markers, marker_params);
    if (params.relief == CellsRelief::gradient)
      background_markers(space, mask, markers, params.background_distance, Label(result.markers + 1));
  });

  WatershedParams watershed_params;
  watershed_params.connectivity = params.connectivity;
  auto const markers_c = ImageView<Label const, Memory>(markers);
  if (params.relief == CellsRelief::gradient) {
    ScratchImage<std::uint8_t, ExecSpace> const relief_memory(space, "gigaseg::cells::gradient", width, height);
    auto const& relief = relief_memory.view();
    stage("relief", [&] {
      MorphParams morph;
      morph.op = MorphOp::gradient;
      morph.size = 3;
      morphology(space, filtered, relief, morph);
    });
    stage("watershed", [&] {
      watershed(space, ImageView<std::uint8_t const, Memory>(relief), markers_c, labels, watershed_params);
      Label const background_label = Label(result.markers + 1);
      detail::for_each_row_pixel(
          space, "gigaseg::cells::drop_background", height, width, KOKKOS_LAMBDA(index_t y, index_t x) {
            if (labels(y, x) == background_label) labels(y, x) = 0;
          });
    });
  } else {
    std::int64_t most = 0;
    Kokkos::parallel_reduce(
        "gigaseg::cells::max_squared", Kokkos::RangePolicy<ExecSpace>(space, 0, width * height),
        KOKKOS_LAMBDA(index_t i, std::int64_t & m) {
          std::int64_t const v = squared(i / width, i % width);
          m = v > m ? v : m;
        },
        Kokkos::Max<std::int64_t>(most));
    if (part.most_squared >= 0) most = part.most_squared;  // the larger image's choice
    if (most <= 65535) {
      ScratchImage<std::uint16_t, ExecSpace> const relief_memory(space, "gigaseg::cells::relief", width, height);
      auto const& relief = relief_memory.view();
      stage("relief", [&] {
        detail::for_each_row_pixel(
            space, "gigaseg::cells::relief", height, width, KOKKOS_LAMBDA(index_t y, index_t x) {
              std::int64_t const s = squared(y, x);  // above 65535 only outside a part's components
              relief(y, x) = std::uint16_t(65535 - (s < 65535 ? s : 65535));
            });
      });
      stage("watershed", [&] {
        watershed(space, ImageView<std::uint16_t const, Memory>(relief), markers_c, labels, watershed_params, mask);
      });
    } else {
      ScratchImage<float, ExecSpace> const relief_memory(space, "gigaseg::cells::relief", width, height);
      auto const& relief = relief_memory.view();
      stage("relief", [&] {
        detail::for_each_row_pixel(
            space, "gigaseg::cells::relief", height, width,
            KOKKOS_LAMBDA(index_t y, index_t x) { relief(y, x) = -distance(y, x); });
      });
      stage("watershed", [&] {
        watershed(space, ImageView<float const, Memory>(relief), markers_c, labels, watershed_params, mask);
      });
    }
  }
  stage("merge", [&] { result.components = merge_small_regions(space, labels, result.markers, params.min_area); });
}

template <class ExecSpace>
CellsResult segment_cells(ExecSpace const& space,
                          ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& gray,
                          ImageView<Label, typename ExecSpace::memory_space> const& labels, CellsParams const& params) {
  using Memory = typename ExecSpace::memory_space;
  GIGASEG_REQUIRE(params.median_size <= 1 || params.median_size == 3 || params.median_size == 5, ErrorKind::usage,
                  "CellsParams::median_size", "the median size is 3 or 5 (0: none)");
  GIGASEG_REQUIRE(params.open_size <= 1 || params.open_size % 2 == 1, ErrorKind::usage, "CellsParams::open_size",
                  "the opening size is odd (0: none)");
  detail::require_same_size("segment_cells", gray.width(), gray.height(), labels.width(), labels.height());
  index_t const width = gray.width(), height = gray.height();
  CellsResult result;
  auto stage = [&](char const* name, auto&& work) { pipeline::timed(space, result.timings_ms, name, work); };

  // Temporaries from the stream-ordered pool on CUDA (core/scratch.hpp), released at the end.
  std::optional<ScratchImage<std::uint8_t, ExecSpace>> smooth_memory, opened_memory;
  ImageView<std::uint8_t const, Memory> filtered = gray;
  if (params.median_size > 1) {
    auto const& smooth = smooth_memory.emplace(space, "gigaseg::cells::median", width, height).view();
    stage("median", [&] { median(space, gray, smooth, params.median_size); });
    filtered = smooth;
  }
  ScratchImage<std::uint8_t, ExecSpace> const mask_memory(space, "gigaseg::cells::mask", width, height);
  ImageView<std::uint8_t, Memory> mask = mask_memory.view();
  pipeline::OtsuSide const side = pipeline::otsu_mask(space, filtered, mask, params.foreground, result.timings_ms);
  result.threshold = side.threshold;
  result.dark = side.dark;
  if (params.open_size > 1) {
    auto const& opened = opened_memory.emplace(space, "gigaseg::cells::opened", width, height).view();
    MorphParams morph;
    morph.op = MorphOp::open;
    morph.size = params.open_size;
    stage("open", [&] { morphology(space, ImageView<std::uint8_t const, Memory>(mask), opened, morph); });
    mask = opened;
  }

  ScratchImage<float, ExecSpace> const distance_memory(space, "gigaseg::cells::distance", width, height);
  ScratchImage<Label, ExecSpace> const markers_memory(space, "gigaseg::cells::markers", width, height);
  segment_cells_from_mask(space, filtered, ImageView<std::uint8_t const, Memory>(mask), distance_memory.view(),
                          markers_memory.view(), labels, params, result);
  if (result.markers == 0) return result;  // nothing segmented
  stage("stats",
        [&] { result.regions = region_stats(space, ImageView<Label const, Memory>(labels), result.components, gray); });
  return result;
}

}  // namespace gigaseg
