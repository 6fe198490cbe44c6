#pragma once
// Implementation of algorithms/convert.hpp (instantiated by backends/instantiate/convert.cpp):
// per-pixel kernels through the dispatch (no backend has a tuned conversion).
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/dispatch.hpp"
#include "gigaseg/algorithms/detail/pixelwise.hpp"

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace gigaseg {
namespace detail {

template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void rgb_to_gray_portable(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& in,
                          ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out) {
  detail::for_each_row_pixel(
      space, "gigaseg::rgb_to_gray", in.height(), in.width(),
      KOKKOS_LAMBDA(index_t y, index_t x) { out(y, x) = detail::luma_bt601(in(y, x)); });
}

template <class ExecSpace, class T, class U, class Unit = detail::unit_for<ExecSpace>>
void convert_portable(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& in,
                      ImageView<U, typename ExecSpace::memory_space> const& out, ConvertParams const& params) {
  double const scale = params.scale, offset = params.offset;
  detail::for_each_row_pixel(
      space, "gigaseg::convert", in.height(), in.width(),
      KOKKOS_LAMBDA(index_t y, index_t x) { out(y, x) = detail::saturate<U>(double(in(y, x)) * scale + offset); });
}

template <class ExecSpace, class T, class Unit = detail::unit_for<ExecSpace>>
void pack_mask_portable(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& in,
                        ImageView<std::uint32_t, typename ExecSpace::memory_space> const& bits) {
  index_t const width = in.width();
  detail::for_each_row_pixel(
      space, "gigaseg::pack_mask", bits.height(), bits.width(), KOKKOS_LAMBDA(index_t y, index_t k) {
        index_t const x0 = 32 * k, n = width - x0 < 32 ? width - x0 : 32;
        std::uint32_t word = 0;
        for (index_t i = 0; i < n; ++i) word |= std::uint32_t(in(y, x0 + i) != 0) << i;
        bits(y, k) = word;
      });
}

template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void unpack_mask_portable(ExecSpace const& space,
                          ImageView<std::uint32_t const, typename ExecSpace::memory_space> const& bits,
                          ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, std::uint8_t value) {
  detail::for_each_row_pixel(
      space, "gigaseg::unpack_mask", out.height(), out.width(), KOKKOS_LAMBDA(index_t y, index_t x) {
        out(y, x) = (bits(y, x >> 5) >> (x & 31)) & 1u ? value : std::uint8_t(0);
      });
}

}  // namespace detail

template <class ExecSpace, class T>
void pack_mask(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& in,
               ImageView<std::uint32_t, typename ExecSpace::memory_space> const& bits) {
  static_assert(std::is_integral<T>::value && std::is_unsigned<T>::value, "pack_mask takes unsigned integer images");
  detail::require_same_size("pack_mask", packed_mask_width(in.width()), in.height(), bits.width(), bits.height());
  detail::dispatch<PackMaskAlgorithm>(space, Path::automatic, [&] { detail::pack_mask_portable(space, in, bits); });
}

template <class ExecSpace>
void unpack_mask(ExecSpace const& space, ImageView<std::uint32_t const, typename ExecSpace::memory_space> const& bits,
                 ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, std::uint8_t value) {
  detail::require_same_size("unpack_mask", bits.width(), bits.height(), packed_mask_width(out.width()), out.height());
  detail::dispatch<UnpackMaskAlgorithm>(space, Path::automatic,
                                        [&] { detail::unpack_mask_portable(space, bits, out, value); });
}

template <class ExecSpace>
void rgb_to_gray(ExecSpace const& space, ImageView<Rgb8 const, typename ExecSpace::memory_space> const& in,
                 ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out) {
  detail::require_same_size("rgb_to_gray", in.width(), in.height(), out.width(), out.height());
  detail::dispatch<RgbToGrayAlgorithm>(space, Path::automatic, [&] { detail::rgb_to_gray_portable(space, in, out); });
}

template <class ExecSpace, class T, class U>
void convert(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& in,
             ImageView<U, typename ExecSpace::memory_space> const& out, ConvertParams const& params) {
  static_assert(std::is_arithmetic<T>::value && std::is_arithmetic<U>::value, "convert takes single-channel images");
  detail::require_same_size("convert", in.width(), in.height(), out.width(), out.height());
  detail::dispatch<ConvertAlgorithm>(space, Path::automatic, [&] { detail::convert_portable(space, in, out, params); });
}

}  // namespace gigaseg
