#pragma once
// Implementation of algorithms/markers.hpp: the pixel work of the three functions on the backend,
// the per-label decisions on the host (algorithms/markers.cpp), and the dispatch of
// distance_markers()'s two propagations between the portable tile relaxations
// (algorithms/detail/markers_portable.hpp) and a backend's tuned ones (instantiated by
// backends/instantiate/markers.cpp, which also sees the backends' specialisations).
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/dispatch.hpp"
#include "gigaseg/algorithms/detail/host_arrays.hpp"
#include "gigaseg/algorithms/detail/markers_portable.hpp"
#include "gigaseg/algorithms/detail/pixelwise.hpp"
#include "gigaseg/algorithms/distance.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/markers.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/scratch.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace gigaseg {
namespace detail {

template <class ExecSpace, class Unit = unit_for<ExecSpace>>
index_t background_markers_portable(ExecSpace const& space,
                                    ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& mask,
                                    ImageView<Label, typename ExecSpace::memory_space> const& markers,
                                    float min_distance, Label label) {
  using Memory = typename ExecSpace::memory_space;
  require_same_size("background_markers", mask.width(), mask.height(), markers.width(), markers.height());
  GIGASEG_REQUIRE(min_distance >= 0, ErrorKind::usage, "background_markers(min_distance)", "must not be negative");
  index_t const width = mask.width(), height = mask.height();
  index_t foreground = 0;
  Kokkos::parallel_reduce(
      "gigaseg::markers::count_foreground", Kokkos::RangePolicy<ExecSpace>(space, 0, width * height),
      KOKKOS_LAMBDA(index_t i, index_t & n) { n += mask(i / width, i % width) != 0 ? 1 : 0; }, foreground);
  if (foreground == 0) return 0;
  // Zero pixels of the transform's input = the foreground.
  ImageView<std::uint8_t, Memory> inverse("gigaseg::markers::inverse", width, height);
  for_each_row_pixel(
      space, "gigaseg::markers::inverse", height, width,
      KOKKOS_LAMBDA(index_t y, index_t x) { inverse(y, x) = mask(y, x) != 0 ? 0 : 1; });
  ImageView<float, Memory> far("gigaseg::markers::background_distance", width, height);
  DistanceOutputs<Memory> extra{ImageView<std::int64_t, Memory>("gigaseg::markers::background_squared", width, height),
                                {}};
  distance_transform(space, ImageView<std::uint8_t const, Memory>(inverse), far, extra);
  double const limit = double(min_distance) * double(min_distance);
  auto const squared = extra.squared;
  index_t marked = 0;
  Kokkos::parallel_reduce(
      "gigaseg::markers::background", Kokkos::RangePolicy<ExecSpace>(space, 0, width * height),
      KOKKOS_LAMBDA(index_t i, index_t & n) {
        index_t const y = i / width, x = i % width;
        if (mask(y, x) == 0 && double(squared(y, x)) >= limit) {
          markers(y, x) = label;
          ++n;
        }
      },
      marked);
  return marked;
}

template <class ExecSpace, class Unit = unit_for<ExecSpace>>
index_t merge_small_regions_portable(ExecSpace const& space,
                                     ImageView<Label, typename ExecSpace::memory_space> const& labels, index_t count,
                                     index_t min_area) {
  GIGASEG_REQUIRE(min_area >= 0, ErrorKind::usage, "merge_small_regions(min_area)", "must not be negative");
  index_t const width = labels.width(), height = labels.height();
  if (count == 0) return 0;
  ScratchArray<std::int64_t, ExecSpace> const area_memory(space, "gigaseg::merge::area", std::size_t(count + 1));
  ScratchArray<std::int64_t, ExecSpace> const first_memory(space, "gigaseg::merge::first", std::size_t(count + 1));
  auto const area = area_memory.view();
  auto const first = first_memory.view();
  Kokkos::deep_copy(space, area, std::int64_t(0));
  Kokkos::deep_copy(space, first, std::numeric_limits<std::int64_t>::max());
  // One pair of atomics per horizontal run of a label, from the run's first pixel (one per pixel
  // made all the threads of a region wait on the same two counters).
  for_each_row_pixel(
      space, "gigaseg::merge::areas", height, width, KOKKOS_LAMBDA(index_t y, index_t x) {
        Label const l = labels(y, x);
        if (l == 0 || (x > 0 && labels(y, x - 1) == l)) return;
        index_t end = x + 1;
        while (end < width && labels(y, end) == l) ++end;
        Kokkos::atomic_add(&area(l), std::int64_t(end - x));
        Kokkos::atomic_fetch_min(&first(l), std::int64_t(y * width + x));
      });
  auto const host_area = to_host_array(space, area);
  auto const host_first = to_host_array(space, first);
  // Edges between different labels where one side is small: counted, then collected.
  ScratchArray<std::uint8_t, ExecSpace> const small_memory(space, "gigaseg::merge::small", std::size_t(count + 1));
  auto const small = small_memory.view();
  auto host_small = host_array<std::uint8_t, typename decltype(small)::array_layout>("gigaseg::merge::small[host]",
                                                                                     std::size_t(count + 1));
  bool any_small = false;
  for (index_t l = 0; l <= count; ++l) {
    host_small(l) = l > 0 && host_area(l) > 0 && host_area(l) < min_area ? 1 : 0;
    any_small = any_small || host_small(l);
  }
  Kokkos::deep_copy(space, small, host_small);
  auto const edge_at = KOKKOS_LAMBDA(index_t y, index_t x, int k, std::uint64_t& edge)->bool {
    index_t const ny = k == 0 ? y : y + 1, nx = k == 0 ? x + 1 : x;
    if (ny >= height || nx >= width) return false;
    Label const a = labels(y, x), b = labels(ny, nx);
    if (a == 0 || b == 0 || a == b || !(small(a) || small(b))) return false;
    edge = a < b ? std::uint64_t(a) << 32 | b : std::uint64_t(b) << 32 | a;
    return true;
  };
  index_t edges = 0;
  if (any_small)
    Kokkos::parallel_reduce(
        "gigaseg::merge::count_edges", Kokkos::RangePolicy<ExecSpace>(space, 0, width * height),
        KOKKOS_LAMBDA(index_t i, index_t & n) {
          std::uint64_t e;
          for (int k = 0; k < 2; ++k) n += edge_at(i / width, i % width, k, e) ? 1 : 0;
        },
        edges);
  ScratchArray<std::uint64_t, ExecSpace> const list_memory(space, "gigaseg::merge::edges", std::size_t(edges));
  ScratchArray<index_t, ExecSpace> const next_memory(space, "gigaseg::merge::next", 1);
  auto const list = list_memory.view();
  auto const next = next_memory.view();
  Kokkos::deep_copy(space, next, index_t(0));
  if (edges > 0)
    Kokkos::parallel_for(
        "gigaseg::merge::edges", Kokkos::RangePolicy<ExecSpace>(space, 0, width * height), KOKKOS_LAMBDA(index_t i) {
          std::uint64_t e;
          for (int k = 0; k < 2; ++k)
            if (edge_at(i / width, i % width, k, e)) list(Kokkos::atomic_fetch_add(&next(0), index_t(1))) = e;
        });
  auto const host_list = to_host_array(space, list);
  std::vector<index_t> areas(std::size_t(count + 1)), firsts(std::size_t(count + 1));
  for (index_t l = 0; l <= count; ++l) areas[std::size_t(l)] = host_area(l), firsts[std::size_t(l)] = host_first(l);
  std::vector<std::uint64_t> pairs(host_list.data(), host_list.data() + edges);
  index_t merged = 0;
  std::vector<Label> const new_id = merge_plan(areas, firsts, pairs, min_area, merged);
  renumber(space, labels, new_id);
  return merged;
}

// rec = D - h on the foreground (D > 0), the lowest float elsewhere: where the reconstruction
// starts. `ringed`: the outer ring of pixels is left as it is.
template <class ExecSpace, class Unit = unit_for<ExecSpace>>
void reconstruction_start(ExecSpace const& space,
                          ImageView<float const, typename ExecSpace::memory_space> const& distance,
                          ImageView<float, typename ExecSpace::memory_space> const& rec, float h, bool ringed) {
  index_t const width = distance.width(), height = distance.height();
  float const lowest = std::numeric_limits<float>::lowest();
  for_each_row_pixel(
      space, "gigaseg::markers::init", height, width, KOKKOS_LAMBDA(index_t y, index_t x) {
        if (on_fixed_ring(ringed, y, x, height, width)) return;
        float const d = distance(y, x);
        rec(y, x) = d > 0 ? d - h : lowest;
      });
}

// lower = 1 on the background and where a foreground neighbour is higher in rec, else 0: where
// the spread over the plateaus starts. `ringed`: the outer ring of pixels is left as it is.
template <class ExecSpace, class Unit = unit_for<ExecSpace>>
void higher_neighbours(ExecSpace const& space, ImageView<float const, typename ExecSpace::memory_space> const& distance,
                       ImageView<float const, typename ExecSpace::memory_space> const& rec_c,
                       ImageView<std::uint8_t, typename ExecSpace::memory_space> const& lower, bool eight,
                       bool ringed) {
  index_t const width = distance.width(), height = distance.height();
  for_each_row_pixel(
      space, "gigaseg::markers::higher", height, width, KOKKOS_LAMBDA(index_t y, index_t x) {
        if (on_fixed_ring(ringed, y, x, height, width)) return;
        if (distance(y, x) <= 0) {
          lower(y, x) = 1;
          return;
        }
        float const own = rec_c(y, x);
        std::uint8_t higher = 0;
        detail::for_neighbours(y, x, height, width, eight, [&](index_t ny, index_t nx) {
          if (distance(ny, nx) > 0 && rec_c(ny, nx) > own) higher = 1;
        });
        lower(y, x) = higher;
      });
}

inline void require_marker_params(char const* what, MarkerParams const& params) {
  GIGASEG_REQUIRE(params.h > 0, ErrorKind::usage, "MarkerParams::h", "the h-maxima height must be positive");
  GIGASEG_REQUIRE(params.min_separation >= 0, ErrorKind::usage, "MarkerParams::min_separation", "must not be negative");
  GIGASEG_REQUIRE(params.connectivity == 4 || params.connectivity == 8, ErrorKind::usage, "MarkerParams::connectivity",
                  "connectivity must be 4 or 8");
  (void)what;
}

}  // namespace detail

