#pragma once
// Parallel watershed (algorithms/watershed.hpp) in portable Kokkos, as a minimum-path problem.
//
// Every pixel gets a cost key = (flooding level L, [R,] steps D, E): L is the lowest level at which
// water from some marker reaches it (the minimax of relief values along a path, markers at their
// own relief); the rest orders the pixels reaching one level as the flood's queue would (below).
// Going from p to q: L(q) = max(L(p), relief(q)). Keys are packed into 64 bits and relaxed to their
// unique minimum, in place: updates only ever lower a key, so any order of updates, racing or not,
// ends at the same fixpoint. Then each pixel's parent is, among the neighbours whose step gives
// exactly its key, the one with the smallest (key, raster index); parents have strictly smaller
// keys, so chains end at markers, and pointer jumping gives every pixel its marker's label.
// Deterministic on every backend and run.
//
// Against the serial flood: the first neighbour to leave the flood's queue is the one of lowest
// level, so where relief values are distinct (equal levels then mean the same basin) the labels
// are the flood's exactly; on plateaus R, D and E stand for the flood's first-in-first-out order.
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/algorithms/detail/pixelwise.hpp"
#include "gigaseg/algorithms/detail/relaxation.hpp"
#include "gigaseg/algorithms/detail/stencil.hpp"
#include "gigaseg/core/scratch.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gigaseg::detail {

// An unsigned 32-bit key with the order of the relief values.
template <class T>
KOKKOS_INLINE_FUNCTION std::uint32_t level_key(T v) {
  if constexpr (std::is_same<T, float>::value) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
  } else {
    return std::uint32_t(v);
  }
}

constexpr std::uint64_t unreached = ~std::uint64_t(0);

