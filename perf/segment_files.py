#!/usr/bin/env python3
"""The command line from file to file on a large image, against OpenCV, and the demo.

  python3 perf/segment_files.py GIGASEG OUT.json [--size N] [--runs R] [--threads T] [--demo-runs D]

1. `gigaseg --json demo --size N` D times (default 3): wall time and stages; the first run's
   tissue.png becomes the input, converted to a 512 x 512-tiled TIFF (Deflate, the default).
2. `gigaseg --json segment big.tif labels.tif --pipeline nuclei --stats s.csv` with the CUDA
   backend (TIFF output Deflate, Zstd, uncompressed) and the OpenMP backend on T threads (Deflate),
   and perf/peers/opencv_segment_files.py (tifffile and OpenCV on T threads, uncompressed output),
   R runs each (default 5), alternating, every run a fresh process; the input stays in the page
   cache for every side.
Prints and stores the median wall time (process start to exit) and stages of each (gigaseg's start,
the read ahead of Kokkos's start where there is one, and the teardown from the end of the output
to the exit); checks that every gigaseg run wrote the same labels (decoded) and the same number of
regions.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def timed(command):
    """Runs `command`: its wall time (start to exit), its JSON report, and the milliseconds from its
    standard output's end (gigaseg closes it once the command is done) to its exit: the teardown."""
    os.sync()  # no run pays for the dirty pages of an earlier one
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as errors:  # a file: a full stderr pipe would stall the process
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True)
        out = process.stdout.read()
        closed = time.perf_counter()
        process.wait()
        end = time.perf_counter()
        if process.returncode != 0:
            errors.seek(0)
            raise SystemExit(f"failed ({process.returncode}): {' '.join(command)}\n{errors.read()}")
    result = json.loads(out)
    result["teardown_ms"] = (end - closed) * 1e3
    return (end - start) * 1e3, result


def option(args, name, default):
    if name in args:
        i = args.index(name)
        value = args[i + 1]
        del args[i:i + 2]
        return type(default)(value)
    return default


def main():
    args = sys.argv[1:]
    size = option(args, "--size", 20000)
    runs = option(args, "--runs", 5)
    threads = option(args, "--threads", os.cpu_count())
    demo_runs = option(args, "--demo-runs", 3)
    cuda = option(args, "--cuda", 1)  # 0: the host cases only (a machine without a GPU)
    gigaseg, out_json = args
    peer = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers", "opencv_segment_files.py")
    work = tempfile.mkdtemp(prefix="gigaseg-files-")
    report = {"size": size, "runs": runs, "threads": threads, "demo": [], "segment": {}}

    for run in range(demo_runs):
        wall, result = timed([gigaseg, "--json", "demo", "--size", str(size), "--out", os.path.join(work, "demo")])
        stages = {k: round(v, 1) for k, v in result["timings_ms"].items()}
        report["demo"].append({"wall_ms": wall, "backend": result.get("backend"), "stages_ms": stages,
                               "components": result.get("components"),
                               "bytes": {name: os.path.getsize(os.path.join(work, "demo", name))
                                         for name in ("tissue.png", "labels.tif", "overlay.png")}})
        print(f"demo {size}: {wall:.0f} ms wall, backend {result.get('backend')}, stages {stages}", flush=True)
    source = os.path.join(work, "big.tif")
    subprocess.run([gigaseg, "--quiet", "convert", os.path.join(work, "demo", "tissue.png"), source,
                    "--tiff-tile", "512"], check=True)
    report["input_bytes"] = os.path.getsize(source)

    def ours(name, extra):
        return name, lambda tag: [gigaseg, "--json"] + extra + [
            "segment", source, os.path.join(work, f"{tag}.tif"), "--pipeline", "nuclei",
            "--stats", os.path.join(work, f"{tag}.csv")]

    cases = [
        ours("gigaseg cuda deflate", ["--backend", "cuda"]),
        ours("gigaseg cuda zstd", ["--backend", "cuda", "--compression", "zstd"]),
        ours("gigaseg cuda none", ["--backend", "cuda", "--compression", "none"]),
        ours(f"gigaseg openmp {threads} threads deflate", ["--backend", "openmp", "--threads", str(threads)]),
        ("opencv + tifffile", lambda tag: [sys.executable, peer, source, os.path.join(work, f"{tag}.tif"),
                                           os.path.join(work, f"{tag}.csv"), "--threads", str(threads)]),
    ]
    if not cuda:
        cases = [case for case in cases if " cuda " not in case[0]]
    rows = {name: [] for name, _ in cases}
    for run in range(runs):
        for index, (name, command) in enumerate(cases):
            tag = f"case{index}"
            for ext in (".tif", ".csv"):
                if os.path.exists(os.path.join(work, tag + ext)):
                    os.remove(os.path.join(work, tag + ext))
            wall, result = timed(command(tag))
            stages = result.get("timings_ms", result)
            rows[name].append({"wall": wall, **{k: stages.get(k) for k in ("read", "compute", "write")},
                               "start": stages.get("start", 0), "read_ahead": stages.get("read_ahead", 0),
                               "teardown": result["teardown_ms"],
                               "components": result.get("components"),
                               "bytes": os.path.getsize(os.path.join(work, tag + ".tif"))})
    for name, _ in cases:
        r = rows[name]
        median = {k: statistics.median(x[k] for x in r)
                  for k in ("wall", "read", "compute", "write", "start", "read_ahead", "teardown")}
        report["segment"][name] = {"median_ms": median, "all": r}
        print(f"{name:<34} wall {median['wall']:7.0f} ms (start {median['start']:.0f}, read {median['read']:.0f} "
              f"[ahead {median['read_ahead']:.0f}], compute {median['compute']:.0f}, write {median['write']:.0f}, "
              f"teardown {median['teardown']:.0f}); regions {r[0]['components']}, labels {r[0]['bytes']} bytes",
              flush=True)
    # The same labels from every gigaseg run: decoded through gigaseg to raw PGM-free bytes.
    decoded = []
    for index, (name, _) in enumerate(cases[:-1]):
        raw = os.path.join(work, f"case{index}.raw.tif")
        subprocess.run([gigaseg, "--quiet", "--compression", "none", "convert", os.path.join(work, f"case{index}.tif"),
                        raw], check=True)
        with open(raw, "rb") as f:
            decoded.append(hash(f.read()))
        os.remove(raw)
    report["gigaseg_outputs_identical"] = len(set(decoded)) == 1
    print("gigaseg outputs identical across backends and codecs:", report["gigaseg_outputs_identical"])
    json.dump(report, open(out_json, "w"), indent=1)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
