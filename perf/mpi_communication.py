#!/usr/bin/env python3
"""The bytes each rank sends, per distributed operation, against the image's size and the ranks.

Runs `gigaseg --json` under `mpirun -n R` on synthetic images (the demo's tissue, written as a
tiled TIFF) of each size, and reads each rank's `bytes_sent` and busy seconds from the report.
Prints one JSON object: per operation, size and rank count, every rank's bytes and the wall time.

    python3 perf/mpi_communication.py GIGASEG OUT.json --sizes 2048 4096 8192 --ranks 2 4 --tile 512 \
        [--operations label nuclei edt median cells]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

OPERATIONS = {
    "label": ["label", "{mask}", "{out}", "--connectivity", "8"],
    "nuclei": ["segment", "{image}", "{out}", "--pipeline", "nuclei", "--stats", "{csv}"],
    "edt": ["edt", "{mask}", "{out}"],
    "median": ["median", "{image}", "{out}", "--size", "5"],
    "cells": ["segment", "{image}", "{out}", "--pipeline", "cells", "--stats", "{csv}"],
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gigaseg")
    parser.add_argument("output")
    parser.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    parser.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--tile", type=int, default=512)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--operations", nargs="+", choices=sorted(OPERATIONS), default=list(OPERATIONS))
    args = parser.parse_args()
    mpirun = ["mpirun", "--oversubscribe", "--allow-run-as-root", "--mca", "btl", "self,vader"]
    results = []
    with tempfile.TemporaryDirectory() as work:
        for size in args.sizes:
            demo = os.path.join(work, f"demo{size}")
            subprocess.run([args.gigaseg, "demo", "--size", str(size), "--out", demo], check=True,
                           stdout=subprocess.DEVNULL)
            image = os.path.join(work, f"tissue{size}.tif")
            mask = os.path.join(work, f"mask{size}.tif")
            subprocess.run([args.gigaseg, "convert", os.path.join(demo, "tissue.png"), image, "--tiff-tile",
                            str(args.tile)], check=True, stdout=subprocess.DEVNULL)
            subprocess.run([args.gigaseg, "threshold", image, mask, "--method", "otsu", "--tile",
                            f"{args.tile}x{args.tile}"], check=True, stdout=subprocess.DEVNULL)
            for name in args.operations:
                template = OPERATIONS[name]
                for ranks in args.ranks:
                    out = os.path.join(work, f"{name}.tif")
                    command = [a.format(image=image, mask=mask, out=out, csv=os.path.join(work, "s.csv"))
                               for a in template]
                    start = time.monotonic()
                    run = subprocess.run(mpirun + ["-n", str(ranks), args.gigaseg, "--threads", str(args.threads),
                                                   "--json"] + command + ["--tile", f"{args.tile}x{args.tile}"],
                                         check=True, capture_output=True, text=True)
                    wall = time.monotonic() - start
                    report = json.loads(run.stdout)
                    shares = report["tiled"]["rank_shares"]
                    results.append({"operation": name, "size": size, "ranks": ranks, "tile": args.tile,
                                    "tiles": report["tiled"]["tiles"],
                                    "components": report.get("components"),
                                    "bytes_sent": [s["bytes_sent"] for s in shares],
                                    "pixels": [s["pixels"] for s in shares], "wall_seconds": wall})
                    print(f"{name:7s} {size:6d}^2 ranks {ranks}: bytes sent {results[-1]['bytes_sent']}",
                          file=sys.stderr)
    with open(args.output, "w") as f:
        json.dump({"command": " ".join(sys.argv), "results": results, "summary": summarise(results)}, f, indent=1)


def summarise(results):
    """summary[operation][size][ranks]: the most bytes one rank sent, all ranks' bytes, the wall time."""
    summary = {}
    for r in results:
        entry = summary.setdefault(r["operation"], {}).setdefault(str(r["size"]), {})
        entry[str(r["ranks"])] = {"max_bytes_sent": max(r["bytes_sent"]), "total_bytes_sent": sum(r["bytes_sent"]),
                                  "tiles": r["tiles"], "wall_seconds": r["wall_seconds"]}
    return summary


if __name__ == "__main__":
    main()
