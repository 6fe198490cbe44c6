#pragma once
// Integer colour features for K-means (see algorithms/kmeans.hpp): identical on every backend
// because the only non-integer steps (the sRGB curve, the Lab cube root) are tables computed once
// on the host.
#include "gigaseg/algorithms/convert.hpp"

#include <Kokkos_Core.hpp>

#include <vector>

namespace gigaseg {
// The features K-means clusters (algorithms/kmeans.hpp).
enum class FeatureSpace { gray, rgb, lab };
}  // namespace gigaseg

namespace gigaseg::detail {

constexpr int lab_gamma_entries = 256;  // sRGB value -> linear light, x 4096
constexpr int lab_cbrt_entries = 4608;  // t x 4096 (t slightly above 1 after rounding) -> f(t) x 4096

struct LabMatrix {
  int m[9];  // sRGB (D65) -> XYZ / white point, x 4096
};
// Gamma entries, then cube-root entries; computed once per process (pow and cbrt are not cheap).
std::vector<int> const& lab_tables();
LabMatrix lab_matrix();

KOKKOS_INLINE_FUNCTION int round_div(long long n, long long d) {  // d > 0, halves away from zero
  return int(n >= 0 ? (2 * n + d) / (2 * d) : -((-2 * n + d) / (2 * d)));
}

// Pixel -> integer features. A plain struct of a raw pointer (to lab_tables() in the memory space
// the kernel runs in; unused and may be null for gray and RGB), so that Kokkos functors and the
// hand-written CUDA kernel share it.
struct FeatureMap {
  FeatureSpace space;
  int const* tables;
  LabMatrix lab;

  KOKKOS_INLINE_FUNCTION int channels() const { return space == FeatureSpace::gray ? 1 : 3; }

  KOKKOS_INLINE_FUNCTION void operator()(Rgb8 p, int f[3]) const {
    if (space == FeatureSpace::rgb) {
      f[0] = p.r, f[1] = p.g, f[2] = p.b;
    } else if (space == FeatureSpace::gray) {
      f[0] = luma_bt601(p), f[1] = 0, f[2] = 0;
    } else {
      int const r = tables[p.r], g = tables[p.g], b = tables[p.b];
      int t[3];
      for (int i = 0; i < 3; ++i) {
        int v = (lab.m[3 * i] * r + lab.m[3 * i + 1] * g + lab.m[3 * i + 2] * b + 2048) >> 12;
        v = v < 0 ? 0 : v >= lab_cbrt_entries ? lab_cbrt_entries - 1 : v;
        t[i] = tables[lab_gamma_entries + v];
      }
      // L* (0..100) -> 0..255, a*, b* + 128, as OpenCV's 8-bit Lab.
      int const l = round_div((116LL * t[1] - 16 * 4096) * 255, 100LL * 4096);
      int const a = round_div(500LL * (t[0] - t[1]), 4096) + 128;
      int const bb = round_div(200LL * (t[1] - t[2]), 4096) + 128;
      f[0] = l < 0 ? 0 : l > 255 ? 255 : l;
      f[1] = a < 0 ? 0 : a > 255 ? 255 : a;
      f[2] = bb < 0 ? 0 : bb > 255 ? 255 : bb;
    }
  }
};

}  // namespace gigaseg::detail
