#!/usr/bin/env python3
"""What each `--compression` costs in size and write time: the nuclei labels and the distances of a
large synthetic tissue image, written with each TIFF variant.

    python3 perf/tiff_defaults.py GIGASEG OUT.json [--size 20000] [--runs 3] [--inputs DIR]

Makes the tissue of `gigaseg demo --size SIZE` and its Otsu mask (perf/demo_inputs.py; in DIR, kept
and taken again where they are there already), then runs
`gigaseg --json --compression C segment tissue.png labels.tif --pipeline nuclei` and
`gigaseg --json --compression C edt mask.png distances.tif` for C in none, deflate (the default, no
predictor), deflate-predictor and zstd, RUNS times each, the variants alternating. Reports each
output's size and the median of its `write` stage (the output encoded on every core and stored,
timings_ms), and checks that every variant decodes to the same pixels (tifffile on the uncompressed
files; GDAL on the others, so imagecodecs is not needed). Prints one JSON object and writes it to OUT.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from demo_inputs import demo_inputs  # noqa: E402

VARIANTS = ["none", "deflate", "deflate-predictor", "zstd"]


def inputs(gigaseg, folder, size):
    """demo_inputs in `folder`, unless its tissue.png and mask.png are there already."""
    tissue, mask = os.path.join(folder, "tissue.png"), os.path.join(folder, "mask.png")
    if os.path.exists(tissue) and os.path.exists(mask):
        return tissue, mask
    os.makedirs(folder, exist_ok=True)
    return demo_inputs(gigaseg, folder, size)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gigaseg")
    parser.add_argument("output")
    parser.add_argument("--size", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--inputs")
    args = parser.parse_args()
    from osgeo import gdal
    import numpy as np
    gdal.UseExceptions()
    report = {"size": args.size, "runs": args.runs, "threads": os.cpu_count(), "outputs": {}}
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", "/tmp")) as work:
        tissue, mask = inputs(args.gigaseg, args.inputs or work, args.size)
        jobs = {
            "nuclei labels (32-bit)": ["segment", tissue, "OUT", "--pipeline", "nuclei"],
            "distances (float)": ["edt", mask, "OUT"],
        }
        for name, command in jobs.items():
            writes = {v: [] for v in VARIANTS}
            sizes, reference = {}, None
            for run in range(args.runs):
                for variant in VARIANTS:
                    out = os.path.join(work, "%s.tif" % variant)
                    argv = [args.gigaseg, "--json", "--compression", variant] + [out if a == "OUT" else a
                                                                               for a in command]
                    done = subprocess.run(argv, capture_output=True, text=True, check=True)
                    writes[variant].append(json.loads(done.stdout)["timings_ms"]["write"])
                    sizes[variant] = os.path.getsize(out)
                    if run == 0:
                        pixels = gdal.Open(out).ReadAsArray()
                        if reference is None:
                            reference = pixels
                        elif not np.array_equal(pixels, reference):
                            sys.exit("tiff_defaults: %s %s decodes to other pixels" % (name, variant))
                    print("%s %s run %d: write %.0f ms, %d bytes" % (name, variant, run, writes[variant][-1],
                                                                    sizes[variant]), flush=True)
            report["outputs"][name] = {
                v: {"bytes": sizes[v], "write_ms_median": statistics.median(writes[v]), "write_ms": writes[v]}
                for v in VARIANTS}
    text = json.dumps(report, indent=1)
    open(args.output, "w").write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
