// The outlines of a label image's regions (algorithms/outlines.hpp): crack following along the
// pixel edges, each boundary edge visited once, then holes given to the exterior that holds them.
#include "gigaseg/algorithms/outlines.hpp"

#include "gigaseg/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gigaseg {

std::int64_t OutlineRing::twice_area() const noexcept {
  std::int64_t sum = 0;
  for (std::size_t i = 0; i + 1 < size(); ++i) sum += xy[2 * i] * xy[2 * i + 3] - xy[2 * i + 2] * xy[2 * i + 1];
  return sum;
}

namespace {

// Directions along pixel edges in image coordinates (y down): east, south, west, north. The
// right-hand neighbour of a direction is the next one, the left-hand one the one before.
constexpr int step_x[4] = {1, 0, -1, 0};
constexpr int step_y[4] = {0, 1, 0, -1};
constexpr int right_of(int d) { return (d + 1) & 3; }
constexpr int left_of(int d) { return (d + 3) & 3; }

// A ring as traced, before the holes are given to their exteriors.
struct Traced {
  OutlineRing ring;
  std::int64_t twice_area = 0;
  std::int64_t outside_x = 0, outside_y = 0;  // a pixel next to the ring, not in the region (holes: inside the hole)
};

// Whether the centre of pixel (px, py) lies inside `ring` (a ring of horizontal and vertical edges
// on pixel corners, so the centre is never on it): the crossings of a ray towards +x.
bool holds(OutlineRing const& ring, std::int64_t px, std::int64_t py) {
  bool inside = false;
  for (std::size_t i = 0; i + 1 < ring.size(); ++i) {
    std::int64_t const x0 = ring.xy[2 * i], y0 = ring.xy[2 * i + 1], x1 = ring.xy[2 * i + 2], y1 = ring.xy[2 * i + 3];
    if (x0 != x1 || x0 <= px) continue;
    if (std::min(y0, y1) <= py && std::max(y0, y1) > py) inside = !inside;
  }
  return inside;
}

// Douglas-Peucker on the closed ring: the vertices kept are those farther than `tolerance` from
// the chord of the part they lie in, the first vertex and the one farthest from it always.
OutlineRing simplified(OutlineRing const& ring, double tolerance) {
  std::size_t const n = ring.size() - 1;  // distinct vertices
  if (n < 4) return ring;
  auto px = [&](std::size_t i) { return double(ring.xy[2 * (i % n)]); };
  auto py = [&](std::size_t i) { return double(ring.xy[2 * (i % n) + 1]); };
  std::size_t far = 0;
  double far_d = -1;
  for (std::size_t i = 1; i < n; ++i) {
    double const d = std::hypot(px(i) - px(0), py(i) - py(0));
    if (d > far_d) far_d = d, far = i;
  }
  std::vector<char> keep(n + 1, 0);
  keep[0] = keep[far] = keep[n] = 1;
  std::vector<std::pair<std::size_t, std::size_t>> parts{{0, far}, {far, n}};
  while (!parts.empty()) {
    auto const [a, b] = parts.back();
    parts.pop_back();
    if (b <= a + 1) continue;
    double const ax = px(a), ay = py(a), bx = px(b), by = py(b);
    double const length = std::hypot(bx - ax, by - ay);
    std::size_t worst = a;
    double worst_d = -1;
    for (std::size_t i = a + 1; i < b; ++i) {
      double const d = length > 0 ? std::abs((bx - ax) * (ay - py(i)) - (ax - px(i)) * (by - ay)) / length
                                  : std::hypot(px(i) - ax, py(i) - ay);
      if (d > worst_d) worst_d = d, worst = i;
    }
    if (worst_d > tolerance) {
      keep[worst] = 1;
      parts.emplace_back(a, worst);
      parts.emplace_back(worst, b);
    }
  }
  OutlineRing out;
  for (std::size_t i = 0; i <= n; ++i)
    if (keep[i]) {
      out.xy.push_back(ring.xy[2 * (i % n)]);
      out.xy.push_back(ring.xy[2 * (i % n) + 1]);
    }
  return out.size() >= 4 ? out : ring;
}

// Splits the closed ring `ring` (its last vertex its first) at every corner it passes more than once
// into rings that pass each corner once, appending them to `out`. Only the corners in `saddles`
// (distinct-vertex indices) can repeat. A walk around the vertices keeps a stack of those not yet
// closed off; a corner met again closes the loop from its first visit, which becomes a ring of its
// own (it turns at that corner on both of its sides, so every ring keeps only turning vertices).
void split_at_repeated_corners(OutlineRing const& ring, std::vector<std::size_t> const& saddles,
                               std::vector<OutlineRing>& out) {
  std::size_t const n = ring.size() - 1;  // distinct vertices
  std::vector<char> saddle(n, 0);
  for (std::size_t i : saddles) saddle[i] = 1;
  std::vector<std::size_t> stack;                                     // vertex indices
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> open;  // saddle corner -> its place on the stack
  auto corner = [&](std::size_t i) { return std::make_pair(ring.xy[2 * i], ring.xy[2 * i + 1]); };
  auto emit = [&](std::size_t from) {
    OutlineRing piece;
    for (std::size_t k = from; k < stack.size(); ++k) {
      piece.xy.push_back(ring.xy[2 * stack[k]]);
      piece.xy.push_back(ring.xy[2 * stack[k] + 1]);
    }
    piece.xy.push_back(piece.xy[0]);
    piece.xy.push_back(piece.xy[1]);
    out.push_back(std::move(piece));
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (saddle[i]) {
      auto const found = open.find(corner(i));
      if (found != open.end()) {
        std::size_t const from = found->second;
        emit(from);
        for (std::size_t k = from + 1; k < stack.size(); ++k)
          if (saddle[stack[k]]) open.erase(corner(stack[k]));
        stack.resize(from + 1);  // the corner stays, as the start of what follows it
        continue;
      }
      open.emplace(corner(i), stack.size());
    }
    stack.push_back(i);
  }
  emit(0);
}

}  // namespace