template <class ExecSpace>
void h_maxima_tile(ExecSpace const& space, ImageView<float const, typename ExecSpace::memory_space> const& distance,
                   ImageView<float, typename ExecSpace::memory_space> const& rec, MarkerParams const& params) {
  detail::require_marker_params("h_maxima_tile", params);
  detail::require_same_size("h_maxima_tile", distance.width(), distance.height(), rec.width(), rec.height());
  GIGASEG_REQUIRE(distance.width() >= 3 && distance.height() >= 3, ErrorKind::usage, "h_maxima_tile",
                  "a tile and its ring take at least 3 x 3 pixels");
  detail::dispatch<MarkersTileAlgorithm>(space, Path::automatic, [&] {
    detail::reconstruction_start(space, distance, rec, params.h, true);
    detail::reconstruct_portable(space, distance, rec, params.connectivity == 8, true);
  });
}

template <class ExecSpace>
void regional_maxima_tile(ExecSpace const& space,
                          ImageView<float const, typename ExecSpace::memory_space> const& distance,
                          ImageView<float const, typename ExecSpace::memory_space> const& rec,
                          ImageView<std::uint8_t, typename ExecSpace::memory_space> const& lower,
                          MarkerParams const& params) {
  detail::require_marker_params("regional_maxima_tile", params);
  detail::require_same_size("regional_maxima_tile", distance.width(), distance.height(), rec.width(), rec.height());
  detail::require_same_size("regional_maxima_tile", distance.width(), distance.height(), lower.width(), lower.height());
  GIGASEG_REQUIRE(distance.width() >= 3 && distance.height() >= 3, ErrorKind::usage, "regional_maxima_tile",
                  "a tile and its ring take at least 3 x 3 pixels");
  detail::dispatch<MarkersTileAlgorithm>(space, Path::automatic, [&] {
    detail::higher_neighbours(space, distance, rec, lower, params.connectivity == 8, true);
    detail::spread_over_plateaus_portable(space, rec, lower, params.connectivity == 8, true);
  });
}

