#include "gigaseg/algorithms/detail/kmeans_features.hpp"

#include <cmath>

namespace gigaseg::detail {

std::vector<int> const& lab_tables() {
  static std::vector<int> const tables = [] {
    std::vector<int> tables(lab_gamma_entries + lab_cbrt_entries);
    for (int v = 0; v < 256; ++v) {
      double const c = v / 255.0;
      double const linear = c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
      tables[std::size_t(v)] = int(std::lround(linear * 4096));
    }
    for (int i = 0; i < lab_cbrt_entries; ++i) {
      double const t = i / 4096.0;
      double const f = t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0;
      tables[std::size_t(lab_gamma_entries + i)] = int(std::lround(f * 4096));
    }
    return tables;
  }();
  return tables;
}

LabMatrix lab_matrix() {
  // sRGB primaries, D65 white (the matrix OpenCV's RGB2Lab uses), rows divided by the white point.
  double const m[9] = {0.412453, 0.357580, 0.180423, 0.212671, 0.715160, 0.072169, 0.019334, 0.119193, 0.950227};
  double const white[3] = {0.950456, 1.0, 1.088754};
  LabMatrix out{};
  for (int i = 0; i < 9; ++i) out.m[i] = int(std::lround(m[i] / white[i / 3] * 4096));
  return out;
}

}  // namespace gigaseg::detail
