#pragma once
// The watershed's priority flood on the host (algorithms/watershed.hpp, watershed_flood()): the
// flood takes pixels in increasing key order (detail/watershed_key.hpp) from a radix heap, as
// Dijkstra's algorithm does, so every pixel leaves with the smallest key over the paths from the
// markers, the fixpoint the parallel relaxation of detail/watershed_portable.hpp finds. A pixel
// that leaves takes the label of its parent: the neighbour of smallest (key, raster index) among
// those with a smaller key whose step gives its key exactly. Those have all left before it (keys
// leave in order and never fall below the last one taken), so the label is final. The same keys
// and parents as the parallel path: the same labels, bit for bit.
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/algorithms/detail/radix_heap.hpp"
#include "gigaseg/algorithms/detail/watershed_key.hpp"
#include "gigaseg/core/image.hpp"

#include <cstdint>
#include <vector>

namespace gigaseg::detail {

// Floods from `seeds` (raster indices of marker pixels, in raster order) over the pixels for which
// inside(y, x) holds, writing their labels to `out`; key_at(y, x) is a reference to the key of
// such a pixel, which must hold Key::unreached and is left holding its key (the tuned OpenMP path
// keeps one component's keys in a buffer of its bounding box). Pixels the flood does not reach
// keep their value in `out` (the caller sets 0). `heap` is reset and reused.
//
// Seeds for which fixed(y, x) holds are fixed roots instead (the ring of watershed_tile()): their
// key is the one key_at holds and their label the one `out` holds; the flood never changes either,
// and they are parents like any other pixel.
template <class T, class Inside, class KeyAt, class Fixed>
void flood_by_key(ImageView<T const, Kokkos::HostSpace> const& relief,
                  ImageView<Label const, Kokkos::HostSpace> const& markers,
                  ImageView<Label, Kokkos::HostSpace> const& out, int connectivity, std::vector<index_t> const& seeds,
                  Inside const& inside, KeyAt const& key_at, RadixHeap<index_t>& heap, Fixed const& fixed) {
  using Key = WatershedKey<T>;
  index_t const width = relief.width(), height = relief.height();
  static constexpr int dy8[] = {-1, -1, -1, 0, 0, 1, 1, 1}, dx8[] = {-1, 0, 1, -1, 1, -1, 0, 1};
  static constexpr int dy4[] = {-1, 0, 0, 1}, dx4[] = {0, -1, 1, 0};
  int const count = connectivity == 8 ? 8 : 4;
  int const* const dy = count == 8 ? dy8 : dy4;
  int const* const dx = count == 8 ? dx8 : dx4;
  heap.reset();
  for (index_t s : seeds) {
    index_t const y = s / width, x = s % width;
    if (fixed(y, x)) {
      if (key_at(y, x) != Key::unreached) heap.push(key_at(y, x), s);
      continue;
    }
    std::uint64_t const k = Key::marker(level_key(relief(y, x)));
    key_at(y, x) = k;
    out(y, x) = markers(y, x);
    heap.push(k, s);
  }
  std::uint64_t k;
  index_t i;
  while (heap.pop(k, i)) {
    index_t const y = i / width, x = i % width;
    if (k != key_at(y, x)) continue;  // an entry superseded by a smaller key
    bool const root = markers(y, x) != 0 || fixed(y, x);
    std::uint32_t const level = level_key(relief(y, x));
    std::uint64_t parent_key = Key::unreached;
    index_t parent = -1;
    for (int n = 0; n < count; ++n) {
      index_t const ny = y + dy[n], nx = x + dx[n];
      if (ny < 0 || ny >= height || nx < 0 || nx >= width || !inside(ny, nx)) continue;
      index_t const j = ny * width + nx;
      std::uint64_t& kj_at = key_at(ny, nx);
      std::uint64_t const kj = kj_at;
      if (kj < k) {  // left before this pixel: a parent if its step gives this key
        if (!root && Key::step(kj, level) == k && (kj < parent_key || (kj == parent_key && j < parent)))
          parent_key = kj, parent = j;
        continue;
      }
      // No step lowers a marker's key (the smallest of its level), so markers keep theirs.
      if (fixed(ny, nx)) continue;
      std::uint64_t const c = Key::step(k, level_key(relief(ny, nx)));
      if (c < kj) {
        kj_at = c;
        heap.push(c, j);
      }
    }
    if (!root) out(y, x) = parent < 0 ? Label(0) : out(parent / width, parent % width);
  }
}

// The flood without fixed pixels.
template <class T, class Inside, class KeyAt>
void flood_by_key(ImageView<T const, Kokkos::HostSpace> const& relief,
                  ImageView<Label const, Kokkos::HostSpace> const& markers,
                  ImageView<Label, Kokkos::HostSpace> const& out, int connectivity, std::vector<index_t> const& seeds,
                  Inside const& inside, KeyAt const& key_at, RadixHeap<index_t>& heap) {
  flood_by_key(relief, markers, out, connectivity, seeds, inside, key_at, heap, [](index_t, index_t) { return false; });
}

}  // namespace gigaseg::detail
