#!/usr/bin/env python3
"""The command line against OpenCV, file to file, one cold process per run on each side.

  python3 perf/cli_vs_opencv.py GIGASEG OPENCV_PEER OUT.json [SIZE ...] [--runs N] [--threads T] [--only OP]

For each size (default 4096): the synthetic tissue of `gigaseg demo --size SIZE` (8-bit gray PNG)
and its Otsu mask; then threshold, label, median 5, edt (gigaseg's float TIFF as it writes it by default, and uncompressed as OpenCV writes it) and the nuclei pipeline with statistics,
run --runs times (default 5) as `gigaseg --json --backend openmp --threads T ...` and as
perf/opencv_cli_peer (perf/opencv_cli_peer.cpp: imread, OpenCV's operation, imwrite), alternating.
Reports the median wall time of each side (the process from start to exit) and of each one's
read / compute / write stages, the output sizes, and writes everything to OUT.json.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from demo_inputs import demo_inputs


def timed(command):
    # No run pays for the dirty pages of an earlier one: an fsync (gigaseg syncs each output before
    # renaming it) would otherwise write back whatever the previous process left in the page cache.
    os.sync()
    start = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return time.perf_counter() - start, done.stdout


def main():
    args = sys.argv[1:]
    runs, threads = 5, os.cpu_count()
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    if "--threads" in args:
        i = args.index("--threads")
        threads = int(args[i + 1])
        del args[i:i + 2]
    only = None
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1]
        del args[i:i + 2]
    gigaseg, peer, out_json = args[:3]
    sizes = [int(s) for s in args[3:]] or [4096]
    work = tempfile.mkdtemp()
    results = []
    for size in sizes:
        folder = os.path.join(work, str(size))
        tissue, mask = demo_inputs(gigaseg, folder, size)
        cases = [
            ("threshold", ["threshold", tissue, "{out}.png", "--method", "otsu"], ["threshold", tissue, "{out}.png"]),
            ("label", ["label", mask, "{out}.png"], ["label", mask, "{out}.png"]),
            ("median 5", ["median", tissue, "{out}.png", "--size", "5"], ["median", tissue, "{out}.png"]),
            ("edt", ["edt", mask, "{out}.tif"], ["edt", mask, "{out}.tif"]),
            # The same file on both sides: gigaseg's float TIFF uncompressed, as OpenCV writes it.
            ("edt_none", ["--compression", "none", "edt", mask, "{out}.tif"], ["edt", mask, "{out}.tif"]),
            ("nuclei + stats", ["segment", tissue, "{out}.png", "--pipeline", "nuclei", "--stats", "{out}.csv"],
             ["nuclei", tissue, "{out}.png", "{out}.csv"]),
        ]
        for name, ours, theirs in cases:
            if only and name.split()[0] != only:
                continue
            rows = {"gigaseg": [], "opencv": []}
            for run in range(runs):
                for side in ("gigaseg", "opencv"):
                    prefix = os.path.join(folder, f"{side}-{name.split()[0]}")
                    words = [w.replace("{out}", prefix) for w in (ours if side == "gigaseg" else theirs)]
                    command = ([gigaseg, "--json", "--backend", "openmp", "--threads", str(threads)] + words
                               if side == "gigaseg" else [peer] + words)
                    wall, stdout = timed(command)
                    stages = json.loads(stdout)
                    stages = stages.get("timings_ms", stages)
                    rows[side].append({"wall": wall * 1000, **{k: stages.get(k) for k in ("read", "compute", "write")}})
            output_bytes = {side: os.path.getsize(
                os.path.join(folder, f"{side}-{name.split()[0]}") + (".tif" if name.startswith("edt") else ".png"))
                for side in rows}
            medians = {side: {k: statistics.median(r[k] for r in rows[side]) for k in rows[side][0]}
                       for side in rows}
            results.append({"size": size, "operation": name, "runs": runs, "threads": threads,
                            "median_ms": medians, "output_bytes": output_bytes, "all_ms": rows})
            g, o = medians["gigaseg"], medians["opencv"]
            print(f"{size:>6} {name:<15} gigaseg {g['wall']:8.1f} ms (read {g['read']:.1f}, compute {g['compute']:.1f}, "
                  f"write {g['write']:.1f})  OpenCV {o['wall']:8.1f} ms (read {o['read']:.1f}, compute "
                  f"{o['compute']:.1f}, write {o['write']:.1f})  ratio {o['wall'] / g['wall']:.2f}  "
                  f"bytes {output_bytes['gigaseg']} / {output_bytes['opencv']}", flush=True)
    # Also by "SIZE.OPERATION.SIDE.STAGE" (perf/make_performance.py reads dotted keys): the medians.
    by_case = {}
    for r in results:
        by_case.setdefault(str(r["size"]), {})[r["operation"].split()[0]] = {
            **r["median_ms"], "bytes": r["output_bytes"]}
    json.dump({"runs": runs, "threads": threads, "median_ms": by_case, "results": results}, open(out_json, "w"),
              indent=1)


if __name__ == "__main__":
    main()
