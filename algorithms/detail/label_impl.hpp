#pragma once
// Implementation of algorithms/label.hpp: the portable path, the canonical numbering shared by
// every union-find path, and the dispatch to the tuned backends (instantiated by
// backends/instantiate/label.cpp, which also sees the backends' specialisations).
#include "gigaseg/algorithms/detail/dispatch.hpp"
#include "gigaseg/algorithms/detail/host_arrays.hpp"
#include "gigaseg/algorithms/detail/label_portable.hpp"
#include "gigaseg/algorithms/detail/pixelwise.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/scratch.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace gigaseg {
namespace detail {

// Canonical numbering of a compressed parents array (every foreground entry points at its root,
// the smallest index of its component): roots are numbered 1..N in index order by a scan, each
// root writes its own number, then every other pixel copies its root's. Returns N.
template <class ExecSpace, class Index, class Unit = detail::unit_for<ExecSpace>>
index_t number_components(ExecSpace const& space, Kokkos::View<Index*, typename ExecSpace::memory_space> const& parents,
                          ImageView<Label, typename ExecSpace::memory_space> const& labels) {
  index_t const width = labels.width(), pixels = labels.pixel_count();
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>;
  index_t components = 0;
  Kokkos::parallel_scan(
      "gigaseg::label::number_roots", Range(space, 0, pixels),
      KOKKOS_LAMBDA(index_t i, index_t & count, bool final) {
        bool const root = parents(i) == Index(i);
        if (final && root) labels(i / width, i % width) = Label(count + 1);
        count += root ? 1 : 0;
      },
      components);
  check_label_count(components);
  Kokkos::parallel_for(
      "gigaseg::label::copy_root_numbers", Range(space, 0, pixels), KOKKOS_LAMBDA(index_t i) {
        Index const root = parents(i);
        if (root == background_parent<Index>()) {
          labels(i / width, i % width) = 0;
        } else if (root != Index(i)) {
          labels(i / width, i % width) = labels(index_t(root) / width, index_t(root) % width);
        }
      });
  return components;
}

template <class Index, class ExecSpace, class T, class Unit = detail::unit_for<ExecSpace>>
index_t label_portable(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& image,
                       ImageView<Label, typename ExecSpace::memory_space> const& labels, LabelParams const& params) {
  using Memory = typename ExecSpace::memory_space;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  index_t const height = image.height(), width = image.width();
  Kokkos::View<Index*, Memory> parents(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gigaseg::label::parents"),
                                       std::size_t(image.pixel_count()));
  Connects<T> const connects{params.equal_value};
  int const connectivity = params.connectivity;
  Index const w = Index(width);
  // Initial links: each foreground pixel points at its first backward link, or at itself.
  Kokkos::parallel_for(
      "gigaseg::label::init[Portable]", Policy(space, int(height), Kokkos::AUTO), KOKKOS_LAMBDA(Member const& member) {
        index_t const y = member.league_rank();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, width), [&](index_t x) {
          Index const i = Index(y) * w + Index(x);
          if (image(y, x) == 0) {
            parents(i) = background_parent<Index>();
            return;
          }
          Index first = i, second = i;
          int const links = links_of(image, connects, connectivity, y, x, w, first, second);
          parents(i) = links > 0 ? first : i;
        });
      });
  // Second links: merged with atomics, now that every pixel has its initial parent.
  Kokkos::parallel_for(
      "gigaseg::label::merge[Portable]", Policy(space, int(height), Kokkos::AUTO), KOKKOS_LAMBDA(Member const& member) {
        index_t const y = member.league_rank();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, width), [&](index_t x) {
          if (image(y, x) == 0) return;
          Index const i = Index(y) * w + Index(x);
          Index first = i, second = i;
          if (links_of(image, connects, connectivity, y, x, w, first, second) == 2) merge(parents.data(), i, second);
        });
      });
  Kokkos::parallel_for(
      "gigaseg::label::compress[Portable]",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, image.pixel_count()),
      KOKKOS_LAMBDA(index_t i) {
        if (parents(i) != background_parent<Index>()) parents(i) = find_root(parents.data(), Index(i));
      });
  return number_components(space, parents, labels);
}

// 32-bit union-find entries while every index and the background marker fit.
inline bool needs_wide_indices(index_t pixels, LabelParams const& params) {
  return params.wide_indices || pixels >= index_t(std::numeric_limits<std::uint32_t>::max());
}

