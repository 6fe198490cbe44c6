#pragma once
// Portable Kokkos implementations of algorithms/threshold.hpp (argument checks and dispatch:
// algorithms/detail/threshold_impl.hpp).
#include "gigaseg/algorithms/detail/pixelwise.hpp"
#include "gigaseg/algorithms/threshold.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace gigaseg {
namespace detail {

struct alignas(16) Bytes16 {
  std::uint32_t word[4];
};

// 0xff in each byte of `word` greater than t (t in -1..255), 0 elsewhere.
KOKKOS_INLINE_FUNCTION std::uint32_t greater_bytes(std::uint32_t word, int t) {
  std::uint32_t mask = 0;
  for (int b = 0; b < 4; ++b)
    if (int((word >> (8 * b)) & 0xffu) > t) mask |= 0xffu << (8 * b);
  return mask;
}

// 8-bit threshold, one team per row; 16 bytes per thread where both images' rows are 16-byte
// aligned (always, for allocated images: rows start on 128-byte boundaries), bytes elsewhere.
template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void threshold_u8(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                  ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, double level) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  if (in.empty()) return;
  // pixel > level <=> pixel > floor(level) for integer pixels.
  int const t = level < 0 ? -1 : level >= 255 ? 255 : int(std::floor(level));
  bool const aligned = reinterpret_cast<std::uintptr_t>(in.data()) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(out.data()) % 16 == 0 && in.pitch_bytes() % 16 == 0 &&
                       out.pitch_bytes() % 16 == 0;
  index_t const width = in.width();
  if constexpr (Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) {
    // Host: rows across threads and a plain loop along the row, which the compiler turns into
    // 16-byte vector compares (the word trick below is for GPU lanes; on a CPU it compared byte by
    // byte: 0.58 of memcpy on the 2-core machine, against >= 0.7 asked).
    Kokkos::parallel_for("gigaseg::threshold_u8[Host]",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, in.height()),
                         [=](index_t y) {
                           // Locals, not the closure's members: byte stores may alias anything, so a loop bound read
                           // from the closure is not invariant and the loop would not vectorise.
                           std::uint8_t const* __restrict__ src = in.row(y);
                           std::uint8_t* __restrict__ dst = out.row(y);
                           index_t const n = width;
                           int const level_byte = t;
                           if (level_byte < 0) {
                             for (index_t x = 0; x < n; ++x) dst[x] = 255;
                           } else {
                             std::uint8_t const limit = std::uint8_t(level_byte);
                             for (index_t x = 0; x < n; ++x) dst[x] = src[x] > limit ? 255 : 0;
                           }
                         });
    return;
  }
  index_t const groups = aligned ? width / 16 : 0;
  Kokkos::parallel_for(
      "gigaseg::threshold_u8[Portable]", Policy(space, int(in.height()), Kokkos::AUTO),
      KOKKOS_LAMBDA(typename Policy::member_type const& member) {
        index_t const y = member.league_rank();
        auto const* src = reinterpret_cast<Bytes16 const*>(in.row(y));
        auto* dst = reinterpret_cast<Bytes16*>(out.row(y));
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, groups), [&](index_t g) {
          Bytes16 const v = src[g];
          Bytes16 r;
          for (int k = 0; k < 4; ++k) r.word[k] = greater_bytes(v.word[k], t);
          dst[g] = r;
        });
        std::uint8_t const* src_bytes = in.row(y);
        std::uint8_t* dst_bytes = out.row(y);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, groups * 16, width),
                             [&](index_t x) { dst_bytes[x] = int(src_bytes[x]) > t ? 255 : 0; });
      });
}

// The 8-bit mean of a B x B window as cv::boxFilter(CV_8U -> CV_8U) rounds it: to nearest. B is
// odd, so B^2 is odd and sum / B^2 is never exactly half-way: the integer form below is exact
// (checked against cv::boxFilter for B = 3..17 over every window of a random image).
struct BoxMean {
  std::uint32_t window;
  explicit BoxMean(int window_pixels) : window(std::uint32_t(window_pixels)) {}
  KOKKOS_INLINE_FUNCTION int operator()(std::uint32_t sum) const { return int((2 * sum + window) / (2 * window)); }
};

template <class ExecSpace, class T, class Unit = detail::unit_for<ExecSpace>>
void threshold_portable(ExecSpace const& space, ImageView<T const, typename ExecSpace::memory_space> const& in,
                        ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, double level) {
  if constexpr (std::is_same<T, std::uint8_t>::value) {
    detail::threshold_u8(space, in, out, level);
  } else {
    detail::for_each_row_pixel(
        space, "gigaseg::threshold[Portable]", in.height(), in.width(),
        KOKKOS_LAMBDA(index_t y, index_t x) { out(y, x) = double(in(y, x)) > level ? 255 : 0; });
  }
}

template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void threshold_local_mean_portable(ExecSpace const& space,
                                   ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                                   ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out,
                                   LocalMeanParams const& params) {
  using Memory = typename ExecSpace::memory_space;
  if (in.empty()) return;
  index_t const width = in.width(), height = in.height();
  int const radius = params.block / 2;
  // THRESH_BINARY: foreground where pixel - mean > -ceil(C).
  int const delta = int(std::ceil(params.c));
  detail::BoxMean const mean_of(params.block * params.block);
  // Separable: row sums of each window (border replicate = clamped coordinates), then column sums.
  ImageView<std::uint32_t, Memory> row_sums("gigaseg::threshold_local_mean::row_sums", width, height);
  detail::for_each_row_pixel(
      space, "gigaseg::threshold_local_mean::rows", height, width, KOKKOS_LAMBDA(index_t y, index_t x) {
        std::uint8_t const* row = in.row(y);
        std::uint32_t sum = 0;
        for (index_t k = x - radius; k <= x + radius; ++k) sum += row[k < 0 ? 0 : k >= width ? width - 1 : k];
        row_sums(y, x) = sum;
      });
  detail::for_each_row_pixel(
      space, "gigaseg::threshold_local_mean::columns", height, width, KOKKOS_LAMBDA(index_t y, index_t x) {
        std::uint32_t sum = 0;
        for (index_t k = y - radius; k <= y + radius; ++k) sum += row_sums(k < 0 ? 0 : k >= height ? height - 1 : k, x);
        out(y, x) = int(in(y, x)) - mean_of(sum) > -delta ? 255 : 0;
      });
}

}  // namespace detail
}  // namespace gigaseg