template <class ExecSpace>
Path markers_path(Path requested) {
  return resolved_path<MarkersAlgorithm, ExecSpace>(requested);
}

template <class ExecSpace>
index_t distance_markers(ExecSpace const& space,
                         ImageView<float const, typename ExecSpace::memory_space> const& distance,
                         ImageView<Label, typename ExecSpace::memory_space> const& markers,
                         MarkerParams const& params) {
  using Memory = typename ExecSpace::memory_space;
  detail::require_same_size("distance_markers", distance.width(), distance.height(), markers.width(), markers.height());
  detail::require_marker_params("distance_markers", params);
  Path const path = markers_path<ExecSpace>(params.path);  // also validates a forced path
  index_t const width = distance.width(), height = distance.height();
  if (width == 0 || height == 0) return 0;
  bool const eight = params.connectivity == 8;
  float const h = params.h;

  // The reconstruction by dilation of D - h under D over the foreground.
  // Temporaries from the stream-ordered pool on CUDA (core/scratch.hpp).
  ScratchImage<float, ExecSpace> const rec_memory(space, "gigaseg::markers::reconstruction", width, height);
  auto const& rec = rec_memory.view();
  detail::reconstruction_start(space, distance, rec, h, false);
  detail::dispatch<MarkersAlgorithm>(
      space, path, [&] { detail::reconstruct_portable(space, distance, rec, eight); }, distance, rec, eight);

  // Regional maxima of the reconstruction: a pixel is not on one if a neighbour is higher or an
  // equal neighbour is not on one (the flag spreads over each plateau).
  ScratchImage<std::uint8_t, ExecSpace> const lower_memory(space, "gigaseg::markers::not_maximum", width, height);
  auto const& lower = lower_memory.view();
  auto const rec_c = ImageView<float const, Memory>(rec);
  detail::higher_neighbours(space, distance, rec_c, lower, eight, false);
  detail::dispatch<MarkersAlgorithm>(
      space, path, [&] { detail::spread_over_plateaus_portable(space, rec_c, lower, eight); }, distance, rec_c, lower,
      eight);
  ScratchImage<std::uint8_t, ExecSpace> const peaks_memory(space, "gigaseg::markers::peaks", width, height);
  auto const& peaks = peaks_memory.view();
  detail::for_each_row_pixel(
      space, "gigaseg::markers::peaks", height, width,
      KOKKOS_LAMBDA(index_t y, index_t x) { peaks(y, x) = lower(y, x) ? 0 : 255; });
  LabelParams label_params;
  label_params.connectivity = params.connectivity;
  index_t const count = label(space, ImageView<std::uint8_t const, Memory>(peaks), markers, label_params);
  if (params.min_separation <= 0 || count < 2) return count;

  // Minimum separation: per marker its centroid, height and foreground component, then the greedy
  // choice on the host (markers.cpp) and the new numbers back on the device.
  ImageView<std::uint8_t, Memory> foreground = peaks;  // reused
  detail::for_each_row_pixel(
      space, "gigaseg::markers::foreground", height, width,
      KOKKOS_LAMBDA(index_t y, index_t x) { foreground(y, x) = distance(y, x) > 0 ? 255 : 0; });
  ScratchImage<Label, ExecSpace> const components_memory(space, "gigaseg::markers::components", width, height);
  auto const& components = components_memory.view();
  label(space, ImageView<std::uint8_t const, Memory>(foreground), components, label_params);
  ScratchArray<std::int64_t, ExecSpace> const sums_memory(space, "gigaseg::markers::sums",
                                                          std::size_t(3 * (count + 1)));
  ScratchArray<float, ExecSpace> const heights_memory(space, "gigaseg::markers::heights", std::size_t(count + 1));
  ScratchArray<Label, ExecSpace> const component_memory(space, "gigaseg::markers::component_of",
                                                        std::size_t(count + 1));
  auto const sums = sums_memory.view();  // x, y, area of marker l at 3 l, 3 l + 1, 3 l + 2
  auto const heights = heights_memory.view();
  auto const component_of = component_memory.view();
  Kokkos::deep_copy(space, sums, std::int64_t(0));
  auto const markers_c = ImageView<Label const, Memory>(markers);
  detail::for_each_row_pixel(
      space, "gigaseg::markers::summaries", height, width, KOKKOS_LAMBDA(index_t y, index_t x) {
        Label const l = markers_c(y, x);
        if (l == 0) return;
        Kokkos::atomic_add(&sums(3 * l), std::int64_t(x));
        Kokkos::atomic_add(&sums(3 * l + 1), std::int64_t(y));
        Kokkos::atomic_add(&sums(3 * l + 2), std::int64_t(1));
        heights(l) = rec_c(y, x);            // equal over the plateau
        component_of(l) = components(y, x);  // one component holds the whole marker
      });
  auto const host_sums = detail::to_host_array(space, sums);
  auto const host_heights = detail::to_host_array(space, heights);
  auto const host_components = detail::to_host_array(space, component_of);
  std::vector<detail::MarkerSummary> summaries(std::size_t(count + 1));
  for (index_t l = 1; l <= count; ++l) {
    std::int64_t const area = host_sums(3 * l + 2);
    summaries[std::size_t(l)] = {double(host_sums(3 * l) + area * params.origin_x),
                                 double(host_sums(3 * l + 1) + area * params.origin_y), index_t(area), host_heights(l),
                                 host_components(l)};
  }
  std::vector<Label> const new_id = detail::separate_markers(summaries, params.min_separation);
  renumber(space, markers, new_id);
  index_t kept = 0;
  for (Label id : new_id) kept = id > kept ? id : kept;
  return kept;
}

template <class ExecSpace>
index_t background_markers(ExecSpace const& space,
                           ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& mask,
                           ImageView<Label, typename ExecSpace::memory_space> const& markers, float min_distance,
                           Label label) {
  index_t marked = 0;
  detail::dispatch<BackgroundMarkersAlgorithm>(space, Path::automatic, [&] {
    marked = detail::background_markers_portable(space, mask, markers, min_distance, label);
  });
  return marked;
}

template <class ExecSpace>
index_t merge_small_regions(ExecSpace const& space, ImageView<Label, typename ExecSpace::memory_space> const& labels,
                            index_t count, index_t min_area) {
  index_t merged = 0;
  detail::dispatch<MergeRegionsAlgorithm>(
      space, Path::automatic, [&] { merged = detail::merge_small_regions_portable(space, labels, count, min_area); });
  return merged;
}

}  // namespace gigaseg
