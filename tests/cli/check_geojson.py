#!/usr/bin/env python3
"""Checks a GeoJSON of region outlines against the label image and statistics it came from.

    check_geojson.py LABELS.pgm OUTLINES.geojson STATS.csv [--simplified EXACT.geojson TOL] [--flat]

LABELS.pgm: the labels as a 16-bit (or 8-bit) binary PGM. Exact outlines (the default): each
feature's polygons, filled by a scanline (the pixels whose centres lie inside an odd number of the
feature's rings), are exactly the pixels of its label; the rings run along pixel edges, are closed,
the exterior first with positive shoelace area and holes negative; the polygons' area equals the
statistics' area, as do the feature's measurements; every geometry is valid for GEOS (shapely's
is_valid, with GEOS's reason when it is not). Each feature carries its label as properties "name"
(a string, QuPath's object name) and "label", no "id", and the statistics nested as QuPath's
"measurements" (--flat: each a property of its own). --simplified: the same structure, every vertex
on a pixel corner, each ring closed, and Douglas-Peucker's guarantee against the exact outlines of
the same labels (EXACT.geojson): every exact vertex lies within TOL of the simplified region's rings,
and no ring lost so many vertices that it falls below four points (validity is not asked of
simplified outlines). Exits 1 with the first difference.
"""
import csv
import json
import sys

from shapely.geometry import Point, shape
from shapely.validation import explain_validity


def read_pgm(path):
    data = open(path, "rb").read()
    fields, at = [], 0
    while len(fields) < 4:
        while data[at:at + 1].isspace():
            at += 1
        if data[at:at + 1] == b"#":
            at = data.index(b"\n", at)
            continue
        end = at
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[at:end])
        at = end
    at += 1
    assert fields[0] == b"P5", "a binary PGM"
    width, height, top = int(fields[1]), int(fields[2]), int(fields[3])
    size = 2 if top > 255 else 1
    raster = data[at:at + width * height * size]
    if size == 2:
        values = [raster[2 * i] << 8 | raster[2 * i + 1] for i in range(width * height)]
    else:
        values = list(raster)
    return width, height, values


def twice_area(ring):
    return sum(ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1] for i in range(len(ring) - 1))


def fail(message):
    print("check_geojson: " + message)
    sys.exit(1)


def main():
    labels_path, geojson_path, stats_path = sys.argv[1:4]
    simplified = "--simplified" in sys.argv[4:]
    if simplified:
        at = sys.argv.index("--simplified")
        exact = {f["properties"]["label"]: f for f in json.load(open(sys.argv[at + 1]))["features"]}
        tolerance = float(sys.argv[at + 2])
    flat = "--flat" in sys.argv[4:]
    width, height, labels = read_pgm(labels_path)
    stats = {int(row["label"]): row for row in csv.DictReader(open(stats_path))}
    collection = json.load(open(geojson_path))
    if collection.get("type") != "FeatureCollection":
        fail("not a FeatureCollection")
    pixels = {}
    for i, v in enumerate(labels):
        if v:
            pixels.setdefault(v, []).append(i)
    features = collection["features"]
    if sorted(f["properties"]["label"] for f in features) != sorted(pixels):
        fail("%d features for %d labels" % (len(features), len(pixels)))
    for feature in features:
        properties = feature["properties"]
        label = properties["label"]
        if "id" in feature or properties["name"] != str(label) or properties["objectType"] != "detection":
            fail("label %d: feature %r" % (label, {k: v for k, v in feature.items() if k != "geometry"}))
        measurements = properties if flat else properties["measurements"]
        if flat == ("measurements" in properties) or (not flat and measurements["label"] != label):
            fail("label %d: properties %r" % (label, properties))
        row = stats[label]
        for key in ("area", "x0", "y0", "x1", "y1", "perimeter"):
            if measurements[key] != int(row[key]):
                fail("label %d: measurement %s %r, the statistics say %s" % (label, key, measurements[key], row[key]))
        if not simplified and not shape(feature["geometry"]).is_valid:
            fail("label %d: invalid for GEOS: %s" % (label, explain_validity(shape(feature["geometry"]))))
        geometry = feature["geometry"]
        polygons = [geometry["coordinates"]] if geometry["type"] == "Polygon" else geometry["coordinates"]
        if geometry["type"] not in ("Polygon", "MultiPolygon") or (geometry["type"] == "MultiPolygon") != (len(polygons) > 1):
            fail("label %d: geometry %s of %d polygons" % (label, geometry["type"], len(polygons)))
        area2 = 0
        rings = []
        for polygon in polygons:
            for k, ring in enumerate(polygon):
                if ring[0] != ring[-1] or len(ring) < 4:
                    fail("label %d: a ring not closed or too short" % label)
                if any(not (isinstance(x, int) and isinstance(y, int)) for x, y in ring):
                    fail("label %d: a vertex off the pixel corners" % label)
                a = twice_area(ring)
                if (a > 0) != (k == 0):
                    fail("label %d: ring %d of a polygon has area %d (the exterior first, then holes)" % (label, k, a))
                area2 += a
                rings.append(ring)
        area = len(pixels[label])
        if simplified:
            # Douglas-Peucker keeps every dropped vertex within the tolerance of the chord that replaced it.
            boundary = shape(feature["geometry"]).boundary
            geometry = exact[label]["geometry"]
            points = [p for q in ([geometry["coordinates"]] if geometry["type"] == "Polygon" else geometry["coordinates"])
                      for r in q for p in r]
            far = max(boundary.distance(Point(p)) for p in points)
            if far > tolerance + 1e-9:
                fail("label %d: an exact vertex lies %g from the simplified outline, past %g" % (label, far, tolerance))
            continue
        if area2 != 2 * area:
            fail("label %d: polygon area %.1f, the region's %d" % (label, area2 / 2, area))
        # Scanline fill over the region's bounding box rows.
        inside = set()
        y0, y1 = int(row["y0"]), int(row["y1"])
        for y in range(y0, y1 + 1):
            crossings = []
            for ring in rings:
                for (xa, ya), (xb, yb) in zip(ring, ring[1:]):
                    if xa != xb and ya != yb:
                        fail("label %d: an edge off the pixel edges" % label)
                    if xa == xb and min(ya, yb) <= y < max(ya, yb):
                        crossings.append(xa)
            crossings.sort()
            for a, b in zip(crossings[0::2], crossings[1::2]):
                for x in range(a, b):
                    inside ^= {y * width + x}
        if inside != set(pixels[label]):
            wrong = sorted(inside.symmetric_difference(pixels[label]))[0]
            fail("label %d: the polygons fill pixel %d,%d wrongly" % (label, wrong % width, wrong // width))


if __name__ == "__main__":
    main()
