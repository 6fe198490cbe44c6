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
// and holes negative. Where two pixels of a region touch only at a corner (a 2 x 2 block with the
// region on one diagonal), connectivity 8 keeps them in one ring (the ring passes the corner
// twice) and connectivity 4 in two (rings that touch at the corner). Vertices are kept only where
// the outline turns. Host code: tracing is a walk along each ring, O(pixels) for the image.
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

// A region's polygons: one for a region that is connected under the connectivity traced, several
// for one that is not (its parts, each with its own holes; an island inside a hole is a polygon of
// its own).
struct RegionOutline {
  Label label = 0;
  std::vector<OutlinePolygon> polygons;
};

struct OutlineParams {
  int connectivity = 8;  // 4 or 8: the regions' connectivity at diagonal corners
  // Douglas-Peucker tolerance in pixels (0: exact outlines). Simplified rings keep their first
  // vertex and never fall below four points; the area and the pixels inside then only approximate
  // the region's.
  double simplify = 0;
};

// The outlines of the regions 1..count of `labels` (0: background, not traced), indexed by
// label - 1; a label with no pixels has no polygons. Labels above `count` are an Error(input)
// naming `labels`.
std::vector<RegionOutline> trace_outlines(ImageView<Label const, Kokkos::HostSpace> const& labels, index_t count,
                                          OutlineParams const& params = {});

}  // namespace gigaseg
