#pragma once
// The portable implementation of algorithms/morphology.hpp (dispatched by
// algorithms/detail/morphology_impl.hpp).
//
//  - Any element: one tiled pass (detail/stencil.hpp) over the element's row spans, the border
//    filled with the neutral value (255 for erosion, 0 for dilation), which is OpenCV's default.
//  - Rectangles: separable. Up to `van_herk_from - 1` wide, a tiled row pass and a tiled column
//    pass; from `van_herk_from` on, van Herk/Gil-Werman running minima along rows and columns:
//    each line is cut into blocks of K, a suffix minimum within each block and a prefix minimum
//    within the next give every window in two reads and three min operations per pixel, whatever
//    K is.
//  - Tuned on CUDA (backends/cuda/filters_cuda.cpp): rectangles 3, 5 and 7 in one fused pass;
//    9 .. 191 as a van Herk column pass and a doubling row pass, coalesced, four pixels a word.
//  - Tuned on OpenMP (backends/openmp/filters_openmp.cpp): every element as vectorised row loops
//    over a ring of padded rows per thread; rectangles separably (across rows by van Herk from 5),
//    up to 255 (wider: the portable van Herk passes).
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/host_arrays.hpp"
#include "gigaseg/algorithms/detail/pixelwise.hpp"
#include "gigaseg/algorithms/detail/stencil.hpp"
#include "gigaseg/algorithms/morphology_types.hpp"
#include "gigaseg/core/error.hpp"
#include "gigaseg/core/translation_unit.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace gigaseg::detail {

KOKKOS_FORCEINLINE_FUNCTION int min_or_max(int a, int b, bool minimum) {
  return minimum ? (b < a ? b : a) : (b > a ? b : a);
}

// One erosion (minimum) or dilation (maximum) over an element given as row spans in the backend's
// memory: spans(2 i), spans(2 i + 1) = the first and last column offsets of row i, rows centred.
template <class ExecSpace, class Spans, class Unit = detail::unit_for<ExecSpace>>
void min_max_filter(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                    ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, Spans const& spans, int rows,
                    int max_reach, bool minimum) {
  int const centre = rows / 2;
  std::uint8_t const neutral = minimum ? 255 : 0;
  constexpr bool on_host = runs_on_host<ExecSpace>();
  tiled_stencil<ExecSpace, std::uint8_t>(
      space, minimum ? "gigaseg::morphology::erode" : "gigaseg::morphology::dilate", in, max_reach, centre,
      Border::constant, neutral,
      KOKKOS_LAMBDA(ScratchTile<std::uint8_t> const& tile, int ly, int lx0, int lx1, index_t y, index_t x0) {
        std::uint8_t* const row = out.row(y) + x0 - lx0;
        if (on_host) {  // a constant; not `if constexpr`, which nvcc refuses in extended lambdas
          // Offset-major so that the loop along the tile row vectorises.
          std::uint8_t best[TileShape<ExecSpace>::width];
          for (int lx = lx0; lx < lx1; ++lx) best[lx] = neutral;
          for (int i = 0; i < rows; ++i) {
            std::uint8_t const* src = tile.row(ly + i - centre);
            for (int dx = spans(2 * i); dx <= spans(2 * i + 1); ++dx)
              if (minimum)
                for (int lx = lx0; lx < lx1; ++lx) best[lx] = src[lx + dx] < best[lx] ? src[lx + dx] : best[lx];
              else
                for (int lx = lx0; lx < lx1; ++lx) best[lx] = src[lx + dx] > best[lx] ? src[lx + dx] : best[lx];
          }
          for (int lx = lx0; lx < lx1; ++lx) row[lx] = best[lx];
        } else {
          for (int lx = lx0; lx < lx1; ++lx) {
            int best = neutral;
            for (int i = 0; i < rows; ++i) {
              std::uint8_t const* src = tile.row(ly + i - centre) + lx;
              for (int dx = spans(2 * i); dx <= spans(2 * i + 1); ++dx) best = min_or_max(best, src[dx], minimum);
            }
            row[lx] = std::uint8_t(best);
          }
        }
      });
}

