#pragma once
// The watershed's tie rule as arithmetic on 64-bit keys, shared by every path (the parallel
// relaxation of detail/watershed_portable.hpp and the priority flood of algorithms/watershed.cpp),
// so that they compute the same labels bit for bit.
//
// A pixel's key orders it in the flood: the flood reaches pixels in increasing key order, and a
// pixel takes the label of the neighbour its key came from. Keys, compared as integers:
//   8/16-bit reliefs: level L (16) | D (20) | R (16) | E (12);  float reliefs: L (32) | D (22) | E (10).
// L is the flooding level (the lowest level at which water from a marker reaches the pixel: the
// minimax of relief values along a path); D counts the steps taken at level L since the path rose
// to it (a plateau is flooded from its rim inwards, nearer pixels first); R is the level the path
// rose from (water arriving from a lower level came first); E counts the steps onto pixels below
// L since the last step at L (pits are filled at once, before the level goes on).
//
// A step from key `from` onto a pixel of relief level q gives:
//   q > L  (rising):     (q, 0, L, 0)
//   q == L (plateau):    (L, D + 1, R, 0), or (L, all bits set) once D + 1 reaches D_max
//   q < L  (descending): from + 1, an overflowing E carrying into R and D, or `from` itself where
//                        every bit below L is set (float keys have no R: rising gives (q, 0, 0)).
// Every step is monotone in `from` (a larger key never steps to a smaller one), so the smallest
// key of every pixel, over all paths from the markers, is unique: the parallel relaxation (any
// order of updates) and the priority flood (pixels in key order) both find it. Steps never lower
// a key; they raise it except where D or every bit below L is saturated (a plateau path of 2^20
// pixels, 2^22 for floats), and a pixel whose key equals its best neighbour's has no parent (it
// stays 0, not a cycle).
//
// A pixel's parent is, among its neighbours (inside the image and the mask) with a smaller key
// whose step gives exactly its key, the one of smallest (key, raster index); its label is its
// parent's. Where relief values are distinct, keys order pixels as a flood ordered by relief value
// does, so the labels equal skimage.segmentation.watershed's.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gigaseg::detail {

// An unsigned 32-bit key with the order of the relief values (floats: IEEE order, no NaN).
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

template <class T>
struct WatershedKey {
  static constexpr bool narrow = sizeof(T) <= 2;
  static constexpr int level_shift = narrow ? 48 : 32, d_bits = narrow ? 20 : 22, r_bits = narrow ? 16 : 0,
                       e_bits = narrow ? 12 : 10;
  static constexpr int d_shift = r_bits + e_bits;
  static constexpr std::uint64_t unreached = ~std::uint64_t(0);
  static constexpr std::uint64_t below_level = (std::uint64_t(1) << level_shift) - 1;
  static constexpr std::uint64_t d_max = (std::uint64_t(1) << d_bits) - 1;
  static constexpr std::uint64_t d_field = d_max << d_shift;
  static constexpr std::uint64_t e_field = (std::uint64_t(1) << e_bits) - 1;

  // A marker's key: its own level, nothing else.
  KOKKOS_INLINE_FUNCTION static std::uint64_t marker(std::uint32_t level) {
    return std::uint64_t(level) << level_shift;
  }
  KOKKOS_INLINE_FUNCTION static std::uint32_t level_of(std::uint64_t key) { return std::uint32_t(key >> level_shift); }
  KOKKOS_INLINE_FUNCTION static std::uint64_t step(std::uint64_t from, std::uint32_t level_q) {
    if (from == unreached) return unreached;
    std::uint32_t const level_p = level_of(from);
    if (level_q > level_p)
      return std::uint64_t(level_q) << level_shift | (narrow ? std::uint64_t(level_p) << e_bits : 0);
    if (level_q == level_p) {
      std::uint64_t const d = (from & d_field) >> d_shift;
      if (d + 1 >= d_max) return from | below_level;  // saturated: the level's last key
      return (from & ~d_field & ~e_field) | (d + 1) << d_shift;
    }
    return (from & below_level) == below_level ? from : from + 1;
  }
};

}  // namespace gigaseg::detail
