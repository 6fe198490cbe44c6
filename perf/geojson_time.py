#!/usr/bin/env python3
"""How long `--geojson` takes: tracing the outlines of a label image's regions and writing them.

Writes a SIZE x SIZE PGM of square blobs (1 to 4 pixels a side on an 8-pixel lattice, SIZE 3000:
140,625 regions), runs `gigaseg --json label BLOBS OUT.tif --stats S.csv --geojson G.geojson` RUNS
times and reads the `geojson` stage of each report (the outlines traced and the file written, after
the labels and statistics), with the file's size. Prints one JSON object.

    python3 perf/geojson_time.py GIGASEG OUT.json [--size 3000] [--runs 5]
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gigaseg")
    parser.add_argument("output")
    parser.add_argument("--size", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        size = args.size
        pixels = bytearray(size * size)
        r = random.Random(5)
        for cy in range(2, size - 3, 8):
            for cx in range(2, size - 3, 8):
                s = r.randint(1, 4)
                for y in range(cy, cy + s):
                    pixels[y * size + cx:y * size + cx + s] = b"\xff" * s
        blobs = os.path.join(work, "blobs.pgm")
        with open(blobs, "wb") as f:
            f.write(b"P5\n%d %d\n255\n" % (size, size) + bytes(pixels))
        runs = []
        for _ in range(args.runs):
            geojson = os.path.join(work, "g.geojson")
            out = subprocess.run([args.gigaseg, "--json", "label", blobs, os.path.join(work, "l.tif"), "--stats",
                                  os.path.join(work, "s.csv"), "--geojson", geojson], check=True, capture_output=True,
                                 text=True).stdout
            report = json.loads(out)
            runs.append({"components": report["components"], "geojson_ms": report["timings_ms"]["geojson"],
                         "timings_ms": report["timings_ms"], "geojson_bytes": os.path.getsize(geojson)})
    summary = {"size": args.size, "components": runs[0]["components"], "runs": len(runs),
               "median_geojson_ms": statistics.median(r["geojson_ms"] for r in runs),
               "geojson_bytes": runs[0]["geojson_bytes"]}
    with open(args.output, "w") as f:
        json.dump({"command": "python3 perf/geojson_time.py GIGASEG OUT.json --size %d --runs %d" % (args.size, args.runs),
                   "nproc": os.cpu_count(), "summary": summary, "runs": runs}, f, indent=1)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