// Running minimum/maximum of a window of K = 2 r + 1 along one line of n pixels (van Herk /
// Gil-Werman) for the window starts s in block b (s = b K - r .. b K - r + K - 1): the suffix
// minima of block b are written to the outputs, then the prefix minima of block b + 1 are folded
// in. `get(p)` reads position p (0 <= p < n), `put(p, v)` / `at(p)` write and read the output.
template <class Get, class Put, class At>
KOKKOS_INLINE_FUNCTION void van_herk_block(Get const& get, Put const& put, At const& at, index_t n, int K, index_t b,
                                           bool minimum) {
  int const r = K / 2, neutral = minimum ? 255 : 0;
  index_t const first = b * K - r, last = first + K - 1;  // window starts of this block
  int h = neutral;
  for (index_t s = last; s >= first; --s) {
    if (s >= 0 && s < n) h = min_or_max(h, get(s), minimum);
    index_t const p = s + r;
    if (p >= 0 && p < n) put(p, h);
  }
  int g = neutral;
  for (index_t t = last + 1; t < last + K; ++t) {
    if (t >= 0 && t < n) g = min_or_max(g, get(t), minimum);
    index_t const p = t - K + 1 + r;
    if (p >= 0 && p < n) put(p, min_or_max(at(p), g, minimum));
  }
}

template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void van_herk_rows(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                   ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, int K, bool minimum) {
  index_t const width = in.width(), height = in.height();
  index_t const blocks = (width + K - 1) / K;
  if constexpr (runs_on_host<ExecSpace>()) {
    Kokkos::parallel_for(
        "gigaseg::morphology::van_herk_rows", Kokkos::RangePolicy<ExecSpace>(space, 0, height),
        KOKKOS_LAMBDA(index_t y) {
          std::uint8_t const* src = in.row(y);
          std::uint8_t* dst = out.row(y);
          auto get = [&](index_t p) { return int(src[p]); };
          auto put = [&](index_t p, int v) { dst[p] = std::uint8_t(v); };
          auto at = [&](index_t p) { return int(dst[p]); };
          for (index_t b = 0; b < blocks; ++b) van_herk_block(get, put, at, width, K, b, minimum);
        });
  } else {
    Kokkos::parallel_for(
        "gigaseg::morphology::van_herk_rows", Kokkos::RangePolicy<ExecSpace>(space, 0, blocks * height),
        KOKKOS_LAMBDA(index_t i) {
          index_t const y = i % height, b = i / height;
          std::uint8_t const* src = in.row(y);
          std::uint8_t* dst = out.row(y);
          auto get = [&](index_t p) { return int(src[p]); };
          auto put = [&](index_t p, int v) { dst[p] = std::uint8_t(v); };
          auto at = [&](index_t p) { return int(dst[p]); };
          van_herk_block(get, put, at, width, K, b, minimum);
        });
  }
}

template <class ExecSpace, class Unit = detail::unit_for<ExecSpace>>
void van_herk_columns(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                      ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, int K, bool minimum) {
  index_t const width = in.width(), height = in.height();
  index_t const blocks = (height + K - 1) / K;
  if constexpr (runs_on_host<ExecSpace>()) {
    // Whole rows at a time, so that every step is a vectorised row operation; `acc` is a row of
    // team scratch.
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    std::size_t const bytes = (std::size_t(width) + 15) / 16 * 16;  // Kokkos aligns scratch requests
    Kokkos::parallel_for(
        "gigaseg::morphology::van_herk_columns",
        Policy(space, int(blocks), 1).set_scratch_size(1, Kokkos::PerTeam(bytes)),
        KOKKOS_LAMBDA(typename Policy::member_type const& member) {
          std::uint8_t* acc = static_cast<std::uint8_t*>(member.team_scratch(1).get_shmem(bytes));
          index_t const b = member.league_rank();
          int const r = K / 2;
          std::uint8_t const neutral = minimum ? 255 : 0;
          index_t const first = b * K - r, last = first + K - 1;
          auto fold = [&](std::uint8_t* a, std::uint8_t const* src) {
            if (minimum)
              for (index_t x = 0; x < width; ++x) a[x] = src[x] < a[x] ? src[x] : a[x];
            else
              for (index_t x = 0; x < width; ++x) a[x] = src[x] > a[x] ? src[x] : a[x];
          };
          for (index_t x = 0; x < width; ++x) acc[x] = neutral;
          for (index_t s = last; s >= first; --s) {
            if (s >= 0 && s < height) fold(acc, in.row(s));
            if (s + r >= 0 && s + r < height)
              for (index_t x = 0; x < width; ++x) out(s + r, x) = acc[x];
          }
          for (index_t x = 0; x < width; ++x) acc[x] = neutral;
          for (index_t t = last + 1; t < last + K; ++t) {
            if (t >= 0 && t < height) fold(acc, in.row(t));
            index_t const p = t - K + 1 + r;
            if (p >= 0 && p < height) fold(out.row(p), acc);
          }
        });
  } else {
    Kokkos::parallel_for(
        "gigaseg::morphology::van_herk_columns", Kokkos::RangePolicy<ExecSpace>(space, 0, blocks * width),
        KOKKOS_LAMBDA(index_t i) {
          index_t const x = i % width, b = i / width;
          auto get = [&](index_t p) { return int(in(p, x)); };
          auto put = [&](index_t p, int v) { out(p, x) = std::uint8_t(v); };
          auto at = [&](index_t p) { return int(out(p, x)); };
          van_herk_block(get, put, at, height, K, b, minimum);
        });
  }
}

