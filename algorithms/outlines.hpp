#pragma once
// The outlines of a label image's regions as polygons on pixel corners, for vector formats
// (GeoJSON: QuPath's and GIS tools' way of taking regions in). Pixel (x, y) covers the square
// [x, x+1] x [y, y+1], origin at the image's top left, so every vertex is a pixel corner with
// integer coordinates and the outline is exact: the pixels whose centres lie inside a region's
// polygons (even-odd, holes excluded) are the region's pixels, and the polygons' area is its area.
//
// Each region's boundary is followed along the pixel edges between it and any other label (or the
// image's border), with the region on the right in image coordinates (y down), so that exterior
// rings have positive shoelace area (counter-clockwise by the numbers: GeoJSON's right-hand rule)
// and holes negative. Vertices are kept only where the outline turns.
//
// The polygons are valid by the OGC simple-features rules (GEOS's is_valid), also where pixels of a
// region touch only at a corner (a 2 x 2 block with the region on one diagonal):
//  - a polygon is one 4-connected piece of the region: its interior is connected. A region whose
//    pieces meet only at corners (an 8-connected label) is a MultiPolygon of its pieces, which touch
//    at those corners;
//  - every ring passes each corner once. At a diagonal touch the tracing stays with the pixel it
//    follows (it never crosses to the other diagonal); a ring that still comes back to a corner (a
//    piece pinched there around a hole whose only way out is that corner, or two holes of a piece
//    meeting there) is split there into rings that touch at that point, an exterior and a hole or
//    two holes, as OGC allows.
// So the pixels whose centres lie inside a region's polygons (even-odd) are the region's pixels, its
// polygons' area is its area, and the rule does not depend on the connectivity the labels came from.
// Host code: tracing is a walk along each ring, O(pixels) for the image.
#include "gigaseg/algorithms/label_types.hpp"
#include "gigaseg/core/image.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace gigaseg {

// A closed ring of pixel corners: points[0] == points.back().
struct OutlineRing {
  std::vector<std::int64_t> xy;  // x0, y0, x1, y1, ...
  std::size_t size() const noexcept { return xy.size() / 2; }
  // Twice the signed area (shoelace): positive for an exterior ring, negative for a hole.
  std::int64_t twice_area() const noexcept;
};

// One polygon: its exterior ring, then its holes.
struct OutlinePolygon {
  std::vector<OutlineRing> rings;
};

// A region's polygons: one for each 4-connected piece of it, with the piece's holes (an island
// inside a hole is a polygon of its own).
struct RegionOutline {
  Label label = 0;
  std::vector<OutlinePolygon> polygons;
};

struct OutlineParams {
  // Douglas-Peucker tolerance in pixels (0: exact outlines). Simplified rings keep their first
  // vertex and never fall below four points; the area and the pixels inside then only approximate
  // the region's, and a simplified ring may cross another (validity is kept only by exact outlines).
  double simplify = 0;
};

// The outlines of the regions 1..count of `labels` (0: background, not traced), indexed by
// label - 1; a label with no pixels has no polygons. Labels above `count` are an Error(input)
// naming `labels`.
std::vector<RegionOutline> trace_outlines(ImageView<Label const, Kokkos::HostSpace> const& labels, index_t count,
                                          OutlineParams const& params = {});

}  // namespace gigaseg
