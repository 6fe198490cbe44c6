#include "gigaseg/algorithms/watershed.hpp"

#include "gigaseg/algorithms/convert.hpp"
#include "gigaseg/algorithms/detail/bucket_queue.hpp"
#include "gigaseg/core/error.hpp"

#include <queue>
#include <string>
#include <vector>

namespace gigaseg {
namespace {

template <class T>
struct FrontEntry {
  T value;
  std::uint64_t age;
  index_t y, x;
};

// Orders the priority queue so that the lowest (value, age) leaves first.
template <class T>
struct LaterLeaves {
  bool operator()(FrontEntry<T> const& a, FrontEntry<T> const& b) const {
    return a.value != b.value ? b.value < a.value : a.age > b.age;
  }
};

}  // namespace

template <class T>
void watershed_flood(ImageView<T const, Kokkos::HostSpace> const& relief,
                     ImageView<Label const, Kokkos::HostSpace> const& markers,
                     ImageView<Label, Kokkos::HostSpace> const& out, WatershedParams const& params,
                     ImageView<std::uint8_t const, Kokkos::HostSpace> const& mask) {
  GIGASEG_REQUIRE(relief.width() < (index_t(1) << 32) && relief.height() < (index_t(1) << 32), ErrorKind::usage,
                  "watershed", "sides up to 2^32 - 1 pixels");
  GIGASEG_REQUIRE(params.connectivity == 4 || params.connectivity == 8, ErrorKind::usage,
                  "WatershedParams::connectivity",
                  "connectivity must be 4 or 8, got " + std::to_string(params.connectivity));
  index_t const width = relief.width(), height = relief.height();
  detail::require_same_size("watershed", width, height, markers.width(), markers.height());
  detail::require_same_size("watershed", width, height, out.width(), out.height());
  bool const masked = !mask.empty();
  if (masked) detail::require_same_size("watershed", width, height, mask.width(), mask.height());
  auto inside = [&](index_t y, index_t x) { return !masked || mask(y, x) != 0; };

  static constexpr int dy8[] = {-1, -1, -1, 0, 0, 1, 1, 1}, dx8[] = {-1, 0, 1, -1, 1, -1, 0, 1};
  static constexpr int dy4[] = {-1, 0, 0, 1}, dx4[] = {0, -1, 1, 0};
  int const count = params.connectivity;
  int const* const dy = count == 8 ? dy8 : dy4;
  int const* const dx = count == 8 ? dx8 : dx4;
  // Labels the unlabelled neighbours of (y, x) and hands each to push(ny, nx) in neighbour order.
  auto spread = [&](index_t y, index_t x, auto&& push) {
    Label const label = out(y, x);
    for (int i = 0; i < count; ++i) {
      index_t const ny = y + dy[i], nx = x + dx[i];
      if (ny < 0 || ny >= height || nx < 0 || nx >= width || out(ny, nx) != 0 || !inside(ny, nx)) continue;
      out(ny, nx) = label;
      push(ny, nx);
    }
  };
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) out(y, x) = inside(y, x) ? markers(y, x) : Label(0);

  if constexpr (sizeof(T) <= 2) {
    // 8/16-bit reliefs: one first-in-first-out bucket per value, taken lowest first, which is the
    // same (value, age) order as the priority queue below, in O(1) a pixel. The labels live in a
    // padded copy whose border and masked-out pixels are `blocked`, so a neighbour costs one read;
    // the relief is padded alike.
    constexpr std::uint32_t blocked = 0xffffffffu;
    index_t const stride = width + 2;
    std::size_t const cells = std::size_t(stride) * std::size_t(height + 2);
    std::vector<std::uint32_t> cell(cells, blocked);
    std::vector<T> value(cells, T(0));
    for (index_t y = 0; y < height; ++y)
      for (index_t x = 0; x < width; ++x) {
        std::size_t const p = std::size_t((y + 1) * stride + x + 1);
        cell[p] = inside(y, x) ? markers(y, x) : blocked;
        value[p] = relief(y, x);
      }
    std::ptrdiff_t offsets[8];
    for (int k = 0; k < count; ++k) offsets[k] = std::ptrdiff_t(dy[k]) * stride + dx[k];
    detail::BucketQueue<std::size_t> queue(std::size_t(1) << (8 * sizeof(T)));
    for (std::size_t p = 0; p < cells; ++p)
      if (cell[p] != 0 && cell[p] != blocked) queue.push(std::size_t(value[p]), p);
    std::size_t p;
    while (queue.pop(p)) {
      std::uint32_t const label = cell[p];
      for (int k = 0; k < count; ++k) {
        std::size_t const n = std::size_t(std::ptrdiff_t(p) + offsets[k]);
        if (cell[n] != 0) continue;  // labelled, masked out or outside
        cell[n] = label;
        queue.push(std::size_t(value[n]), n);
      }
    }
    for (index_t y = 0; y < height; ++y)
      for (index_t x = 0; x < width; ++x) {
        std::uint32_t const c = cell[std::size_t((y + 1) * stride + x + 1)];
        out(y, x) = c == blocked ? Label(0) : Label(c);
      }
  } else {
    std::priority_queue<FrontEntry<T>, std::vector<FrontEntry<T>>, LaterLeaves<T>> front;
    std::uint64_t age = 0;
    auto push = [&](index_t y, index_t x) { front.push({relief(y, x), age++, y, x}); };
    for (index_t y = 0; y < height; ++y)
      for (index_t x = 0; x < width; ++x)
        if (out(y, x) != 0) push(y, x);
    while (!front.empty()) {
      FrontEntry<T> const current = front.top();
      front.pop();
      spread(current.y, current.x, push);
    }
  }
}

#define GIGASEG_WATERSHED_FLOOD(T)                                                                     \
  template void watershed_flood<T>(ImageView<T const, Kokkos::HostSpace> const&,                       \
                                   ImageView<Label const, Kokkos::HostSpace> const&,                   \
                                   ImageView<Label, Kokkos::HostSpace> const&, WatershedParams const&, \
                                   ImageView<std::uint8_t const, Kokkos::HostSpace> const&);
GIGASEG_WATERSHED_FLOOD(std::uint8_t)
GIGASEG_WATERSHED_FLOOD(std::uint16_t)
GIGASEG_WATERSHED_FLOOD(float)
#undef GIGASEG_WATERSHED_FLOOD

}  // namespace gigaseg
