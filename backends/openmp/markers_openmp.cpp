// Sequential O(N) propagations for the markers on the host (markers_openmp.hpp).
#include "gigaseg/backends/openmp/markers_openmp.hpp"

#include <algorithm>
#include <deque>
#include <vector>

namespace gigaseg::tuned {
namespace {

// Neighbour offsets: the first half precede a pixel in raster order, the second half follow it.
struct Offsets {
  int count;
  int dy[8], dx[8];
};
Offsets offsets(bool eight) {
  if (eight) return {8, {-1, -1, -1, 0, 0, 1, 1, 1}, {-1, 0, 1, -1, 1, -1, 0, 1}};
  return {4, {-1, 0, 0, 1}, {0, -1, 1, 0}};
}

}  // namespace

void reconstruct_by_dilation(ImageView<float const, Kokkos::HostSpace> const& mask,
                             ImageView<float, Kokkos::HostSpace> const& rec, bool eight) {
  index_t const width = mask.width(), height = mask.height();
  Offsets const n = offsets(eight);
  int const half = n.count / 2;
  auto inside = [&](index_t y, index_t x) { return y >= 0 && y < height && x >= 0 && x < width && mask(y, x) > 0; };
  for (index_t y = 0; y < height; ++y)  // forward: from the neighbours before
    for (index_t x = 0; x < width; ++x) {
      if (mask(y, x) <= 0) continue;
      float v = rec(y, x);
      for (int k = 0; k < half; ++k)
        if (inside(y + n.dy[k], x + n.dx[k])) v = std::max(v, rec(y + n.dy[k], x + n.dx[k]));
      rec(y, x) = std::min(v, mask(y, x));
    }
  std::deque<std::pair<index_t, index_t>> fifo;
  for (index_t y = height - 1; y >= 0; --y)  // backward: from the neighbours after
    for (index_t x = width - 1; x >= 0; --x) {
      if (mask(y, x) <= 0) continue;
      float v = rec(y, x);
      for (int k = half; k < n.count; ++k)
        if (inside(y + n.dy[k], x + n.dx[k])) v = std::max(v, rec(y + n.dy[k], x + n.dx[k]));
      v = std::min(v, mask(y, x));
      rec(y, x) = v;
      for (int k = half; k < n.count; ++k) {
        index_t const qy = y + n.dy[k], qx = x + n.dx[k];
        if (inside(qy, qx) && rec(qy, qx) < v && rec(qy, qx) < mask(qy, qx)) {
          fifo.emplace_back(y, x);
          break;
        }
      }
    }
  while (!fifo.empty()) {
    auto const [y, x] = fifo.front();
    fifo.pop_front();
    float const v = rec(y, x);
    for (int k = 0; k < n.count; ++k) {
      index_t const qy = y + n.dy[k], qx = x + n.dx[k];
      if (!inside(qy, qx)) continue;
      float const q = rec(qy, qx), limit = mask(qy, qx);
      if (q < v && q != limit) {
        rec(qy, qx) = std::min(v, limit);
        fifo.emplace_back(qy, qx);
      }
    }
  }
}

void spread_over_plateaus(ImageView<float const, Kokkos::HostSpace> const& mask,
                          ImageView<float const, Kokkos::HostSpace> const& value,
                          ImageView<std::uint8_t, Kokkos::HostSpace> const& flag, bool eight) {
  index_t const width = mask.width(), height = mask.height();
  Offsets const n = offsets(eight);
  auto inside = [&](index_t y, index_t x) { return y >= 0 && y < height && x >= 0 && x < width && mask(y, x) > 0; };
  std::vector<std::pair<index_t, index_t>> stack;
  auto spread_from = [&](index_t y, index_t x) {
    for (int k = 0; k < n.count; ++k) {
      index_t const qy = y + n.dy[k], qx = x + n.dx[k];
      if (inside(qy, qx) && !flag(qy, qx) && value(qy, qx) == value(y, x)) {
        flag(qy, qx) = 1;
        stack.emplace_back(qy, qx);
      }
    }
  };
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) {
      if (!flag(y, x) || mask(y, x) <= 0) continue;
      spread_from(y, x);
      while (!stack.empty()) {
        auto const [py, px] = stack.back();
        stack.pop_back();
        spread_from(py, px);
      }
    }
}

}  // namespace gigaseg::tuned
