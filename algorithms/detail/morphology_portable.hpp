#pragma once
// Portable implementation of algorithms/morphology.hpp.
#include "algorithms/convert.hpp"
#include "algorithms/detail/pixelwise.hpp"
#include "core/error.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace gigaseg::detail {

// One erosion (minimum) or dilation (maximum) over an element given as row spans in the backend's
// memory: spans(2 i), spans(2 i + 1) = the first and last column offsets of row i, rows centred.
template <class ExecSpace, class Spans>
void min_max_filter(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                    ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, Spans const& spans, int rows,
                    bool minimum) {
  index_t const width = in.width(), height = in.height();
  int const centre = rows / 2;
  for_each_row_pixel(space, minimum ? "gigaseg::morphology::erode" : "gigaseg::morphology::dilate", height, width,
                     KOKKOS_LAMBDA(index_t y, index_t x) {
                       int best = minimum ? 255 : 0;
                       for (int i = 0; i < rows; ++i) {
                         int const first = spans(2 * i), last = spans(2 * i + 1);
                         index_t const yy = y + i - centre;
                         if (first > last || yy < 0 || yy >= height) continue;
                         index_t const x0 = x + first < 0 ? 0 : x + first;
                         index_t const x1 = x + last >= width ? width - 1 : x + last;
                         std::uint8_t const* row = in.row(yy);
                         for (index_t xx = x0; xx <= x1; ++xx) {
                           int const v = row[xx];
                           best = minimum ? (v < best ? v : best) : (v > best ? v : best);
                         }
                       }
                       out(y, x) = std::uint8_t(best);
                     });
}

// Erosion or dilation with the whole element: a rectangle as a row pass and a column pass, any
// other shape in one pass over its spans.
template <class ExecSpace>
void erode_or_dilate(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                     ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, StructuringShape shape,
                     int size, bool minimum) {
  using Memory = typename ExecSpace::memory_space;
  auto upload_spans = [&](StructuringElement const& element) {
    Kokkos::View<int*, Memory> spans("gigaseg::morphology::spans", 2 * std::size_t(element.size));
    auto host = Kokkos::create_mirror_view(spans);
    for (int i = 0; i < element.size; ++i) host(2 * i) = element.first[std::size_t(i)], host(2 * i + 1) = element.last[std::size_t(i)];
    Kokkos::deep_copy(space, spans, host);
    space.fence();
    return spans;
  };
  if (shape == StructuringShape::rect && size > 1) {
    StructuringElement row_element{1, {-(size / 2)}, {size / 2}};
    StructuringElement column_element{size, std::vector<int>(std::size_t(size), 0), std::vector<int>(std::size_t(size), 0)};
    ImageView<std::uint8_t, Memory> rows_done("gigaseg::morphology::rows", in.width(), in.height());
    min_max_filter(space, in, rows_done, upload_spans(row_element), 1, minimum);
    min_max_filter(space, ImageView<std::uint8_t const, Memory>(rows_done), out, upload_spans(column_element), size, minimum);
    return;
  }
  StructuringElement const element = structuring_element(shape, size);
  min_max_filter(space, in, out, upload_spans(element), element.size, minimum);
}

}  // namespace gigaseg::detail

namespace gigaseg {

template <class ExecSpace>
void morphology(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, MorphParams const& params) {
  using Memory = typename ExecSpace::memory_space;
  using Const = ImageView<std::uint8_t const, Memory>;
  detail::require_same_size("morphology", in.width(), in.height(), out.width(), out.height());
  (void)structuring_element(params.shape, params.size);  // validates the size
  if (in.empty()) return;
  auto step = [&](Const const& from, ImageView<std::uint8_t, Memory> const& to, bool minimum) {
    detail::erode_or_dilate(space, from, to, params.shape, params.size, minimum);
  };
  switch (params.op) {
    case MorphOp::erode: step(in, out, true); return;
    case MorphOp::dilate: step(in, out, false); return;
    case MorphOp::open:
    case MorphOp::close: {
      ImageView<std::uint8_t, Memory> first("gigaseg::morphology::first", in.width(), in.height());
      bool const open = params.op == MorphOp::open;
      step(in, first, open);
      step(Const(first), out, !open);
      return;
    }
    case MorphOp::gradient: {
      ImageView<std::uint8_t, Memory> eroded("gigaseg::morphology::eroded", in.width(), in.height());
      step(in, eroded, true);
      step(in, out, false);
      detail::for_each_row_pixel(space, "gigaseg::morphology::gradient", in.height(), in.width(),
                                 KOKKOS_LAMBDA(index_t y, index_t x) { out(y, x) = std::uint8_t(out(y, x) - eroded(y, x)); });
      return;
    }
  }
}

}  // namespace gigaseg
