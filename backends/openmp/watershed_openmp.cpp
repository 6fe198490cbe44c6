#include "gigaseg/backends/openmp/watershed_openmp.hpp"

#include "gigaseg/algorithms/detail/watershed_flood.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/watershed.hpp"
#include "gigaseg/core/loop_errors.hpp"

#include <algorithm>
#include <memory>
#include <vector>

namespace gigaseg::tuned {

namespace {

// The flood of watershed_flood() per connected component of the mask, the components spread over
// the threads. With `ring_keys` (watershed_tile()), the image is a tile and a ring of one pixel:
// the ring's pixels are fixed roots (detail::flood_by_key) with the keys ring_keys holds and the
// labels `out` holds, and the tile's keys are written to ring_keys.
template <class T>
void flood_components(Kokkos::OpenMP const& space, ImageView<T const, Kokkos::HostSpace> const& relief,
                      ImageView<Label const, Kokkos::HostSpace> const& markers,
                      ImageView<Label, Kokkos::HostSpace> const& out, WatershedParams const& params,
                      ImageView<std::uint8_t const, Kokkos::HostSpace> const& mask,
                      ImageView<std::uint64_t, Kokkos::HostSpace> const& ring_keys) {
  using Key = detail::WatershedKey<T>;
  index_t const width = relief.width(), height = relief.height();
  bool const ringed = !ring_keys.empty();
  auto on_ring = [&](index_t y, index_t x) {
    return ringed && (y == 0 || x == 0 || y == height - 1 || x == width - 1);
  };
  ImageView<Label, Kokkos::HostSpace> component("gigaseg::watershed::components", width, height);
  index_t const components = label(space, mask, component, LabelParams{params.connectivity});
  // Each component's seeds (its markers and, in a tile, its ring pixels) in raster order, its
  // size (to balance the threads) and its bounding box (its keys live in a buffer of that box,
  // cache-sized for a cell, unless they go to ring_keys).
  struct Box {
    index_t y0, x0, y1, x1;
  };
  std::vector<std::vector<index_t>> seeds(static_cast<std::size_t>(components));
  std::vector<index_t> size(std::size_t(components), 0);
  std::vector<Box> box(std::size_t(components), Box{height, width, -1, -1});
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) {
      Label const c = component(y, x);
      bool const ring = on_ring(y, x);
      if (!ring) {
        out(y, x) = 0;
        if (ringed) ring_keys(y, x) = Key::unreached;
      }
      if (c == 0) continue;
      ++size[c - 1];
      Box& b = box[c - 1];
      b.y0 = std::min(b.y0, y), b.x0 = std::min(b.x0, x), b.y1 = std::max(b.y1, y), b.x1 = std::max(b.x1, x);
      if (ring || markers(y, x) != 0) seeds[c - 1].push_back(y * width + x);
    }
  // Contiguous runs of components with about equal pixel counts, one per thread.
  int const threads = space.concurrency();
  index_t total = 0;
  for (index_t s : size) total += s;
  std::vector<index_t> first(std::size_t(threads) + 1, components);
  first[0] = 0;
  index_t running = 0;
  int t = 1;
  for (index_t c = 0; c < components && t < threads; ++c) {
    running += size[std::size_t(c)];
    if (running * threads >= total * t) first[std::size_t(t++)] = c + 1;
  }
  auto inside = [&](index_t y, index_t x) { return component(y, x) != 0; };
  detail::LoopErrors errors;  // a heap or a key box that cannot grow: rethrown after the loop
  Kokkos::parallel_for("gigaseg::watershed[OpenMP]", Kokkos::RangePolicy<Kokkos::OpenMP>(space, 0, threads),
                       [&](int thread) {
                         errors.guard([&] {
                           // watershed_flood()'s flood, one component at a time: components cannot reach each other
                           // (a neighbour in another component would be in this one), so each one's keys and labels
                           // are those of the flood over the whole image.
                           detail::RadixHeap<index_t> heap;
                           std::vector<std::uint64_t> keys;
                           for (index_t c = first[std::size_t(thread)]; c < first[std::size_t(thread) + 1]; ++c) {
                             if (seeds[std::size_t(c)].empty()) continue;  // no marker: nothing to flood, all 0
                             if (ringed) {
                               auto key_at = [&](index_t y, index_t x) -> std::uint64_t& { return ring_keys(y, x); };
                               detail::flood_by_key(relief, markers, out, params.connectivity, seeds[std::size_t(c)],
                                                    inside, key_at, heap, on_ring);
                               continue;
                             }
                             Box const b = box[std::size_t(c)];
                             index_t const box_width = b.x1 - b.x0 + 1;
                             keys.assign(std::size_t(box_width * (b.y1 - b.y0 + 1)), Key::unreached);
                             auto key_at = [&](index_t y, index_t x) -> std::uint64_t& {
                               return keys[std::size_t((y - b.y0) * box_width + (x - b.x0))];
                             };
                             detail::flood_by_key(relief, markers, out, params.connectivity, seeds[std::size_t(c)],
                                                  inside, key_at, heap);
                           }
                         });
                       });
  space.fence();
  errors.rethrow();
}

}  // namespace

