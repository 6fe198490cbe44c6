#pragma once
// Portable implementation of algorithms/distance.hpp (Meijster, Roerdink and Hesselink 2000): the
// two passes, shared by the dispatch (algorithms/detail/distance_impl.hpp) and the tuned CUDA path
// (backends/cuda/distance_cuda.cpp, which redoes some rows with the envelope pass).
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/stencil.hpp"
#include "gigaseg/algorithms/distance_types.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

namespace gigaseg::detail {

// Pass 1: for each column, the row of the nearest zero pixel in that column (-1: none), the one
// above winning ties: a scan down (nearest above) and a scan up (nearest below). A team takes a
// block of columns and walks the rows, its threads (GPU) or its vectorised inner loop (host) along
// the block's columns, so every step reads a contiguous piece of a row. Returns whether the image
// has any zero pixel.
//
// A band of rows of a larger image (`band` not empty, DistanceBand): the rows are absolute (the
// band's first row is band.y), and the nearest zero pixels above and below the band continue each
// column's scans. Returns whether any column has a zero pixel, in the band or beyond it.
template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
bool nearest_zero_rows(ExecSpace const& space,
                       ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                       ImageView<std::int32_t, typename ExecSpace::memory_space> const& rows,
                       DistanceBand<typename ExecSpace::memory_space> const& band = {}) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  constexpr bool on_host = runs_on_host<ExecSpace>();
  constexpr int block = on_host ? 512 : 128;
  index_t const width = in.width(), height = in.height();
  int const blocks = int((width + block - 1) / block);
  bool const carried = !band.empty();
  std::int32_t const y0 = std::int32_t(band.y);
  Kokkos::View<std::int32_t const*, typename ExecSpace::memory_space> const above_band = band.zero_above,
                                                                            below_band = band.zero_below;
  int found = 0;
  Kokkos::parallel_reduce(
      "gigaseg::distance::columns", Policy(space, blocks, on_host ? 1 : block),
      KOKKOS_LAMBDA(Member const& member, int& any) {
        index_t const x0 = index_t(member.league_rank()) * block;
        index_t const x1 = x0 + block < width ? x0 + block : width;
        int local = 0;
        auto columns = Kokkos::TeamThreadRange(member, x0, x1);
        for (index_t y = 0; y < height; ++y) {
          std::uint8_t const* const src = in.row(y);
          std::int32_t* const dst = rows.row(y);
          std::int32_t const* const prev = y > 0 ? rows.row(y - 1) : nullptr;
          Kokkos::parallel_for(columns, [&](index_t x) {
            dst[x] = src[x] == 0 ? y0 + std::int32_t(y) : prev ? prev[x] : carried ? above_band(x) : -1;
          });
        }
        for (index_t y = height - 1; y >= 0; --y) {
          std::uint8_t const* const src = in.row(y);
          std::int32_t* const dst = rows.row(y);
          std::int32_t const* const next = y + 1 < height ? rows.row(y + 1) : nullptr;
          Kokkos::parallel_for(columns, [&](index_t x) {
            // next[x] is already final: the nearest zero pixel at or below row y + 1, or above it.
            std::int32_t const at = y0 + std::int32_t(y);
            std::int32_t const above = dst[x];
            std::int32_t const below = src[x] == 0 ? at
                                       : next      ? (next[x] > at ? next[x] : -1)
                                       : carried   ? below_band(x)
                                                   : -1;
            dst[x] = above < 0 ? below : below < 0 ? above : (at - above <= below - at ? above : below);
          });
        }
        // A column has a zero pixel iff its top row's nearest one exists.
        Kokkos::parallel_reduce(
            columns, [&](index_t x, int& a) { a = rows(0, x) >= 0 ? 1 : a; }, Kokkos::Max<int>(local));
        Kokkos::single(Kokkos::PerTeam(member), [&] { any = local > any ? local : any; });
      },
      Kokkos::Max<int>(found));
  return found > 0;  // Max starts from the lowest int
}

