#!/usr/bin/python3
"""Agreement of gigaseg's watershed with skimage.segmentation.watershed on photographs.

For each of python3-skimage's sample photographs (camera, coins, moon, cell, astronaut, coffee,
ihc, chelsea; colour ones as BT.601 gray): the relief is the 8-bit Sobel magnitude (saturated at
255), which is full of plateaus; the markers are the darkest 5% of pixels as one marker and each
8-connected region of the brightest 5% as its own. Both tools flood the same relief and marker
files, 4- and 8-connected; the script prints the share of pixels with the same label. Where relief
values are distinct the two agree exactly (tests/test_watershed.cpp); on plateaus scikit-image
breaks ties by its heap's order, gigaseg by its documented rule (docs/architecture.md), so this
is the figure of how often those differ on real images.

  /usr/bin/python3 scripts/watershed-agreement.py build/openmp/apps/gigaseg [folder of photos]

Needs the Debian packages python3-skimage and python3-pil (the system Python).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image
from scipy import ndimage
from skimage import measure, segmentation


def gray_of(path):
    image = np.asarray(Image.open(path))
    if image.ndim == 3:
        rgb = image[..., :3].astype(np.float64)
        image = np.floor(0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2] + 0.5)
    return image.astype(np.uint8)


def main():
    gigaseg = sys.argv[1]
    folder = sys.argv[2] if len(sys.argv) > 2 else "/usr/lib/python3/dist-packages/skimage/data"
    names = ["camera", "coins", "moon", "cell", "astronaut", "coffee", "ihc", "chelsea"]
    work = tempfile.mkdtemp()
    print("| photograph | size | markers | 4-connected: same label | 8-connected: same label |")
    print("|---|---|---|---|---|")
    totals = {4: [0, 0], 8: [0, 0]}
    for name in names:
        gray = gray_of(os.path.join(folder, name + ".png"))
        g = gray.astype(np.float64)
        magnitude = np.hypot(ndimage.sobel(g, axis=1, mode="reflect"), ndimage.sobel(g, axis=0, mode="reflect"))
        relief = np.minimum(magnitude, 255).astype(np.uint8)
        dark, bright = np.percentile(gray, 5), np.percentile(gray, 95)
        markers = measure.label(gray > bright, connectivity=2).astype(np.int32) + 1
        markers[gray <= bright] = 0
        markers[gray <= dark] = 1
        count = int(markers.max())
        relief_path, markers_path = os.path.join(work, "relief.png"), os.path.join(work, "markers.png")
        Image.fromarray(relief).save(relief_path)
        Image.fromarray(markers.astype(np.uint16)).save(markers_path)
        row = [name, f"{gray.shape[1]} x {gray.shape[0]}", str(count)]
        for connectivity in (4, 8):
            ours_path = os.path.join(work, f"ours{connectivity}.png")
            subprocess.run([gigaseg, "--quiet", "watershed", relief_path, markers_path, ours_path,
                            "--connectivity", str(connectivity)], check=True)
            ours = np.asarray(Image.open(ours_path)).astype(np.int64)
            theirs = segmentation.watershed(relief, markers, connectivity=1 if connectivity == 4 else 2)
            same = int((ours == theirs).sum())
            totals[connectivity][0] += same
            totals[connectivity][1] += ours.size
            row.append(f"{same / ours.size:.2%} ({ours.size - same} pixels differ)")
        print("| " + " | ".join(row) + " |")
    print("| all | | | " + " | ".join(f"{totals[c][0] / totals[c][1]:.2%}" for c in (4, 8)) + " |")


if __name__ == "__main__":
    main()
