#include "gigaseg/backends/openmp/watershed_openmp.hpp"

#include "gigaseg/algorithms/detail/watershed_flood.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/watershed.hpp"

#include <algorithm>
#include <memory>
#include <vector>

namespace gigaseg::tuned {

template <class T>
bool watershed(Kokkos::OpenMP const& space, ImageView<T const, Kokkos::HostSpace> const& relief,
               ImageView<Label const, Kokkos::HostSpace> const& markers, ImageView<Label, Kokkos::HostSpace> const& out,
               WatershedParams const& params, ImageView<std::uint8_t const, Kokkos::HostSpace> const& mask) {
  if (mask.empty()) return false;
  index_t const width = relief.width(), height = relief.height();
  ImageView<Label, Kokkos::HostSpace> component("gigaseg::watershed::components", width, height);
  index_t const components = label(space, mask, component, LabelParams{params.connectivity});
  // Each component's markers in raster order, its size (to balance the threads) and its bounding
  // box (its keys live in a buffer of that box, cache-sized for a cell).
  struct Box {
    index_t y0, x0, y1, x1;
  };
  std::vector<std::vector<index_t>> seeds(static_cast<std::size_t>(components));
  std::vector<index_t> size(std::size_t(components), 0);
  std::vector<Box> box(std::size_t(components), Box{height, width, -1, -1});
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) {
      Label const c = component(y, x);
      out(y, x) = 0;
      if (c == 0) continue;
      ++size[c - 1];
      Box& b = box[c - 1];
      b.y0 = std::min(b.y0, y), b.x0 = std::min(b.x0, x), b.y1 = std::max(b.y1, y), b.x1 = std::max(b.x1, x);
      if (markers(y, x) != 0) seeds[c - 1].push_back(y * width + x);
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
  using Key = detail::WatershedKey<T>;
  auto inside = [&](index_t y, index_t x) { return component(y, x) != 0; };
  Kokkos::parallel_for(
      "gigaseg::watershed[OpenMP]", Kokkos::RangePolicy<Kokkos::OpenMP>(space, 0, threads), [&](int thread) {
        // watershed_flood()'s flood, one component at a time: components cannot reach each other
        // (a neighbour in another component would be in this one), so each one's keys and labels
        // are those of the flood over the whole image.
        detail::RadixHeap<index_t> heap;
        std::vector<std::uint64_t> keys;
        for (index_t c = first[std::size_t(thread)]; c < first[std::size_t(thread) + 1]; ++c) {
          if (seeds[std::size_t(c)].empty()) continue;  // no marker: nothing to flood, all 0
          Box const b = box[std::size_t(c)];
          index_t const box_width = b.x1 - b.x0 + 1;
          keys.assign(std::size_t(box_width * (b.y1 - b.y0 + 1)), Key::unreached);
          auto key_at = [&](index_t y, index_t x) -> std::uint64_t& {
            return keys[std::size_t((y - b.y0) * box_width + (x - b.x0))];
          };
          detail::flood_by_key(relief, markers, out, params.connectivity, seeds[std::size_t(c)], inside, key_at, heap);
        }
      });
  space.fence();
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

}  // namespace gigaseg::tuned
