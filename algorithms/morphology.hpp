#pragma once
// Grey-level morphology of 8-bit images (seed 001, issue 5): erode, dilate, open, close, gradient
// with rectangle, cross and ellipse structuring elements of any odd size, identical to
// cv::morphologyEx with cv::getStructuringElement(shape, {K, K}) and OpenCV's default border
// (pixels outside the image take no part: the minimum and maximum run over the element's pixels
// inside the image).
//
// Portable implementation (detail/morphology_portable.hpp): the element is a list of row spans;
// each output pixel takes the minimum (maximum) over the spans. A rectangle is separable: a row
// pass of width K, then a column pass of height K.
#include "core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace gigaseg {

enum class MorphOp { erode, dilate, open, close, gradient };
enum class StructuringShape { rect, cross, ellipse };

struct MorphParams {
  MorphOp op = MorphOp::erode;
  StructuringShape shape = StructuringShape::rect;
  int size = 3;  // odd, >= 1
};

// Row i of the element (0..K-1) covers columns [first[i], last[i]] relative to the centre, or none
// when first[i] > last[i]: cv::getStructuringElement's rule, ellipse half-widths rounded as
// cvRound does.
struct StructuringElement {
  int size = 1;
  std::vector<int> first, last;
};
StructuringElement structuring_element(StructuringShape shape, int size);

template <class ExecSpace>
void morphology(ExecSpace const& space, ImageView<std::uint8_t const, typename ExecSpace::memory_space> const& in,
                ImageView<std::uint8_t, typename ExecSpace::memory_space> const& out, MorphParams const& params);

}  // namespace gigaseg

#include "algorithms/detail/morphology_portable.hpp"
