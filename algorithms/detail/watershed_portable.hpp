#pragma once
// Parallel watershed (algorithms/watershed.hpp) in portable Kokkos, as a minimum-path problem:
// every pixel's key (detail/watershed_key.hpp: flooding level, steps at that level, the level it
// rose from, steps below it) is relaxed to its unique minimum over the paths from the markers, in
// place: updates only ever lower a key and steps are monotone, so any order of updates, racing or
// not, ends at the same fixpoint. Then each pixel's parent is, among the neighbours whose step
// gives exactly its key, the one with the smallest (key, raster index); parents have strictly
// smaller keys, so chains end at markers, and pointer jumping gives every pixel its marker's
// label. The priority flood of algorithms/watershed.cpp computes the same keys and parents, so
// every backend and path gives the same labels.
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/algorithms/detail/pixelwise.hpp"
#include "gigaseg/algorithms/detail/relaxation.hpp"
#include "gigaseg/algorithms/detail/stencil.hpp"
#include "gigaseg/algorithms/detail/watershed_key.hpp"
#include "gigaseg/core/scratch.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gigaseg::detail {

//
// With `ring_keys` (watershed_tile: a tile of a larger image and a ring of one pixel around it),
// the ring's pixels are fixed: their keys are read from ring_keys and their labels from `out`, and
// each is a root (its own parent) with that label; the tile's keys are written to ring_keys.
template <class ExecSpace, class T, class Unit = detail::unit_for<ExecSpace>>
void watershed_portable(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& relief,
                        ImageView<Label const, typename ExecSpace::memory_space> const& markers,
                        ImageView<Label, typename ExecSpace::memory_space> const& out, int connectivity,
                        ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& mask,
                        ImageView<std::uint64_t, typename ExecSpace::memory_space> const& ring_keys = {}) {
  index_t const width = relief.width(), height = relief.height();
  bool const masked = !mask.empty();
  bool const eight = connectivity == 8;
  bool const ringed = !ring_keys.empty();
  using Key = WatershedKey<T>;
  // Temporaries from the stream-ordered pool on CUDA (core/scratch.hpp).
  ScratchImage<std::uint64_t, ExecSpace> const key_memory(space, "gigaseg::watershed::key", ringed ? 0 : width,
                                                          ringed ? 0 : height);
  // Parents as raster indices into an unpitched array: pointer jumping then needs no division.
  ScratchArray<index_t, ExecSpace> const parent_memory(space, "gigaseg::watershed::parent",
                                                       std::size_t(width * height));
  auto const& key = ringed ? ring_keys : key_memory.view();
  auto const& parent = parent_memory.view();
  auto on_ring = [=] KOKKOS_FUNCTION(index_t y, index_t x) {
    return ringed && (y == 0 || x == 0 || y == height - 1 || x == width - 1);
  };

  for_each_row_pixel(
      space, "gigaseg::watershed::init", height, width, KOKKOS_LAMBDA(index_t y, index_t x) {
        if (on_ring(y, x)) {  // a fixed root: key and label as given
          parent(y * width + x) = y * width + x;
          return;
        }
        bool const inside = !masked || mask(y, x) != 0;
        Label const m = inside ? markers(y, x) : Label(0);
        key(y, x) = m != 0 ? Key::marker(level_key(relief(y, x))) : Key::unreached;
        parent(y * width + x) = m != 0 ? y * width + x : -1;
      });

  // The neighbour offsets in raster order (the 4-neighbourhood: up, left, right, down), inside
  // the image. The relaxation needs no mask test: pixels outside the mask keep `unreached`, whose
  // step is `unreached`, so they never lower a key. (A ring pixel outside the mask has the key
  // `unreached` too, and one with a smaller key is inside it.)
  auto in_image = [=] KOKKOS_FUNCTION(int i, index_t y, index_t x, index_t& ny, index_t& nx) {
    static constexpr int dy8[] = {-1, -1, -1, 0, 0, 1, 1, 1}, dx8[] = {-1, 0, 1, -1, 1, -1, 0, 1};
    static constexpr int dy4[] = {-1, 0, 0, 1}, dx4[] = {0, -1, 1, 0};
    ny = y + (eight ? dy8[i] : dy4[i]);
    nx = x + (eight ? dx8[i] : dx4[i]);
    return ny >= 0 && ny < height && nx >= 0 && nx < width;
  };
  // ... and inside the mask.
  auto neighbour = [=] KOKKOS_FUNCTION(int i, index_t y, index_t x, index_t& ny, index_t& nx) {
    return in_image(i, y, x, ny, nx) && (!masked || on_ring(ny, nx) || mask(ny, nx) != 0);
  };
  int const count = eight ? 8 : 4;

  // Relaxation to the fixpoint, tile by tile in scratch memory (detail/relaxation.hpp).
  relax_to_fixpoint(
      space, "gigaseg::watershed::relax", key,
      KOKKOS_LAMBDA(index_t y, index_t x, std::uint64_t own, TileAccess<std::uint64_t> const& at) {
        if (on_ring(y, x)) return own;
        if (masked && mask(y, x) == 0) return own;
        if (markers(y, x) != 0) return own;  // a marker (inside the mask)
        std::uint32_t const level_q = level_key(relief(y, x));
        std::uint64_t best = own;
        for (int k = 0; k < count; ++k) {
          index_t ny, nx;
          if (!in_image(k, y, x, ny, nx)) continue;
          std::uint64_t const c = Key::step(at(ny, nx), level_q);
          best = c < best ? c : best;
        }
        return best;
      });

  // Parents: the neighbour whose step gives the pixel's key exactly, smallest (key, index) first.
  for_each_row_pixel(
      space, "gigaseg::watershed::parents", height, width, KOKKOS_LAMBDA(index_t y, index_t x) {
        std::uint64_t const own = key(y, x);
        if (own == Key::unreached || parent(y * width + x) == y * width + x || (masked && mask(y, x) == 0)) return;
        std::uint32_t const level_q = level_key(relief(y, x));
        std::uint64_t best_key = Key::unreached;
        index_t best = -1;
        for (int k = 0; k < count; ++k) {
          index_t ny, nx;
          if (!neighbour(k, y, x, ny, nx)) continue;
          std::uint64_t const kp = key(ny, nx);
          index_t const index = ny * width + nx;
          if (kp < own && Key::step(kp, level_q) == own && (kp < best_key || (kp == best_key && index < best)))
            best_key = kp, best = index;
        }
        parent(y * width + x) = best;
      });
  // Pointer jumping to the roots (markers), then the labels.
  for (;;) {
    int changed = 0;
    Kokkos::parallel_reduce(
        "gigaseg::watershed::jump", Kokkos::RangePolicy<ExecSpace>(space, 0, width * height),
        KOKKOS_LAMBDA(index_t i, int& any) {
          index_t const p = parent(i);
          if (p < 0) return;
          index_t const pp = parent(p);
          if (pp != p) {
            parent(i) = pp;
            any = 1;
          }
        },
        Kokkos::Max<int>(changed));
    if (changed <= 0) break;
  }
  for_each_row_pixel(
      space, "gigaseg::watershed::labels", height, width, KOKKOS_LAMBDA(index_t y, index_t x) {
        index_t const root = parent(y * width + x);
        if (on_ring(y, x)) return;  // a ring pixel's label is an input
        index_t const ry = root / width, rx = root % width;
        out(y, x) = root < 0 ? Label(0) : on_ring(ry, rx) ? out(ry, rx) : markers(ry, rx);
      });
}

}  // namespace gigaseg::detail
