"""The inputs the command-line benchmarks share (perf/cli_vs_opencv.py, perf/cli_compute.py)."""
import os
import subprocess


def demo_inputs(gigaseg, folder, size):
    """The synthetic tissue of `gigaseg demo --size SIZE` (8-bit gray PNG) in `folder`, and its Otsu
    mask beside it: (tissue.png, mask.png)."""
    subprocess.run([gigaseg, "--quiet", "demo", "--size", str(size), "--out", folder], check=True)
    tissue, mask = os.path.join(folder, "tissue.png"), os.path.join(folder, "mask.png")
    subprocess.run([gigaseg, "--quiet", "threshold", tissue, mask, "--method", "otsu"], check=True,
                   capture_output=True)
    return tissue, mask
