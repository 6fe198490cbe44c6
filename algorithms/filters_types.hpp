#pragma once
// The public types of algorithms/filters.hpp, in a header of their own so that the backends (backends/*/filters_*.hpp)
// can declare their tuned specialisations without the implementation.
#include "gigaseg/algorithms/path.hpp"

namespace gigaseg {

// The tags of the local filters in TunedAvailable / Tuned (algorithms/path.hpp). The median's
// tuned paths depend on the pixel type (CUDA: 8-bit only), so its tag is a template on it.
template <class T>
struct MedianAlgorithm {
  static constexpr char const* name = "median";
};
struct GaussianAlgorithm {
  static constexpr char const* name = "gaussian";
};
struct BoxFilterAlgorithm {
  static constexpr char const* name = "box_filter";
};
struct SobelAlgorithm {
  static constexpr char const* name = "sobel";
};

struct FilterParams {
  Path path = Path::automatic;
};

struct GaussianParams {
  double sigma = 1.0;           // > 0
  int ksize = 0;                // odd; 0 = as cv::GaussianBlur chooses for 8-bit images: round(6 sigma + 1) | 1
  Path path = Path::automatic;  // tuned: integer passes on OpenMP
};

}  // namespace gigaseg
