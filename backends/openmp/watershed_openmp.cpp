#include "gigaseg/backends/openmp/watershed_openmp.hpp"

#include "gigaseg/algorithms/detail/bucket_queue.hpp"
#include "gigaseg/algorithms/label.hpp"
#include "gigaseg/algorithms/watershed.hpp"

#include <algorithm>
#include <vector>

namespace gigaseg::tuned {

template <class T>
bool watershed(Kokkos::OpenMP const& space, ImageView<T const, Kokkos::HostSpace> const& relief,
               ImageView<Label const, Kokkos::HostSpace> const& markers, ImageView<Label, Kokkos::HostSpace> const& out,
               WatershedParams const& params, ImageView<std::uint8_t const, Kokkos::HostSpace> const& mask) {
  if constexpr (sizeof(T) > 2) {
    return false;
  } else {
    if (mask.empty()) return false;
    index_t const width = relief.width(), height = relief.height();
    ImageView<Label, Kokkos::HostSpace> component("gigaseg::watershed::components", width, height);
    index_t const components = label(space, mask, component, LabelParams{params.connectivity});
    // Each component's markers in raster order, and its size (to balance the threads).
    std::vector<std::vector<std::uint64_t>> seeds(static_cast<std::size_t>(components));
    std::vector<index_t> size(std::size_t(components), 0);
    for (index_t y = 0; y < height; ++y)
      for (index_t x = 0; x < width; ++x) {
        Label const c = component(y, x);
        out(y, x) = c != 0 ? markers(y, x) : Label(0);
        if (c == 0) continue;
        ++size[c - 1];
        if (markers(y, x) != 0) seeds[c - 1].push_back(std::uint64_t(y) << 32 | std::uint64_t(x));
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
    static constexpr int dy8[] = {-1, -1, -1, 0, 0, 1, 1, 1}, dx8[] = {-1, 0, 1, -1, 1, -1, 0, 1};
    static constexpr int dy4[] = {-1, 0, 0, 1}, dx4[] = {0, -1, 1, 0};
    int const count = params.connectivity;
    int const* const dy = count == 8 ? dy8 : dy4;
    int const* const dx = count == 8 ? dx8 : dx4;
    Kokkos::parallel_for(
        "gigaseg::watershed[OpenMP]", Kokkos::RangePolicy<Kokkos::OpenMP>(space, 0, threads), [&](int thread) {
          // The flood of watershed_flood() (value buckets, first in first out), one component at a
          // time; neighbours outside the component are outside the mask (0 in `component`) or labelled.
          detail::BucketQueue<std::uint64_t> queue(std::size_t(1) << (8 * sizeof(T)));
          for (index_t c = first[std::size_t(thread)]; c < first[std::size_t(thread) + 1]; ++c) {
            for (std::uint64_t s : seeds[std::size_t(c)])
              queue.push(std::size_t(relief(index_t(s >> 32), index_t(s & 0xffffffffu))), s);
            std::uint64_t p;
            while (queue.pop(p)) {
              index_t const y = index_t(p >> 32), x = index_t(p & 0xffffffffu);
              Label const l = out(y, x);
              for (int k = 0; k < count; ++k) {
                index_t const ny = y + dy[k], nx = x + dx[k];
                if (ny < 0 || ny >= height || nx < 0 || nx >= width || out(ny, nx) != 0 || component(ny, nx) == 0)
                  continue;
                out(ny, nx) = l;
                queue.push(std::size_t(relief(ny, nx)), std::uint64_t(ny) << 32 | std::uint64_t(nx));
              }
            }
          }
        });
    space.fence();
    return true;
  }
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
