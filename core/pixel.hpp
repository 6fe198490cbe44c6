#pragma once
// The pixel types gigaseg handles, and a run-time tag for each so that files and the CLI can say
// what an image holds before the code is specialised on it.
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace gigaseg {

// Three interleaved 8-bit channels, R first (as PNG, TIFF and PPM store them).
struct Rgb8 {
  std::uint8_t r, g, b;
  KOKKOS_INLINE_FUNCTION friend bool operator==(Rgb8 a, Rgb8 b) { return a.r == b.r && a.g == b.g && a.b == b.b; }
  KOKKOS_INLINE_FUNCTION friend bool operator!=(Rgb8 a, Rgb8 b) { return !(a == b); }
};
static_assert(sizeof(Rgb8) == 3 && alignof(Rgb8) == 1, "Rgb8 must be three packed bytes");

enum class PixelType { u8, u16, u32, f32, rgb8 };

template <class T>
struct PixelTraits;
template <>
struct PixelTraits<std::uint8_t> {
  static constexpr PixelType type = PixelType::u8;
  static constexpr int channels = 1;
};
template <>
struct PixelTraits<std::uint16_t> {
  static constexpr PixelType type = PixelType::u16;
  static constexpr int channels = 1;
};
template <>
struct PixelTraits<std::uint32_t> {  // label images
  static constexpr PixelType type = PixelType::u32;
  static constexpr int channels = 1;
};
template <>
struct PixelTraits<float> {
  static constexpr PixelType type = PixelType::f32;
  static constexpr int channels = 1;
};
template <>
struct PixelTraits<Rgb8> {
  static constexpr PixelType type = PixelType::rgb8;
  static constexpr int channels = 3;
};
template <class T>
struct PixelTraits<T const> : PixelTraits<T> {};

constexpr char const* to_string(PixelType type) noexcept {
  switch (type) {
    case PixelType::u8: return "u8";
    case PixelType::u16: return "u16";
    case PixelType::u32: return "u32";
    case PixelType::f32: return "f32";
    case PixelType::rgb8: return "rgb8";
  }
  return "?";
}

constexpr int bytes_per_pixel(PixelType type) noexcept {
  switch (type) {
    case PixelType::u8: return 1;
    case PixelType::u16: return 2;
    case PixelType::u32: return 4;
    case PixelType::f32: return 4;
    case PixelType::rgb8: return 3;
  }
  return 0;
}

}  // namespace gigaseg
