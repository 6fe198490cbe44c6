#pragma once
// Pixel type and colour conversions, pitch- and roi-aware.
//  - rgb_to_gray: BT.601 luma with OpenCV's fixed-point rule and rounding (COLOR_RGB2GRAY):
//    gray = (9798 R + 19235 G + 3735 B + 16384) >> 15, identical to cv::cvtColor
//    (OpenCV 4.x; checked bit for bit against its RGB2Gray in tests/test_pixel_ops.cpp).
//  - convert: out = saturate<U>(in * scale + offset), rounding to nearest (ties to even) for
//    integer outputs, as cv::Mat::convertTo. 8 -> 16 bit with scale 257 maps 255 to 65535.
//  - pack_mask / unpack_mask: a mask (nonzero or not) as one bit a pixel and back, a 32nd of a
//    32-bit image's memory (the tile engine keeps its masks so between passes).
#include "gigaseg/algorithms/detail/pixelwise.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/image.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace gigaseg {

struct ConvertParams {
  double scale = 1.0;
  double offset = 0.0;
};

namespace detail {
inline void require_same_size(char const* what, index_t iw, index_t ih, index_t ow, index_t oh) {
  GIGASEG_REQUIRE(iw == ow && ih == oh, ErrorKind::input, what,
                  "output is " + std::to_string(ow) + "x" + std::to_string(oh) + ", input " + std::to_string(iw) + "x" +
                      std::to_string(ih));
}

template <class U>
KOKKOS_INLINE_FUNCTION U saturate(double v) {
  if constexpr (std::is_floating_point<U>::value) {
    return U(v);
  } else {
    double const r = ::rint(v);    // round half to even, like cvRound
    if (!(r >= 0.0)) return U(0);  // also NaN
    double const top = double(std::numeric_limits<U>::max());
    return r >= top ? std::numeric_limits<U>::max() : U(r);
  }
}

KOKKOS_INLINE_FUNCTION std::uint8_t luma_bt601(Rgb8 p) {
  return std::uint8_t((9798u * p.r + 19235u * p.g + 3735u * p.b + 16384u) >> 15);
}
}  // namespace detail

// The tags of rgb_to_gray(), convert(), pack_mask() and unpack_mask() in the dispatch
// (algorithms/detail/dispatch.hpp); no backend has a tuned path for any of them.
struct RgbToGrayAlgorithm {
  static constexpr char const* name = "rgb_to_gray";
};
struct ConvertAlgorithm {
  static constexpr char const* name = "convert";
};
struct PackMaskAlgorithm {
  static constexpr char const* name = "pack_mask";
};
struct UnpackMaskAlgorithm {
  static constexpr char const* name = "unpack_mask";
};

template <class ExecSpace>
void rgb_to_gray(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& in,
                 ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out);

// T and U: 8-, 16- and 32-bit unsigned and float.
template <class ExecSpace, class T, class U>
void convert(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& in,
             ImageView<U, typename ExecSpace::memory_space> const& out, ConvertParams const& params = {});

// The width of the packed mask of an image `width` pixels wide: 32-bit words a row.
constexpr index_t packed_mask_width(index_t width) noexcept { return (width + 31) / 32; }

// bits(y, k), bit i = in(y, 32 k + i) != 0; the bits past the image's last column are 0. `bits` is
// packed_mask_width(width) x height. T: 8-, 16- and 32-bit unsigned.
template <class ExecSpace, class T>
void pack_mask(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& in,
               ImageView<std::uint32_t, typename ExecSpace::memory_space> const& bits);

// out(y, x) = `value` where bit x % 32 of bits(y, x / 32) is set, else 0: the inverse of
// pack_mask for a mask of 0 and `value`.
template <class ExecSpace>
void unpack_mask(ExecSpace const& space, ImageView<std::uint32_t const, typename ExecSpace::memory_space> const& bits,
                 ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, std::uint8_t value = 255);

// rgb_to_gray(), convert(), pack_mask() and unpack_mask() are defined in the library
// (algorithms/detail/convert_impl.hpp) for every enabled execution space (backends/instantiate/convert.cpp); the
// helpers above stay inline, for the kernels of other algorithms. A non-const image, the same call.
template <class ExecSpace, class T, class U, if_mutable<T> = 0>
void convert(ExecSpace const& space, ImageView<T, typename ExecSpace::memory_space> const& in,
             ImageView<U, typename ExecSpace::memory_space> const& out, ConvertParams const& params = {}) {
  convert(space, ImageView<T const, typename ExecSpace::memory_space>(in), out, params);
}

}  // namespace gigaseg
