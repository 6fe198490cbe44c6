#pragma once
// The public types of algorithms/morphology.hpp, in a header of their own so that the backends
// (backends/*/filters_*.hpp) can declare their tuned specialisations without the implementation.
#include "gigaseg/algorithms/path.hpp"
#include "gigaseg/core/image.hpp"

#include <vector>

namespace gigaseg {

// The tag of morphology() in TunedAvailable / Tuned (algorithms/path.hpp). Its tuned run is one
// erosion or dilation: run(space, in, out, shape, size, minimum) -> bool.
struct MorphologyAlgorithm {
  static constexpr char const* name = "morphology";
};

enum class MorphOp { erode, dilate, open, close, gradient };
enum class StructuringShape { rect, cross, ellipse };

struct MorphParams {
  MorphOp op = MorphOp::erode;
  StructuringShape shape = StructuringShape::rect;
  int size = 3;  // odd, >= 1
  Path path = Path::automatic;
};

// Row i of the element (0..K-1) covers columns [first[i], last[i]] relative to the centre, or none
// when first[i] > last[i]: cv::getStructuringElement's rule, ellipse half-widths rounded as
// cvRound does.
struct StructuringElement {
  int size = 1;
  std::vector<int> first, last;
};
StructuringElement structuring_element(StructuringShape shape, int size);

// The size a `size` element runs with on a width x height image: past the point where every
// offset within the image lies inside the element (a half-size of ceil(hypot(width, height)) + 1,
// for every shape), a larger element gives the same result, so `size` is lowered to that point;
// a huge size costs no more than the image. Throws Error(usage) naming structuring_element(size)
// unless `size` is odd and at least 1.
int effective_structuring_size(int size, index_t width, index_t height);

}  // namespace gigaseg
