#include "algorithms/watershed.hpp"

#include "algorithms/convert.hpp"
#include "core/error.hpp"

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
void watershed_flood(ImageView<T const, Kokkos::HostSpace> const& relief, ImageView<Label const, Kokkos::HostSpace> const& markers,
                     ImageView<Label, Kokkos::HostSpace> const& out, WatershedParams const& params,
                     ImageView<std::uint8_t const, Kokkos::HostSpace> const& mask) {
  GIGASEG_REQUIRE(params.connectivity == 4 || params.connectivity == 8, ErrorKind::usage, "--connectivity",
                  "connectivity must be 4 or 8, got " + std::to_string(params.connectivity));
  index_t const width = relief.width(), height = relief.height();
  detail::require_same_size("watershed", width, height, markers.width(), markers.height());
  detail::require_same_size("watershed", width, height, out.width(), out.height());
  bool const masked = !mask.empty();
  if (masked) detail::require_same_size("watershed", width, height, mask.width(), mask.height());
  auto inside = [&](index_t y, index_t x) { return !masked || mask(y, x) != 0; };

  std::priority_queue<FrontEntry<T>, std::vector<FrontEntry<T>>, LaterLeaves<T>> front;
  std::uint64_t age = 0;
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) {
      Label const m = inside(y, x) ? markers(y, x) : Label(0);
      out(y, x) = m;
      if (m != 0) front.push({relief(y, x), age++, y, x});
    }
  static constexpr int dy8[] = {-1, -1, -1, 0, 0, 1, 1, 1}, dx8[] = {-1, 0, 1, -1, 1, -1, 0, 1};
  static constexpr int dy4[] = {-1, 0, 0, 1}, dx4[] = {0, -1, 1, 0};
  int const count = params.connectivity;
  int const* const dy = count == 8 ? dy8 : dy4;
  int const* const dx = count == 8 ? dx8 : dx4;
  while (!front.empty()) {
    FrontEntry<T> const current = front.top();
    front.pop();
    Label const label = out(current.y, current.x);
    for (int i = 0; i < count; ++i) {
      index_t const ny = current.y + dy[i], nx = current.x + dx[i];
      if (ny < 0 || ny >= height || nx < 0 || nx >= width || out(ny, nx) != 0 || !inside(ny, nx)) continue;
      out(ny, nx) = label;
      front.push({relief(ny, nx), age++, ny, nx});
    }
  }
}

#define GIGASEG_WATERSHED_FLOOD(T)                                                                                       \
  template void watershed_flood<T>(ImageView<T const, Kokkos::HostSpace> const&, ImageView<Label const, Kokkos::HostSpace> const&, \
                                   ImageView<Label, Kokkos::HostSpace> const&, WatershedParams const&,                      \
                                   ImageView<std::uint8_t const, Kokkos::HostSpace> const&);
GIGASEG_WATERSHED_FLOOD(std::uint8_t)
GIGASEG_WATERSHED_FLOOD(std::uint16_t)
GIGASEG_WATERSHED_FLOOD(float)
#undef GIGASEG_WATERSHED_FLOOD

}  // namespace gigaseg