std::vector<RegionOutline> trace_outlines(ImageView<Label const, Kokkos::HostSpace> const& labels, index_t count,
                                          OutlineParams const& params) {
  GIGASEG_REQUIRE(params.simplify >= 0 && std::isfinite(params.simplify), ErrorKind::usage, "OutlineParams::simplify",
                  "the tolerance must be 0 or more");
  index_t const width = labels.width(), height = labels.height();
  auto at = [&](index_t x, index_t y) -> Label {
    return x < 0 || y < 0 || x >= width || y >= height ? Label(0) : labels(y, x);
  };
  // The pixel in the quadrant (qx, qy) (each +-1) of the corner (vx, vy).
  auto quadrant = [&](index_t vx, index_t vy, int qx, int qy) { return at(vx + (qx - 1) / 2, vy + (qy - 1) / 2); };
  // Bit d of a pixel: its boundary edge followed in direction d (the pixel on the right) is traced.
  std::vector<std::uint8_t> visited(std::size_t(width * height), 0);
  std::vector<std::vector<Traced>> rings(std::size_t(count + 1));
  std::vector<std::size_t> saddles;  // the vertices of the ring being traced where it turned at a diagonal touch
  std::vector<OutlineRing> split;
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) {
      Label const l = labels(y, x);
      if (l == 0) continue;
      GIGASEG_REQUIRE(l <= Label(count), ErrorKind::input, "trace_outlines(labels)",
                      "holds label " + std::to_string(l) + ", above the " + std::to_string(count) + " expected");
      for (int s = 0; s < 4; ++s) {
        // Side s of the pixel is the edge followed in direction s with the pixel on the right; the
        // pixel across it is on the left.
        index_t const ox = x + step_x[left_of(s)], oy = y + step_y[left_of(s)];
        if (at(ox, oy) == l || (visited[std::size_t(y * width + x)] >> s & 1)) continue;
        // The edge's first corner: the pixel is the one ahead and to the right of it.
        int const qx = step_x[s] + step_x[right_of(s)], qy = step_y[s] + step_y[right_of(s)];
        index_t const x0 = x - (qx - 1) / 2, y0 = y - (qy - 1) / 2;
        index_t vx = x0, vy = y0;
        int d = s;
        OutlineRing traced;
        std::vector<std::int64_t>& xy = traced.xy;
        saddles.clear();
        for (;;) {
          {  // the edge from (vx, vy) in direction d, its pixel on the right, visited
            int const rx = step_x[d] + step_x[right_of(d)], ry = step_y[d] + step_y[right_of(d)];
            index_t const px = vx + (rx - 1) / 2, py = vy + (ry - 1) / 2;
            visited[std::size_t(py * width + px)] |= std::uint8_t(1u << d);
          }
          vx += step_x[d];
          vy += step_y[d];
          bool const ahead_left = quadrant(vx, vy, step_x[d] + step_x[left_of(d)], step_y[d] + step_y[left_of(d)]) == l;
          bool const ahead_right =
              quadrant(vx, vy, step_x[d] + step_x[right_of(d)], step_y[d] + step_y[right_of(d)]) == l;
          int next = d;
          if (ahead_left && ahead_right)
            next = left_of(d);
          else if (!ahead_left && !ahead_right)
            next = right_of(d);
          else if (ahead_left) {  // the region on both diagonals of the corner: stay with this pixel
            next = right_of(d);
            saddles.push_back(xy.size() / 2);
          }
          if (next != d) {
            xy.push_back(vx);
            xy.push_back(vy);
          }
          d = next;
          if (vx == x0 && vy == y0 && d == s) break;
        }
        xy.push_back(xy[0]);
        xy.push_back(xy[1]);
        split.clear();
        if (saddles.size() < 2)
          split.push_back(std::move(traced));
        else
          split_at_repeated_corners(traced, saddles, split);
        for (OutlineRing& ring : split) {
          Traced piece;
          // The pixel on the left of the ring's first edge, outside the region (inside a hole).
          std::int64_t const ex = ring.xy[2] - ring.xy[0], ey = ring.xy[3] - ring.xy[1];
          int const e = ex > 0 ? 0 : ey > 0 ? 1 : ex < 0 ? 2 : 3;
          int const lx = step_x[e] + step_x[left_of(e)], ly = step_y[e] + step_y[left_of(e)];
          piece.outside_x = ring.xy[0] + (lx - 1) / 2;
          piece.outside_y = ring.xy[1] + (ly - 1) / 2;
          piece.twice_area = ring.twice_area();
          piece.ring = std::move(ring);
          rings[l].push_back(std::move(piece));
        }
      }
    }

  std::vector<RegionOutline> outlines(static_cast<std::size_t>(count));
  for (index_t l = 1; l <= count; ++l) {
    RegionOutline& outline = outlines[std::size_t(l - 1)];
    outline.label = Label(l);
    std::vector<Traced>& traced = rings[std::size_t(l)];
    std::vector<std::size_t> exteriors, polygon_of(traced.size(), 0);
    for (std::size_t i = 0; i < traced.size(); ++i)
      if (traced[i].twice_area > 0) {
        polygon_of[i] = exteriors.size();
        exteriors.push_back(i);
      }
    // Each hole to the smallest exterior that holds the pixel inside it next to its edge.
    for (std::size_t i = 0; i < traced.size(); ++i) {
      if (traced[i].twice_area > 0 || exteriors.size() == 1) continue;
      std::int64_t smallest = std::numeric_limits<std::int64_t>::max();
      for (std::size_t e = 0; e < exteriors.size(); ++e) {
        Traced const& exterior = traced[exteriors[e]];
        if (exterior.twice_area < smallest && holds(exterior.ring, traced[i].outside_x, traced[i].outside_y)) {
          smallest = exterior.twice_area;
          polygon_of[i] = e;
        }
      }
      GIGASEG_REQUIRE(smallest != std::numeric_limits<std::int64_t>::max(), ErrorKind::internal, "trace_outlines",
                      "a hole of label " + std::to_string(l) + " lies in none of its exteriors");
    }
    outline.polygons.resize(exteriors.size());
    for (std::size_t e = 0; e < exteriors.size(); ++e) outline.polygons[e].rings.push_back(traced[exteriors[e]].ring);
    for (std::size_t i = 0; i < traced.size(); ++i)
      if (traced[i].twice_area < 0) outline.polygons[polygon_of[i]].rings.push_back(std::move(traced[i].ring));
    if (params.simplify > 0)
      for (OutlinePolygon& polygon : outline.polygons)
        for (OutlineRing& ring : polygon.rings) ring = simplified(ring, params.simplify);
    traced.clear();
    traced.shrink_to_fit();
  }
  return outlines;
}

}  // namespace gigaseg
