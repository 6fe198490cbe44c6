#!/usr/bin/python3
"""Region reads of a whole-slide image: gigaseg (perf/slide_read, through OpenSlide's C library)
against openslide-python's OpenSlide.read_region (Debian's python3-openslide), the same regions,
alternating, each side with its slide open before the runs. Medians of RUNS runs.

    /usr/bin/python3 perf/slide_read.py SLIDE_READ SLIDE OUT.json [--runs 5] [--threads 1 2]

Regions: 256^2, 1024^2 and 4096^2 at level 0 (4096^2 is the tile engine's tile), and 1024^2 at
level 1, each starting at the slide's middle. Every run of either side is a new process that opens
the slide and reads the region's first pixel before the timed read (untimed), so neither side
reads from OpenSlide's tile cache of an earlier run or from memory an earlier read left mapped; the
file is in the page cache for both. A second table reads as a tile engine does: one process per
side opens the slide and reads RUNS + 1 distinct regions of the size side by side, left to right;
the median of all but the first. openslide-python returns an RGBA PIL image
(read_region un-premultiplies); gigaseg composites over the background into RGB.
"""
import argparse
import json
import statistics
import subprocess
import sys

import openslide


PEER = """
import sys, time, openslide
slide, level, x, y, side = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
peer = openslide.OpenSlide(slide)
peer.read_region((x, y), level, (1, 1))
start = time.perf_counter()
peer.read_region((x, y), level, (side, side))
print(time.perf_counter() - start)
"""


def peer_time(slide, level, location, side):
    out = subprocess.run([sys.executable, "-c", PEER, slide, str(level), str(location[0]), str(location[1]), str(side)],
                         check=True, capture_output=True, text=True).stdout
    return float(out)


STREAM = """
import sys, time, openslide
slide, level, x, y, side, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
ds = float(sys.argv[7])
peer = openslide.OpenSlide(slide)
times = []
for k in range(runs + 1):
    start = time.perf_counter()
    peer.read_region((int(round((x + k * side) * ds)), int(round(y * ds))), level, (side, side))
    times.append(time.perf_counter() - start)
print(" ".join(str(t) for t in times[1:]))
"""


def gigaseg_times(program, slide, level, x, y, w, h, runs, threads, step=None):
    command = [program, slide, str(level), str(x), str(y), str(w), str(h), str(runs), str(threads)]
    if step is not None:
        command.append(str(step))
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["seconds"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("program")
    parser.add_argument("slide")
    parser.add_argument("output")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    peer = openslide.OpenSlide(args.slide)
    levels, downsamples = peer.level_dimensions, peer.level_downsamples
    peer.close()
    rows = []
    for level, side in ((0, 256), (0, 1024), (0, 4096), (1, 1024)):
        lw, lh = levels[level]
        x, y = lw // 2, lh // 2
        side = min(side, lw - x, lh - y)
        location = (int(round(x * downsamples[level])), int(round(y * downsamples[level])))
        peer_times, ours = [], {t: [] for t in args.threads}
        for _ in range(args.runs):
            peer_times.append(peer_time(args.slide, level, location, side))
            for t in args.threads:
                ours[t] += gigaseg_times(args.program, args.slide, level, x, y, side, side, 1, t)
        row = {"level": level, "region": side, "x": x, "y": y,
               "openslide_python_ms": statistics.median(peer_times) * 1e3}
        for t in args.threads:
            row[f"gigaseg_{t}_threads_ms"] = statistics.median(ours[t]) * 1e3
        # Distinct regions in one process (the first left out); x starts left enough for the row.
        sx = max(0, min(x, lw - (args.runs + 1) * side))
        if sx + (args.runs + 1) * side <= lw:
            out = subprocess.run([sys.executable, "-c", STREAM, args.slide, str(level), str(sx), str(y), str(side),
                                  str(args.runs), str(downsamples[level])],
                                 check=True, capture_output=True, text=True).stdout
            row["stream_openslide_python_ms"] = statistics.median(float(t) for t in out.split()) * 1e3
            for t in args.threads:
                times = gigaseg_times(args.program, args.slide, level, sx, y, side, side, args.runs + 1, t, side)
                row[f"stream_gigaseg_{t}_threads_ms"] = statistics.median(times[1:]) * 1e3
        rows.append(row)
        print(json.dumps(row), flush=True)
    regions = {f"level{r['level']}_{r['region']}": r for r in rows}
    json.dump({"slide": args.slide, "runs": args.runs, "openslide_python": openslide.__version__,
               "openslide": openslide.__library_version__, "regions": regions}, open(args.output, "w"), indent=2)


if __name__ == "__main__":
    sys.exit(main())