// renumber(): new_id on `space`, applied to every pixel.
template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void renumber_portable(ExecSpace const& space, ImageView<Label, typename ExecSpace::memory_space> const& labels,
                       std::vector<Label> const& new_id) {
  ScratchArray<Label, ExecSpace> const map_memory(space, "gigaseg::renumber::map", new_id.size());
  auto const map = map_memory.view();
  Kokkos::View<Label const*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(new_id.data(),
                                                                                              new_id.size());
  Kokkos::deep_copy(space, map, host);
  for_each_row_pixel(
      space, "gigaseg::renumber", labels.height(), labels.width(),
      KOKKOS_LAMBDA(index_t y, index_t x) { labels(y, x) = map(labels(y, x)); });
  space.fence();
}

}  // namespace detail

template <class ExecSpace>
void renumber(ExecSpace const& space, ImageView<Label, typename ExecSpace::memory_space> const& labels,
              std::vector<Label> const& new_id) {
  if (labels.empty()) return;
  GIGASEG_REQUIRE(!new_id.empty(), ErrorKind::usage, "renumber", "new_id needs an entry for the background");
  detail::renumber_portable(space, labels, new_id);
}

template <class ExecSpace>
std::vector<index_t> first_pixels(ExecSpace const& space,
                                  ImageView<Label const, typename ExecSpace::memory_space> const& labels,
                                  index_t count) {
  GIGASEG_REQUIRE(count >= 0, ErrorKind::usage, "first_pixels", "negative label count");
  index_t const width = labels.width();
  ScratchArray<std::int64_t, ExecSpace> const first_memory(space, "gigaseg::first_pixels", std::size_t(count + 1));
  auto const first = first_memory.view();
  Kokkos::deep_copy(space, first, std::numeric_limits<std::int64_t>::max());
  ScratchArray<int, ExecSpace> const above_memory(space, "gigaseg::first_pixels::above", 1);
  auto const above = above_memory.view();
  Kokkos::deep_copy(space, above, 0);
  // One atomic per horizontal run of a label, from the run's first pixel.
  detail::for_each_row_pixel(
      space, "gigaseg::first_pixels", labels.height(), width, KOKKOS_LAMBDA(index_t y, index_t x) {
        Label const l = labels(y, x);
        if (l == 0 || (x > 0 && labels(y, x - 1) == l)) return;
        if (index_t(l) > count) {
          Kokkos::atomic_fetch_max(&above(0), 1);
          return;
        }
        Kokkos::atomic_fetch_min(&first(l), std::int64_t(y * width + x));
      });
  auto const host_first = detail::to_host_array(space, first);
  auto const host_above = detail::to_host_array(space, above);
  GIGASEG_REQUIRE(host_above(0) == 0, ErrorKind::input, "first_pixels",
                  "the labels hold a label above " + std::to_string(count));
  std::vector<index_t> out(std::size_t(count + 1));
  for (index_t l = 0; l <= count; ++l) out[std::size_t(l)] = index_t(host_first(l));
  out[0] = std::numeric_limits<index_t>::max();
  return out;
}

template <class ExecSpace>
Path label_path(Path requested) {
  return resolved_path<LabelAlgorithm, ExecSpace>(requested);
}

template <class ExecSpace, class T>
index_t label(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& image,
              ImageView<Label, typename ExecSpace::memory_space> const& labels, LabelParams const& params) {
  static_assert(std::is_same<T, std::uint8_t>::value || std::is_same<T, std::uint16_t>::value ||
                    std::is_same<T, std::uint32_t>::value,
                "label() takes 8-, 16- or 32-bit unsigned images");
  GIGASEG_REQUIRE(params.connectivity == 4 || params.connectivity == 8, ErrorKind::usage, "LabelParams::connectivity",
                  "must be 4 or 8, not " + std::to_string(params.connectivity));
  GIGASEG_REQUIRE(image.width() == labels.width() && image.height() == labels.height(), ErrorKind::input, "label",
                  "labels and image sizes differ");
  if (image.empty()) {
    (void)label_path<ExecSpace>(params.path);  // still validates a forced path
    return 0;
  }
  bool const wide = detail::needs_wide_indices(image.pixel_count(), params);
  index_t components = 0;
  detail::dispatch<LabelAlgorithm>(
      space, params.path,
      [&] {
        components = wide ? detail::label_portable<unsigned long long>(space, image, labels, params)
                          : detail::label_portable<std::uint32_t>(space, image, labels, params);
        space.fence();
      },
      image, labels, params, wide, components);
  return components;
}

}  // namespace gigaseg
