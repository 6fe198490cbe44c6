// Region outlines (algorithms/outlines.hpp) against the label image they came from: every region's
// polygons, filled by a scanline of their own (the pixel centres inside an odd number of the
// region's rings), give back exactly the region's pixels; their signed areas sum to its area; each
// polygon is one exterior ring then holes inside it. And every polygon is valid by the OGC rules
// as the tracer builds them: each ring passes every pixel corner at most once (it is simple), the
// pixels a polygon fills are 4-connected (its interior is connected), so a region touching itself
// only at a corner is several polygons. On adversarial images (checkerboards, pinched rings, nested
// rings with islands, a serpentine, regions on the image's border, single pixels) and random maps.
#include "gigaseg/algorithms/outlines.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace gigaseg {
namespace {

HostImage<Label> image_of(index_t width, index_t height, std::vector<Label> const& values) {
  HostImage<Label> image("outlines::labels", width, height);
  for (index_t y = 0; y < height; ++y)
    for (index_t x = 0; x < width; ++x) image(y, x) = values[std::size_t(y * width + x)];
  return image;
}

// The pixels of a width x height image whose centres lie inside an odd number of `rings` (each made
// of horizontal and vertical edges on pixel corners), by rows: the x of the vertical edges that
// cross the row's centre line, sorted, taken in pairs.
std::vector<char> fill(std::vector<OutlineRing const*> const& rings, index_t width, index_t height) {
  std::vector<char> inside(std::size_t(width * height), 0);
  for (index_t y = 0; y < height; ++y) {
    std::vector<std::int64_t> crossings;
    for (OutlineRing const* ring : rings)
      for (std::size_t i = 0; i + 1 < ring->size(); ++i) {
        std::int64_t const x0 = ring->xy[2 * i], y0 = ring->xy[2 * i + 1];
        std::int64_t const x1 = ring->xy[2 * i + 2], y1 = ring->xy[2 * i + 3];
        EXPECT_TRUE(x0 == x1 || y0 == y1) << "an exact outline runs along pixel edges";
        if (x0 == x1 && std::min(y0, y1) <= y && std::max(y0, y1) > y) crossings.push_back(x0);
      }
    std::sort(crossings.begin(), crossings.end());
    EXPECT_EQ(crossings.size() % 2, 0u);
    for (std::size_t k = 0; k + 1 < crossings.size(); k += 2)
      for (std::int64_t x = crossings[k]; x < crossings[k + 1]; ++x) inside[std::size_t(y * width + x)] ^= 1;
  }
  return inside;
}

// Every pixel corner the ring passes, along its edges too, is passed once: the ring is simple.
void expect_simple(OutlineRing const& ring, Label label) {
  std::set<std::pair<std::int64_t, std::int64_t>> corners;
  for (std::size_t i = 0; i + 1 < ring.size(); ++i) {
    std::int64_t const x0 = ring.xy[2 * i], y0 = ring.xy[2 * i + 1];
    std::int64_t const x1 = ring.xy[2 * i + 2], y1 = ring.xy[2 * i + 3];
    std::int64_t const dx = (x1 > x0) - (x1 < x0), dy = (y1 > y0) - (y1 < y0);
    for (std::int64_t x = x0, y = y0; x != x1 || y != y1; x += dx, y += dy)
      EXPECT_TRUE(corners.emplace(x, y).second)
          << "label " << label << ": a ring passes corner " << x << "," << y << " twice";
  }
}

// The pixels set in `inside` form one 4-connected set (a polygon's interior is connected).
bool four_connected(std::vector<char> const& inside, index_t width, index_t height) {
  std::vector<char> seen(inside.size(), 0);
  std::vector<index_t> stack;
  index_t found = 0, total = 0;
  for (std::size_t i = 0; i < inside.size(); ++i) total += inside[i] != 0;
  for (std::size_t i = 0; i < inside.size() && stack.empty() && found == 0; ++i)
    if (inside[i]) stack.push_back(index_t(i)), seen[i] = 1;
  while (!stack.empty()) {
    index_t const at = stack.back();
    stack.pop_back();
    ++found;
    index_t const x = at % width, y = at / width;
    index_t const next[4][2] = {{x + 1, y}, {x - 1, y}, {x, y + 1}, {x, y - 1}};
    for (auto const& n : next) {
      if (n[0] < 0 || n[1] < 0 || n[0] >= width || n[1] >= height) continue;
      std::size_t const k = std::size_t(n[1] * width + n[0]);
      if (inside[k] && !seen[k]) seen[k] = 1, stack.push_back(index_t(k));
    }
  }
  return found == total;
}

// Checks every region's outline against `labels`; returns the polygons per label (index label - 1).
std::vector<std::size_t> check_outlines(HostImage<Label> const& labels, index_t count) {
  std::vector<RegionOutline> const outlines = trace_outlines(labels, count);
  EXPECT_EQ(outlines.size(), std::size_t(count));
  index_t const width = labels.width(), height = labels.height();
  std::vector<std::size_t> polygons;
  for (index_t l = 1; l <= count; ++l) {
    RegionOutline const& outline = outlines[std::size_t(l - 1)];
    EXPECT_EQ(outline.label, Label(l));
    std::vector<OutlineRing const*> rings;
    std::int64_t twice_area = 0;
    for (OutlinePolygon const& polygon : outline.polygons) {
      EXPECT_FALSE(polygon.rings.empty());
      std::vector<OutlineRing const*> own;
      for (std::size_t r = 0; r < polygon.rings.size(); ++r) {
        OutlineRing const& ring = polygon.rings[r];
        EXPECT_GE(ring.size(), 5u);
        EXPECT_EQ(ring.xy[0], ring.xy[ring.xy.size() - 2]);
        EXPECT_EQ(ring.xy[1], ring.xy[ring.xy.size() - 1]);
        EXPECT_EQ(ring.twice_area() > 0, r == 0) << "label " << l << ": the exterior first, then holes";
        expect_simple(ring, Label(l));
        twice_area += ring.twice_area();
        rings.push_back(&ring);
        own.push_back(&ring);
      }
      EXPECT_TRUE(four_connected(fill(own, width, height), width, height))
          << "label " << l << ": a polygon whose pixels are not 4-connected";
      // Every hole lies inside its polygon's exterior: filling the exterior alone covers the hole's pixels.
      std::vector<char> const exterior = fill({&polygon.rings[0]}, width, height);
      for (std::size_t r = 1; r < polygon.rings.size(); ++r) {
        std::vector<char> const hole = fill({&polygon.rings[r]}, width, height);
        for (std::size_t i = 0; i < hole.size(); ++i) {
          if (hole[i]) {
            EXPECT_TRUE(exterior[i]) << "label " << l << ": a hole outside its exterior";
          }
        }
      }
    }
    std::vector<char> const inside = fill(rings, width, height);
    index_t area = 0, wrong = 0, first_wrong = -1;
    for (index_t y = 0; y < height; ++y)
      for (index_t x = 0; x < width; ++x) {
        bool const is = labels(y, x) == Label(l);
        area += is;
        if (bool(inside[std::size_t(y * width + x)]) != is && wrong++ == 0) first_wrong = y * width + x;
      }
    EXPECT_EQ(wrong, 0) << "label " << l << ": pixels filled wrongly, the first at " << first_wrong % width << ","
                        << first_wrong / width;
    EXPECT_EQ(twice_area, 2 * area) << "label " << l;
    polygons.push_back(outline.polygons.size());
  }
  return polygons;
}

TEST(Outlines, DiagonalTouchesGiveValidPolygonsThatTouchAtTheCorner) {
  // 1 on a diagonal pair: two polygons touching at the corner (one would be a figure eight).
  HostImage<Label> const pair = image_of(4, 3,
                                         {0, 0, 0, 0,  //
                                          0, 1, 0, 0,  //
                                          0, 0, 1, 0});
  EXPECT_EQ(check_outlines(pair, 1), std::vector<std::size_t>{2});
  // A ring of 1 around a hole whose only pixel touches the outside at a corner: one polygon, its
  // exterior and a hole touching it at that corner (one ring there would pass the corner twice).
  HostImage<Label> const pinched = image_of(5, 5, {0, 0, 0, 0, 0,  //
                                                   0, 1, 1, 1, 0,  //
                                                   0, 1, 0, 1, 0,  //
                                                   0, 1, 1, 0, 0,  //
                                                   0, 0, 0, 0, 0});
  EXPECT_EQ(check_outlines(pinched, 1), std::vector<std::size_t>{1});
  EXPECT_EQ(trace_outlines(pinched, 1)[0].polygons[0].rings.size(), 2u);
  // Two holes of one piece meeting at a corner: two holes touching there.
  HostImage<Label> const holes = image_of(6, 6, {1, 1, 1, 1, 1, 1,  //
                                                 1, 0, 0, 1, 1, 1,  //
                                                 1, 0, 0, 1, 1, 1,  //
                                                 1, 1, 1, 0, 0, 1,  //
                                                 1, 1, 1, 0, 0, 1,  //
                                                 1, 1, 1, 1, 1, 1});
  EXPECT_EQ(check_outlines(holes, 1), std::vector<std::size_t>{1});
  EXPECT_EQ(trace_outlines(holes, 1)[0].polygons[0].rings.size(), 3u);
  // The same piece pinched twice, with an island of itself in the hole touching it at a corner.
  HostImage<Label> const twice = image_of(7, 7, {0, 0, 0, 0, 0, 0, 0,  //
                                                 0, 1, 1, 1, 1, 0, 0,  //
                                                 0, 1, 0, 0, 1, 0, 0,  //
                                                 0, 1, 0, 1, 0, 1, 0,  //
                                                 0, 1, 1, 0, 1, 1, 0,  //
                                                 0, 0, 0, 1, 1, 0, 0,  //
                                                 0, 0, 0, 0, 0, 0, 0});
  check_outlines(twice, 1);
}

TEST(Outlines, HolesIslandsAndBordersAreExact) {
  // Nested squares: 1 with a hole holding 2, which holds a hole holding an island of 1 again;
  // label 3 along the image's border.
  index_t const n = 15;
  std::vector<Label> values(std::size_t(n * n), 0);
  for (index_t y = 0; y < n; ++y)
    for (index_t x = 0; x < n; ++x) {
      index_t const ring = std::min(std::min(x, y), std::min(n - 1 - x, n - 1 - y));
      values[std::size_t(y * n + x)] = ring == 0 ? 3 : ring <= 2 ? 1 : ring <= 4 ? 2 : ring == 5 ? 0 : 1;
    }
  HostImage<Label> const nested = image_of(n, n, values);
  std::vector<std::size_t> const polygons = check_outlines(nested, 3);
  EXPECT_EQ(polygons, (std::vector<std::size_t>{2, 1, 1})) << "the island of 1 is a polygon of its own";
  // Label 1 holding label 2 holding label 1: the island's polygon has no hole, the outer one has one.
  OutlineParams params;
  std::vector<RegionOutline> const outlines = trace_outlines(nested, 3, params);
  EXPECT_EQ(outlines[0].polygons[0].rings.size() + outlines[0].polygons[1].rings.size(), 3u);
}

TEST(Outlines, CheckerboardsCorridorsAndRandomLabelMaps) {
  // A checkerboard of one label (one region under 8-connectivity): one polygon a pixel, each
  // touching its diagonal neighbours at their corners.
  index_t const n = 9;
  std::vector<Label> board(std::size_t(n * n));
  for (index_t y = 0; y < n; ++y)
    for (index_t x = 0; x < n; ++x) board[std::size_t(y * n + x)] = (x + y) % 2 == 0 ? 1 : 0;
  EXPECT_EQ(check_outlines(image_of(n, n, board), 1), std::vector<std::size_t>{41});
  // Two labels on the two colours of a checkerboard.
  for (auto& v : board) v = v == 1 ? 1 : 2;
  check_outlines(image_of(n, n, board), 2);
  // A serpentine corridor: full rows every fourth row, joined at alternate ends.
  index_t const s = 21;
  std::vector<Label> serpentine(std::size_t(s * s), 0);
  for (index_t y = 0; y < s; ++y)
    for (index_t x = 0; x < s; ++x)
      serpentine[std::size_t(y * s + x)] = y % 4 == 0 || (y % 8 < 4 ? x == s - 1 : x == 0);
  EXPECT_EQ(check_outlines(image_of(s, s, serpentine), 1), std::vector<std::size_t>{1});
  // Random label maps: blobs of up to 6 labels at several densities, and salt (many diagonal
  // touches, pinches and holes meeting at corners).
  std::mt19937 random(3);
  for (int trial = 0; trial < 200; ++trial) {
    index_t const w = 5 + index_t(random() % 40), h = 5 + index_t(random() % 30);
    Label const labels = 1 + Label(random() % 6);
    std::vector<Label> values(std::size_t(w * h));
    for (auto& v : values) v = random() % 3 == 0 ? 0 : 1 + Label(random() % labels);
    if (trial % 2 == 0)  // smoother: each pixel copies its upper or left neighbour most of the time
      for (index_t yy = 0; yy < h; ++yy)
        for (index_t xx = 0; xx < w; ++xx)
          if (random() % 4 != 0 && (xx > 0 || yy > 0))
            values[std::size_t(yy * w + xx)] = xx > 0 && (yy == 0 || random() % 2)
                                                   ? values[std::size_t(yy * w + xx - 1)]
                                                   : values[std::size_t((yy - 1) * w + xx)];
    check_outlines(image_of(w, h, values), index_t(labels));
  }
}

TEST(Outlines, SimplifiedRingsKeepTheirShapeWithinTheTolerance) {
  // A disk: simplified at 1 pixel, fewer vertices, every kept vertex one of the exact ring's, and
  // the area within a few percent.
  index_t const n = 64;
  std::vector<Label> disk(std::size_t(n * n));
  for (index_t y = 0; y < n; ++y)
    for (index_t x = 0; x < n; ++x)
      disk[std::size_t(y * n + x)] = (x - 31.5) * (x - 31.5) + (y - 31.5) * (y - 31.5) < 900;
  HostImage<Label> const image = image_of(n, n, disk);
  OutlineParams exact, rough;
  rough.simplify = 1.0;
  OutlineRing const all = trace_outlines(image, 1, exact)[0].polygons[0].rings[0];
  OutlineRing const few = trace_outlines(image, 1, rough)[0].polygons[0].rings[0];
  EXPECT_LT(few.size() * 2, all.size());
  EXPECT_GE(few.size(), 5u);
  EXPECT_NEAR(double(few.twice_area()) / double(all.twice_area()), 1.0, 0.03);
  for (std::size_t i = 0; i < few.size(); ++i) {
    bool found = false;
    for (std::size_t j = 0; j < all.size() && !found; ++j)
      found = all.xy[2 * j] == few.xy[2 * i] && all.xy[2 * j + 1] == few.xy[2 * i + 1];
    EXPECT_TRUE(found);
  }
  OutlineParams bad;
  bad.simplify = -1;
  EXPECT_THROW(trace_outlines(image, 1, bad), Error);
  EXPECT_THROW(trace_outlines(image, 0, exact), Error) << "a label above the count";
}

}  // namespace
}  // namespace gigaseg