template <class T>
bool watershed(Kokkos::OpenMP const& space, ImageView<T const, Kokkos::HostSpace> const& relief,
               ImageView<Label const, Kokkos::HostSpace> const& markers, ImageView<Label, Kokkos::HostSpace> const& out,
               WatershedParams const& params, ImageView<std::uint8_t const, Kokkos::HostSpace> const& mask) {
  if (mask.empty()) return false;
  flood_components(space, relief, markers, out, params, mask, ImageView<std::uint64_t, Kokkos::HostSpace>());
  return true;
}

template <class T>
bool watershed_tile_host(Kokkos::OpenMP const& space, ImageView<T const, Kokkos::HostSpace> const& relief,
                         ImageView<Label const, Kokkos::HostSpace> const& markers,
                         ImageView<std::uint64_t, Kokkos::HostSpace> const& keys,
                         ImageView<Label, Kokkos::HostSpace> const& out, WatershedParams const& params,
                         ImageView<std::uint8_t const, Kokkos::HostSpace> const& mask) {
  space.fence();
  if (!mask.empty()) {
    flood_components(space, relief, markers, out, params, mask, keys);
    return true;
  }
  // No mask: one flood over the tile, its ring fixed.
  index_t const width = relief.width(), height = relief.height();
  auto on_ring = [&](index_t y, index_t x) { return y == 0 || x == 0 || y == height - 1 || x == width - 1; };
  std::vector<index_t> seeds;
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) {
      bool const ring = on_ring(y, x);
      if (!ring) out(y, x) = 0, keys(y, x) = detail::WatershedKey<T>::unreached;
      if (ring || markers(y, x) != 0) seeds.push_back(y * width + x);
    }
  detail::RadixHeap<index_t> heap;
  auto key_at = [&](index_t y, index_t x) -> std::uint64_t& { return keys(y, x); };
  detail::flood_by_key(
      relief, markers, out, params.connectivity, seeds, [](index_t, index_t) { return true; }, key_at, heap, on_ring);
  return true;
}

template bool watershed<std::uint8_t>(Kokkos::OpenMP const&, ImageView<std::uint8_t const, Kokkos::HostSpace> const&,
                                      ImageView<Label const, Kokkos::HostSpace> const&,
                                      ImageView<Label, Kokkos::HostSpace> const&, WatershedParams const&,
                                      ImageView<std::uint8_t const, Kokkos::HostSpace> const&);
template bool watershed<std::uint16_t>(Kokkos::OpenMP const&, ImageView<std::uint16_t const, Kokkos::HostSpace> const&,
                                       ImageView<Label const, Kokkos::HostSpace> const&,
                                       ImageView<Label, Kokkos::HostSpace> const&, WatershedParams const&,
                                       ImageView<std::uint8_t const, Kokkos::HostSpace> const&);
template bool watershed<float>(Kokkos::OpenMP const&, ImageView<float const, Kokkos::HostSpace> const&,
                               ImageView<Label const, Kokkos::HostSpace> const&,
                               ImageView<Label, Kokkos::HostSpace> const&, WatershedParams const&,
                               ImageView<std::uint8_t const, Kokkos::HostSpace> const&);

#define GIGASEG_WATERSHED_TILE_HOST(T)                                                                      \
  template bool watershed_tile_host<T>(Kokkos::OpenMP const&, ImageView<T const, Kokkos::HostSpace> const&, \
                                       ImageView<Label const, Kokkos::HostSpace> const&,                    \
                                       ImageView<std::uint64_t, Kokkos::HostSpace> const&,                  \
                                       ImageView<Label, Kokkos::HostSpace> const&, WatershedParams const&,  \
                                       ImageView<std::uint8_t const, Kokkos::HostSpace> const&);
GIGASEG_WATERSHED_TILE_HOST(std::uint8_t)
GIGASEG_WATERSHED_TILE_HOST(std::uint16_t)
GIGASEG_WATERSHED_TILE_HOST(float)
#undef GIGASEG_WATERSHED_TILE_HOST

}  // namespace gigaseg::tuned
