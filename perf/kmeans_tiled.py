#!/usr/bin/env python3
"""The kmeans pipeline tile by tile against the same pipeline in memory, on one large colour image.

  python3 perf/kmeans_tiled.py GIGASEG OUT.json [--size N] [--runs R] [--tile T] [--backend B]

The image is `gigaseg demo --size N`'s overlay.png (the synthetic tissue with each region's
boundary in colour: an RGB image), converted to a 512 x 512-tiled TIFF. Then, R times each and
alternating: `gigaseg --json --backend B segment big.tif OUT.tif --pipeline kmeans --stats S.csv`
in memory, and the same with `--tile TxT`. Wall times (fresh processes, medians) and the reports'
stages and passes go to OUT.json; the two runs' labels (read back uncompressed) and statistics must
be equal, byte for byte, or the script fails.
"""
import filecmp
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def option(args, name, default):
    return type(default)(args[args.index(name) + 1]) if name in args else default


def main():
    args = sys.argv[1:]
    gigaseg, out_path = args[0], args[1]
    size = option(args, "--size", 20000)
    runs = option(args, "--runs", 3)
    tile = option(args, "--tile", 4096)
    backend = option(args, "--backend", "cuda")
    work = tempfile.mkdtemp(prefix="gigaseg-kmeans-tiled-")
    subprocess.run([gigaseg, "--quiet", "demo", "--size", str(size), "--out", os.path.join(work, "demo")], check=True)
    source = os.path.join(work, "big.tif")
    subprocess.run([gigaseg, "--quiet", "convert", os.path.join(work, "demo", "overlay.png"), source,
                    "--tiff-tile", "512"], check=True)
    report = {"size": size, "runs": runs, "tile": tile, "backend": backend, "input": "demo overlay.png (RGB)",
              "memory": [], "tiled": []}
    for run in range(runs):
        for mode in ("memory", "tiled"):
            labels, stats = os.path.join(work, f"{mode}.tif"), os.path.join(work, f"{mode}.csv")
            command = [gigaseg, "--json", "--backend", backend, "segment", source, labels, "--pipeline", "kmeans",
                       "--stats", stats]
            if mode == "tiled":
                command += ["--tile", f"{tile}x{tile}"]
            start = time.perf_counter()
            done = subprocess.run(command, check=True, capture_output=True, text=True)
            wall = (time.perf_counter() - start) * 1000
            result = json.loads(done.stdout)
            entry = {"wall_ms": wall, "timings_ms": result.get("timings_ms"), "components": result["components"],
                     "iterations": result.get("iterations"), "centres": result["centres"]}
            if mode == "tiled":
                entry["tiled"] = {k: result["tiled"].get(k) for k in ("tiles", "passes", "busy_seconds", "peak_resident_bytes", "peak_device_bytes")}
            report[mode].append(entry)
            print(f"{mode} run {run}: {wall:.0f} ms, {result['components']} components", flush=True)
    for mode in ("memory", "tiled"):
        subprocess.run([gigaseg, "--quiet", "--compression", "none", "convert", os.path.join(work, f"{mode}.tif"),
                        os.path.join(work, f"{mode}-plain.tif")], check=True)
    same_labels = filecmp.cmp(os.path.join(work, "memory-plain.tif"), os.path.join(work, "tiled-plain.tif"), False)
    same_stats = filecmp.cmp(os.path.join(work, "memory.csv"), os.path.join(work, "tiled.csv"), False)
    same_centres = report["memory"][0]["centres"] == report["tiled"][0]["centres"]
    report["same_labels"], report["same_stats"], report["same_centres"] = same_labels, same_stats, same_centres
    for mode in ("memory", "tiled"):
        report[f"{mode}_median_ms"] = statistics.median(r["wall_ms"] for r in report[mode])
    report["throughput_ratio"] = report["memory_median_ms"] / report["tiled_median_ms"]
    print(f"memory {report['memory_median_ms']:.0f} ms, tiled {report['tiled_median_ms']:.0f} ms: "
          f"tiled throughput {report['throughput_ratio']:.3f} of in-memory; labels equal {same_labels}, "
          f"statistics equal {same_stats}, centres equal {same_centres}", flush=True)
    with open(out_path, "w") as out:
        json.dump(report, out, indent=1)
    subprocess.run(["rm", "-rf", work])
    sys.exit(0 if same_labels and same_stats and same_centres else 1)


if __name__ == "__main__":
    main()