// floor(a / b) for b > 0.
KOKKOS_INLINE_FUNCTION std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// Pass 2: per row, the lower envelope of f_i(x) = (x - i)^2 + g(i)^2 over columns i, where g(i) is
// the vertical distance to column i's nearest zero pixel (`far` when it has none, larger than any
// real distance). A team (one thread) per row; its envelope (sites s, region starts t) lives in
// team scratch. Where several columns give the minimum, the leftmost one wins (a later site must
// be strictly better to take over). `only` (if not empty): just the rows y with only(y) != 0.
// `rows` of a band of a larger image (nearest_zero_rows with a band) hold absolute rows: the band's
// first row is row band_y of an image_height rows tall (0: the height of `rows`).
template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void envelope_rows(ExecSpace const& space, ImageView<std::int32_t const, typename ExecSpace::memory_space> const& rows,
                   ImageView<float, typename ExecSpace::memory_space> const& distance,
                   ImageView<std::int64_t, typename ExecSpace::memory_space> const& squared,
                   ImageView<index_t, typename ExecSpace::memory_space> const& nearest,
                   Kokkos::View<int const*, typename ExecSpace::memory_space> const& only = {}, index_t band_y = 0,
                   index_t image_height = 0) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  index_t const width = rows.width(), height = rows.height();
  std::int64_t const far = width + (image_height > 0 ? image_height : height);
  bool const want_squared = !squared.empty(), want_nearest = !nearest.empty();
  bool const subset = only.extent(0) > 0;
  // Work arrays (squares, sites, region starts: 16 bytes a column): host teams take them from
  // team scratch; GPUs from a global buffer, a batch of rows at a time (team scratch there is
  // reserved for every resident team at once: wide rows would ask for hundreds of GiB).
  constexpr bool on_host = runs_on_host<ExecSpace>();
  std::size_t const bytes = std::size_t(width) * (2 * sizeof(std::int32_t) + sizeof(std::int64_t));
  index_t const batch =
      on_host ? height : std::max<index_t>(1, std::min<index_t>(height, index_t((std::size_t(512) << 20) / bytes)));
  Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> work(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "gigaseg::distance::envelope_work"),
      on_host ? 0 : std::size_t(batch) * 2 * std::size_t(width));
  for (index_t y0 = 0; y0 < height; y0 += batch) {
    index_t const rows_here = std::min<index_t>(batch, height - y0);
    Policy policy(space, int(rows_here), 1);
    if (on_host) policy.set_scratch_size(1, Kokkos::PerTeam(bytes));
    Kokkos::parallel_for(
        "gigaseg::distance::rows", policy, KOKKOS_LAMBDA(Member const& member) {
          index_t const y = y0 + member.league_rank();
          if (subset && only(y) == 0) return;
          auto* const squares = on_host ? static_cast<std::int64_t*>(member.team_scratch(1).get_shmem(bytes))
                                        : work.data() + std::size_t(member.league_rank()) * 2 * std::size_t(width);
          auto* const s = reinterpret_cast<std::int32_t*>(squares + width);
          std::int32_t* const t = s + width;
          std::int32_t const* const row = rows.row(y);
          index_t const at = band_y + y;  // the row in the image
          for (index_t i = 0; i < width; ++i) {
            std::int64_t const g = row[i] < 0 ? far : (row[i] > at ? row[i] - at : at - row[i]);
            squares[i] = g * g;
          }
          auto g2 = [&](index_t i) { return squares[i]; };
          auto f = [&](index_t x, index_t i) { return (x - i) * (x - i) + g2(i); };
          index_t q = 0;
          s[0] = 0;
          t[0] = 0;
          for (index_t u = 1; u < width; ++u) {
            while (q >= 0 && f(t[q], s[q]) > f(t[q], u)) --q;
            if (q < 0) {
              q = 0;
              s[0] = std::int32_t(u);
            } else {
              index_t const i = s[q];
              index_t const w = 1 + floor_div(u * u - i * i + g2(u) - g2(i), 2 * (u - i));
              if (w < width) {
                ++q;
                s[q] = std::int32_t(u);
                t[q] = std::int32_t(w);
              }
            }
          }
          for (index_t u = width - 1; u >= 0; --u) {
            index_t const i = s[q];
            std::int64_t const d2 = f(u, i);
            distance(y, u) = float(sqrt(double(d2)));
            if (want_squared) squared(y, u) = d2;
            if (want_nearest) nearest(y, u) = index_t(row[i]) * width + i;
            if (u == t[q]) --q;
          }
        });
  }
}

}  // namespace gigaseg::detail
