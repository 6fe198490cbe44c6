#!/usr/bin/env python3
"""Whether every outline of a large segmentation is a valid geometry: the `nuclei` and `cells`
pipelines on the synthetic tissue of `gigaseg demo --size SIZE`, with `--stats` and `--geojson`,
every feature checked by shapely (GEOS `is_valid`, as QuPath's JTS and GDAL judge polygons).

    python3 perf/geojson_validity.py GIGASEG OUT.json [--size 20000] [--inputs DIR]

Reports, for each pipeline, the regions, the features, the MultiPolygons among them, the invalid
ones (with GEOS's first reasons), the file's size and the `geojson` stage's time (tracing the
outlines and writing them). Prints one JSON object and writes it to OUT.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tiff_defaults import inputs  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gigaseg")
    parser.add_argument("output")
    parser.add_argument("--size", type=int, default=20000)
    parser.add_argument("--inputs")
    args = parser.parse_args()
    from shapely.geometry import shape
    from shapely.validation import explain_validity
    report = {"size": args.size, "pipelines": {}}
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", "/tmp")) as work:
        tissue, _ = inputs(args.gigaseg, args.inputs or work, args.size)
        for pipeline in ("nuclei", "cells"):
            geojson, stats = os.path.join(work, pipeline + ".geojson"), os.path.join(work, pipeline + ".csv")
            done = subprocess.run([args.gigaseg, "--json", "segment", tissue, os.path.join(work, pipeline + ".tif"),
                                   "--pipeline", pipeline, "--stats", stats, "--geojson", geojson],
                                  capture_output=True, text=True, check=True)
            result = json.loads(done.stdout)
            features = json.load(open(geojson))["features"]
            invalid = []
            for feature in features:
                geometry = shape(feature["geometry"])
                if not geometry.is_valid:
                    invalid.append((feature["properties"]["label"], explain_validity(geometry)))
            report["pipelines"][pipeline] = {
                "regions": sum(1 for _ in open(stats)) - 1,
                "features": len(features),
                "multipolygons": sum(f["geometry"]["type"] == "MultiPolygon" for f in features),
                "invalid": len(invalid),
                "first_invalid": invalid[:5],
                "geojson_bytes": os.path.getsize(geojson),
                "geojson_ms": result["timings_ms"].get("geojson"),
                "wall_ms": result["timings_ms"],
            }
            print(pipeline, {k: v for k, v in report["pipelines"][pipeline].items() if k != "wall_ms"}, flush=True)
            del features
    text = json.dumps(report, indent=1)
    open(args.output, "w").write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
