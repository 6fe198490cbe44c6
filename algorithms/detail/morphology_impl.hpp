#pragma once
// Implementation of algorithms/morphology.hpp: the operations as erosions and dilations, each
// dispatched between the backend's tuned pass and the portable one
// (algorithms/detail/morphology_portable.hpp); instantiated by backends/instantiate/morphology.cpp,
// which also sees the backends' specialisations.
//
// A backend's tuned run(space, in, out, shape, size, minimum) returns false for an element it does
// not take (CUDA: anything but rectangles 3..191 on 4-byte-aligned rows; OpenMP: rectangles wider
// than 255), which then runs portably.
#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/dispatch.hpp"
#include "gigaseg/algorithms/detail/morphology_portable.hpp"
#include "gigaseg/algorithms/detail/pixelwise.hpp"
#include "gigaseg/algorithms/morphology.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace gigaseg {
namespace detail {

// Erosion or dilation with the whole element, on the requested path.
template <class ExecSpace>
void erode_or_dilate(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                     ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, StructuringShape shape,
                     int size, bool minimum, Path path) {
  dispatch<MorphologyAlgorithm>(
      space, path, [&] { erode_or_dilate_portable(space, in, out, shape, size, minimum); }, in, out, shape, size,
      minimum);
}

}  // namespace detail

template <class ExecSpace>
Path morphology_path(MorphParams const& params) {
  return resolved_path<MorphologyAlgorithm, ExecSpace>(params.path);
}

template <class ExecSpace>
void morphology(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, MorphParams const& params) {
  using Memory = typename ExecSpace::memory_space;
  using Const = ImageView<std::uint8_t const, Memory>;
  detail::require_same_size("morphology", in.width(), in.height(), out.width(), out.height());
  int const size = effective_structuring_size(params.size, in.width(), in.height());  // validates the size
  Path const path = morphology_path<ExecSpace>(params);  // validates a forced path, also for empty images
  if (in.empty()) return;
  auto step = [&](Const const& from, ImageView<std::uint8_t, Memory> const& to, bool minimum) {
    detail::erode_or_dilate(space, from, to, params.shape, size, minimum, path);
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
      detail::for_each_row_pixel(
          space, "gigaseg::morphology::gradient", in.height(), in.width(),
          KOKKOS_LAMBDA(index_t y, index_t x) { out(y, x) = std::uint8_t(out(y, x) - eroded(y, x)); });
      return;
    }
  }
}

}  // namespace gigaseg
