#pragma once
// Portable connected-component labelling: union-find on a linear parents array with atomic-min
// merging, then canonical numbering by a scan over the roots.
//
// Invariant: parents[i] <= i for every foreground pixel, and a root is a pixel with
// parents[i] == i. Merging two trees hangs the root with the larger index under the smaller one
// with an atomic min (Playne & Hawick, "A new algorithm for parallel connected-component
// labelling on GPUs", IEEE TPDS 2018), so the final root of a component is its smallest index:
// its first pixel in row-major order. That is what makes the numbering canonical.
//
// Benign races: find() reads parents without atomics while other threads lower them. A read
// returns either the old or the new value, both of which are ancestors of the node with a
// smaller index (values only ever decrease towards a node's root), so a find that sees a stale
// value still ends at a valid root, and merge() retries until the atomic min confirms the link.
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace gigaseg::detail {

// Labels are 32-bit: more components than that is an input error naming the operation.
inline void check_label_count(index_t components) {
  GIGASEG_REQUIRE(components <= index_t(std::numeric_limits<Label>::max()), ErrorKind::input, "label",
                  std::to_string(components) + " components do not fit 32-bit labels");
}

// Background pixels hold this; it is above any valid index.
template <class Index>
KOKKOS_INLINE_FUNCTION constexpr Index background_parent() {
  return ~Index(0);
}

template <class Index>
KOKKOS_INLINE_FUNCTION Index find_root(Index const* parents, Index i) {
  Index parent = parents[i];
  while (parent != i) {
    i = parent;
    parent = parents[i];
  }
  return i;
}

template <class Index>
KOKKOS_INLINE_FUNCTION void merge(Index* parents, Index a, Index b) {
  while (true) {
    a = find_root(parents, a);
    b = find_root(parents, b);
    if (a == b) return;
    if (a > b) {  // hang the larger root under the smaller one
      Index const t = a;
      a = b;
      b = t;
    }
    Index const old = Kokkos::atomic_fetch_min(&parents[b], a);
    if (old == b) return;  // b was still a root: linked
    b = old;               // someone linked b meanwhile: retry from its new parent
  }
}

// Which neighbours of a pixel are "the same component" candidates: nonzero (or equal nonzero
// value in equal-value mode).
template <class T>
struct Connects {
  bool equal_value;
  KOKKOS_INLINE_FUNCTION bool operator()(T p, T q) const { return q != 0 && (!equal_value || p == q); }
};

// Links of a pixel to its already-scanned neighbours (NW, N, NE, W), reduced by adjacency: the
// first link is written directly at initialisation (Komura's equivalence: parent = a smaller
// neighbour), the second, where one is needed, is merged afterwards. For 8-connectivity:
//  - N foreground: N alone (W is N's SW neighbour, NW and NE are N's W and E: all already joined
//    to N by their own links);
//  - else W foreground: W, and NE if foreground (NW is W's N);
//  - else NW and NE, each if foreground.
// For 4-connectivity: N, then W.
// The argument is induction on the raster index: every adjacent pair whose later pixel precedes
// this one is already joined, and NW, N, NE, W all precede it. So any partition of these links
// among passes (the CUDA path does the ones inside a tile in shared memory and the ones crossing
// tiles afterwards) yields the same components.
enum class Neighbour : int { nw, n, ne, w };

// `nw`..`w`: whether each neighbour connects to the pixel. Returns the number of links (0..2).
KOKKOS_INLINE_FUNCTION int reduced_links(bool nw, bool n, bool ne, bool w, int connectivity, Neighbour& first,
                                         Neighbour& second) {
  int count = 0;
  auto link = [&](Neighbour q) {
    if (count == 0)
      first = q;
    else
      second = q;
    ++count;
  };
  if (connectivity == 4) {
    if (n) link(Neighbour::n);
    if (w) link(Neighbour::w);
  } else if (n) {
    link(Neighbour::n);
  } else if (w) {
    link(Neighbour::w);
    if (ne) link(Neighbour::ne);
  } else {
    if (nw) link(Neighbour::nw);
    if (ne) link(Neighbour::ne);
  }
  return count;
}

KOKKOS_INLINE_FUNCTION int neighbour_dy(Neighbour q) { return q == Neighbour::w ? 0 : -1; }
KOKKOS_INLINE_FUNCTION int neighbour_dx(Neighbour q) {
  return q == Neighbour::nw || q == Neighbour::w ? -1 : q == Neighbour::n ? 0 : 1;
}

// The links of pixel (y, x) of `image` as linear indices y * width + x.
template <class T, class MemorySpace, class Index>
KOKKOS_INLINE_FUNCTION int links_of(ImageView<T const, MemorySpace> const& image, Connects<T> connects,
                                    int connectivity, index_t y, index_t x, Index width, Index& first, Index& second) {
  T const p = image(y, x);
  bool const has_up = y > 0, has_left = x > 0, has_right = x + 1 < index_t(width);
  T const* up = has_up ? image.row(y - 1) : nullptr;
  bool const n = has_up && connects(p, up[x]);
  bool const w = has_left && connects(p, image(y, x - 1));
  bool const nw = has_up && has_left && connects(p, up[x - 1]);
  bool const ne = has_up && has_right && connects(p, up[x + 1]);
  Neighbour a = Neighbour::n, b = Neighbour::n;
  int const count = reduced_links(nw, n, ne, w, connectivity, a, b);
  Index const i = Index(y) * width + Index(x);
  auto index_of = [&](Neighbour q) { return Index(index_t(i) + neighbour_dy(q) * index_t(width) + neighbour_dx(q)); };
  if (count > 0) first = index_of(a);
  if (count > 1) second = index_of(b);
  return count;
}

}  // namespace gigaseg::detail
