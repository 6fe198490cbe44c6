#include "gigaseg/algorithms/morphology.hpp"

#include "gigaseg/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

namespace gigaseg {

namespace {
void require_structuring_size(int size) {
  GIGASEG_REQUIRE(size >= 1 && size % 2 == 1, ErrorKind::usage, "structuring_element(size)",
                  "the structuring element's size must be odd and at least 1, got " + std::to_string(size));
}
}  // namespace

int effective_structuring_size(int size, index_t width, index_t height) {
  require_structuring_size(size);
  double const half = std::ceil(std::hypot(double(width), double(height))) + 1;
  return double(size / 2) > half ? 2 * int(half) + 1 : size;
}

StructuringElement structuring_element(StructuringShape shape, int size) {
  require_structuring_size(size);
  StructuringElement element;
  element.size = size;
  int const centre = size / 2, r = size / 2;
  double const inverse_r2 = r ? 1.0 / (double(r) * r) : 0.0;
  for (int i = 0; i < size; ++i) {
    int j1 = 0, j2 = 0;  // columns [j1, j2) of the K x K element, as OpenCV writes them
    if (shape == StructuringShape::rect || (shape == StructuringShape::cross && i == centre)) {
      j2 = size;
    } else if (shape == StructuringShape::cross) {
      j1 = centre, j2 = centre + 1;
    } else {
      int const dy = i - r;
      if (std::abs(dy) <= r) {
        int const dx = int(std::lrint(centre * std::sqrt(double(r * r - dy * dy) * inverse_r2)));
        j1 = std::max(centre - dx, 0);
        j2 = std::min(centre + dx + 1, size);
      }
    }
    element.first.push_back(j1 - centre);
    element.last.push_back(j2 - 1 - centre);
  }
  return element;
}

}  // namespace gigaseg