// The spans (first[i], last[i]) of an element's rows, interleaved, in the backend's memory.
template <class ExecSpace>
Kokkos::View<int*, typename ExecSpace::memory_space> upload_spans(ExecSpace const& space, std::vector<int> const& first,
                                                                  std::vector<int> const& last) {
  Kokkos::View<int*, typename ExecSpace::memory_space> spans("gigaseg::morphology::spans", 2 * first.size());
  auto host =
      host_array<int, typename decltype(spans)::array_layout>("gigaseg::morphology::spans[host]", spans.extent(0));
  for (std::size_t i = 0; i < first.size(); ++i) host(2 * i) = first[i], host(2 * i + 1) = last[i];
  Kokkos::deep_copy(space, spans, host);
  space.fence();  // `host` is released on return
  return spans;
}

// Rectangles at least this wide take the portable van Herk/Gil-Werman passes (docs/performance.md):
// below it the tiled passes' K reads per pixel are cheaper. On hosts, 41 was measured as the
// crossover (4096^2: 31x31 tiled 162 ms, 41x41 van Herk 85 ms). On the H200 the portable van Herk
// passes (a thread per line block, uncoalesced along rows) took 20-23 ms at 20000^2 for every K
// from 9 to 31, against 8.1 ms for the 7x7 tiled passes; the tuned CUDA passes replace both.
template <class ExecSpace>
constexpr int van_herk_from() {
  return runs_on_host<ExecSpace>() ? 41 : 9;
}

// Erosion or dilation with the whole element, portably: rectangles separably (van Herk from
// van_herk_from() on), other elements in one tiled pass over their row spans.
template <class ExecSpace>
void erode_or_dilate_portable(ExecSpace const& space,
                              ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                              ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out,
                              StructuringShape shape, int size, bool minimum) {
  using Memory = typename ExecSpace::memory_space;
  if (shape == StructuringShape::rect && size > 1) {
    ImageView<std::uint8_t, Memory> rows_done("gigaseg::morphology::rows", in.width(), in.height());
    if (size >= van_herk_from<ExecSpace>()) {
      van_herk_rows(space, in, rows_done, size, minimum);
      van_herk_columns(space, ImageView<std::uint8_t const, Memory>(rows_done), out, size, minimum);
      return;
    }
    auto const row_span = upload_spans(space, {-(size / 2)}, {size / 2});
    auto const column_spans =
        upload_spans(space, std::vector<int>(std::size_t(size), 0), std::vector<int>(std::size_t(size), 0));
    min_max_filter(space, in, rows_done, row_span, 1, size / 2, minimum);
    min_max_filter(space, ImageView<std::uint8_t const, Memory>(rows_done), out, column_spans, size, 0, minimum);
    return;
  }
  StructuringElement const element = structuring_element(shape, size);
  auto const spans = upload_spans(space, element.first, element.last);
  min_max_filter(space, in, out, spans, element.size, element.size / 2, minimum);
}

}  // namespace gigaseg::detail
