#include "gigaseg/algorithms/otsu.hpp"

#include <cfloat>
#include <algorithm>

namespace gigaseg {

int otsu_bin(std::uint64_t const* counts, int bins) {
  // The loop of OpenCV's getThreshVal_Otsu_8u (imgproc/src/thresh.cpp), in the same order and
  // precision, so that T is identical, ties included (the first maximum wins).
  std::uint64_t total = 0;
  for (int i = 0; i < bins; ++i) total += counts[i];
  if (total == 0) return 0;
  double const scale = 1.0 / double(total);
  double mu = 0;
  for (int i = 0; i < bins; ++i) mu += i * double(counts[i]);
  mu *= scale;
  double mu1 = 0, q1 = 0, max_sigma = 0;
  int max_val = 0;
  for (int i = 0; i < bins; ++i) {
    double const p_i = double(counts[i]) * scale;
    mu1 *= q1;
    q1 += p_i;
    double const q2 = 1.0 - q1;
    if (std::min(q1, q2) < FLT_EPSILON || std::max(q1, q2) > 1.0 - FLT_EPSILON) continue;
    mu1 = (mu1 + i * p_i) / q1;
    double const mu2 = (mu - q1 * mu1) / q2;
    double const sigma = q1 * q2 * (mu1 - mu2) * (mu1 - mu2);
    if (sigma > max_sigma) {
      max_sigma = sigma;
      max_val = i;
    }
  }
  return max_val;
}

}  // namespace gigaseg
