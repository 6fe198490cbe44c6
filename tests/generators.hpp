#pragma once
// Synthetic test images that stress segmentation code: random masks of a given density, spirals
// (one long thin component), checkerboards (8-connectivity's worst case), noise. All host images,
// deterministic for a given seed.
#include "gigaseg/core/image.hpp"

#include <cstdint>

namespace gigaseg::test {

// 255 with probability `density`, else 0.
HostImage<std::uint8_t> random_mask(index_t width, index_t height, double density, std::uint64_t seed);
// A one-pixel-wide square spiral of 255 on 0, with a one-pixel gap between its turns.
HostImage<std::uint8_t> spiral(index_t width, index_t height);
// Squares of `cell` x `cell` pixels alternating 255 and 0, (0,0) foreground.
HostImage<std::uint8_t> checkerboard(index_t width, index_t height, index_t cell = 1);
// Uniform random values over the whole range of T.
HostImage<std::uint8_t> noise_u8(index_t width, index_t height, std::uint64_t seed);
HostImage<std::uint16_t> noise_u16(index_t width, index_t height, std::uint64_t seed);
HostImage<float> noise_f32(index_t width, index_t height, std::uint64_t seed);
HostImage<Rgb8> noise_rgb8(index_t width, index_t height, std::uint64_t seed);

// A parent image larger than width x height with a border of `margin` pixels filled with
// `sentinel`, and the roi of the requested size inside it: a pitched view whose gaps are pixels.
template <class T>
struct PaddedRoi {
  HostImage<T> parent;
  HostImage<T> roi;
};
template <class T>
PaddedRoi<T> padded_roi(index_t width, index_t height, index_t margin, T sentinel) {
  PaddedRoi<T> r;
  r.parent = HostImage<T>("test::padded_parent", width + 2 * margin + 1, height + 2 * margin);
  for (index_t y = 0; y < r.parent.height(); ++y)
    for (index_t x = 0; x < r.parent.width(); ++x) r.parent(y, x) = sentinel;
  r.roi = r.parent.roi(margin, margin, width, height);
  return r;
}

// Number of pixels that differ between two host images of the same size.
template <class T, class U>
index_t count_differences(HostImage<T> const& a, HostImage<U> const& b) {
  if (a.width() != b.width() || a.height() != b.height()) return -1;
  index_t n = 0;
  for (index_t y = 0; y < a.height(); ++y)
    for (index_t x = 0; x < a.width(); ++x) n += !(a(y, x) == b(y, x));
  return n;
}

}  // namespace gigaseg::test
