#!/usr/bin/env python3
"""The command line's `compute` stage against the library call it makes, on the host backend.

  python3 perf/cli_compute.py GIGASEG LIBRARY_CALL OUT.json [SIZE ...] [--runs N] [--threads T]

For each size (default 4096): the synthetic tissue of `gigaseg demo --size SIZE` (8-bit gray PNG)
and its Otsu mask; then threshold (Otsu), label, median 5, edt and the nuclei pipeline, --runs
times each (default 5), alternating:
  - `gigaseg --json --backend openmp --threads T ...`, a cold process: its `compute` stage
    (timings_ms), which is the operation from the decoded image to the result in host memory;
  - perf/library_call (perf/library_call.cpp), a cold process that reads the same image and calls
    the library 8 times: its first call (allocating the output, as the command does) and the
    median of the other 7 (the output reused: the library's own time in a warm process).
Reports the medians over the runs and the ratios of the command's compute to each.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

from demo_inputs import demo_inputs


def main():
    args = sys.argv[1:]
    runs, threads = 5, os.cpu_count()
    for name in ("--runs", "--threads"):
        if name in args:
            i = args.index(name)
            value = int(args[i + 1])
            del args[i:i + 2]
            if name == "--runs":
                runs = value
            else:
                threads = value
    gigaseg, library_call, out_json = args[:3]
    sizes = [int(s) for s in args[3:]] or [4096]
    work = tempfile.mkdtemp()
    results = []
    for size in sizes:
        folder = os.path.join(work, str(size))
        tissue, mask = demo_inputs(gigaseg, folder, size)
        out = os.path.join(folder, "out")
        cases = [
            ("threshold", tissue, ["threshold", tissue, out + ".png", "--method", "otsu"]),
            ("label", mask, ["label", mask, out + ".png"]),
            ("median", tissue, ["median", tissue, out + ".png", "--size", "5"]),
            ("edt", mask, ["edt", mask, out + ".tif"]),
            ("nuclei", tissue, ["segment", tissue, out + ".png", "--pipeline", "nuclei"]),
        ]
        for name, image, words in cases:
            command_ms, first_ms, warm_ms = [], [], []
            for _ in range(runs):
                done = subprocess.run([gigaseg, "--json", "--backend", "openmp", "--threads", str(threads)] + words,
                                      check=True, capture_output=True, text=True)
                command_ms.append(json.loads(done.stdout)["timings_ms"]["compute"])
                done = subprocess.run([library_call, name, image, "8", str(threads)], check=True,
                                      capture_output=True, text=True)
                seconds = json.loads(done.stdout)["seconds"]
                first_ms.append(seconds[0] * 1e3)
                warm_ms.append(statistics.median(seconds[1:]) * 1e3)
            row = {"size": size, "operation": name, "runs": runs, "threads": threads,
                   "command_compute_ms": statistics.median(command_ms),
                   "library_first_ms": statistics.median(first_ms),
                   "library_warm_ms": statistics.median(warm_ms),
                   "all": {"command_compute_ms": command_ms, "library_first_ms": first_ms,
                           "library_warm_ms": warm_ms}}
            row["ratio_to_warm"] = row["command_compute_ms"] / row["library_warm_ms"]
            row["ratio_to_first"] = row["command_compute_ms"] / row["library_first_ms"]
            results.append(row)
            print(f"{size:>6} {name:<10} command compute {row['command_compute_ms']:8.1f} ms  library first call "
                  f"{row['library_first_ms']:8.1f} ms, warm {row['library_warm_ms']:8.1f} ms  ratio to warm "
                  f"{row['ratio_to_warm']:.2f}, to first {row['ratio_to_first']:.2f}", flush=True)
    by_case = {}
    for r in results:
        by_case.setdefault(str(r["size"]), {})[r["operation"]] = {
            k: r[k] for k in ("command_compute_ms", "library_first_ms", "library_warm_ms", "ratio_to_warm",
                              "ratio_to_first")}
    json.dump({"runs": runs, "threads": threads, "median": by_case, "results": results}, open(out_json, "w"),
              indent=1)


if __name__ == "__main__":
    main()