template <class ExecSpace, class T, class Unit = detail::unit_for<ExecSpace>>
void watershed_portable(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& relief,
                        ImageView<Label const, typename ExecSpace::memory_space> const& markers,
                        ImageView<Label, typename ExecSpace::memory_space> const& out, int connectivity,
                        ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& mask) {
  index_t const width = relief.width(), height = relief.height();
  bool const masked = !mask.empty();
  bool const eight = connectivity == 8;
  // Temporaries from the stream-ordered pool on CUDA (core/scratch.hpp).
  ScratchImage<std::uint64_t, ExecSpace> const key_memory(space, "gigaseg::watershed::key", width, height);
  // Parents as raster indices into an unpitched array: pointer jumping then needs no division.
  ScratchArray<index_t, ExecSpace> const parent_memory(space, "gigaseg::watershed::parent",
                                                       std::size_t(width * height));
  auto const& key = key_memory.view();
  auto const& parent = parent_memory.view();

  for_each_row_pixel(
      space, "gigaseg::watershed::init", height, width, KOKKOS_LAMBDA(index_t y, index_t x) {
        bool const inside = !masked || mask(y, x) != 0;
        Label const m = inside ? markers(y, x) : Label(0);
        key(y, x) = m != 0 ? std::uint64_t(level_key(relief(y, x))) << (sizeof(T) <= 2 ? 48 : 32) : unreached;
        parent(y * width + x) = m != 0 ? y * width + x : -1;
      });

  // The neighbour offsets in raster order (the 4-neighbourhood: up, left, right, down), inside
  // the image. The relaxation needs no mask test: pixels outside the mask keep `unreached`, whose
  // step is `unreached`, so they never lower a key.
  auto in_image = [=] KOKKOS_FUNCTION(int i, index_t y, index_t x, index_t& ny, index_t& nx) {
    static constexpr int dy8[] = {-1, -1, -1, 0, 0, 1, 1, 1}, dx8[] = {-1, 0, 1, -1, 1, -1, 0, 1};
    static constexpr int dy4[] = {-1, 0, 0, 1}, dx4[] = {0, -1, 1, 0};
    ny = y + (eight ? dy8[i] : dy4[i]);
    nx = x + (eight ? dx8[i] : dx4[i]);
    return ny >= 0 && ny < height && nx >= 0 && nx < width;
  };
  // ... and inside the mask.
  auto neighbour = [=] KOKKOS_FUNCTION(int i, index_t y, index_t x, index_t& ny, index_t& nx) {
    return in_image(i, y, x, ny, nx) && (!masked || mask(ny, nx) != 0);
  };
  // Key layouts (64 bits, compared as integers). Float reliefs: level (32) | D (22) | E (10).
  // 8- and 16-bit reliefs: level (16) | D (20) | R (16) | E (12). The flood labels a pixel when
  // its first neighbour leaves the queue, and takes the pixels of one level in the order they were
  // pushed, so a key stands for the sequence of levels along the chain of pushers back to the
  // marker, compared lexicographically: D counts the steps at the key's level (fewer steps were
  // pushed earlier), R is the level below that the chain rose from (a lower one left the queue
  // earlier), E counts steps onto lower pixels (the flood takes those at once, before any pixel at
  // the level). Every step raises the key, E overflowing into D; only D saturating (a plateau path
  // of a million pixels) would not, and then no parent is found (label 0) rather than a cycle.
  constexpr bool narrow = sizeof(T) <= 2;
  constexpr int level_shift = narrow ? 48 : 32, d_bits = narrow ? 20 : 22, r_bits = narrow ? 16 : 0,
                e_bits = narrow ? 12 : 10;
  constexpr int d_shift = r_bits + e_bits;
  constexpr std::uint64_t d_max = (std::uint64_t(1) << d_bits) - 1, e_max = (std::uint64_t(1) << e_bits) - 1;
  auto step = [=] KOKKOS_FUNCTION(std::uint64_t from, std::uint32_t level_q) -> std::uint64_t {
    if (from == unreached) return unreached;
    std::uint32_t const level_p = std::uint32_t(from >> level_shift);
    if (level_q > level_p) {
      std::uint64_t const rose_from = narrow ? std::uint64_t(level_p) << e_bits : 0;
      return std::uint64_t(level_q) << level_shift | rose_from;
    }
    std::uint64_t const d = (from >> d_shift) & d_max, e = from & e_max;
    std::uint64_t const level_and_rose = from & ~(((std::uint64_t(1) << d_bits) - 1) << d_shift) & ~e_max;
    if (level_q == level_p || e == e_max) return d == d_max ? from : level_and_rose | (d + 1) << d_shift;
    return from + 1;
  };
  int const count = eight ? 8 : 4;

  // Relaxation to the fixpoint, tile by tile in scratch memory (detail/relaxation.hpp).
  relax_to_fixpoint(
      space, "gigaseg::watershed::relax", key,
      KOKKOS_LAMBDA(index_t y, index_t x, std::uint64_t own, TileAccess<std::uint64_t> const& at) {
        if (masked && mask(y, x) == 0) return own;
        if (markers(y, x) != 0) return own;  // a marker (inside the mask)
        std::uint32_t const level_q = level_key(relief(y, x));
        std::uint64_t best = own;
        for (int k = 0; k < count; ++k) {
          index_t ny, nx;
          if (!in_image(k, y, x, ny, nx)) continue;
          std::uint64_t const c = step(at(ny, nx), level_q);
          best = c < best ? c : best;
        }
        return best;
      });

  // Parents: the neighbour whose step gives the pixel's key exactly, smallest (key, index) first.
  for_each_row_pixel(
      space, "gigaseg::watershed::parents", height, width, KOKKOS_LAMBDA(index_t y, index_t x) {
        std::uint64_t const own = key(y, x);
        if (own == unreached || parent(y * width + x) == y * width + x || (masked && mask(y, x) == 0)) return;
        std::uint32_t const level_q = level_key(relief(y, x));
        std::uint64_t best_key = unreached;
        index_t best = -1;
        for (int k = 0; k < count; ++k) {
          index_t ny, nx;
          if (!neighbour(k, y, x, ny, nx)) continue;
          std::uint64_t const kp = key(ny, nx);
          index_t const index = ny * width + nx;
          if (kp < own && step(kp, level_q) == own && (kp < best_key || (kp == best_key && index < best)))
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
        out(y, x) = root < 0 ? Label(0) : markers(root / width, root % width);
      });
}

}  // namespace gigaseg::detail
