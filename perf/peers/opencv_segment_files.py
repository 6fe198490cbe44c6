#!/usr/bin/env python3
"""The file-to-file peer of `gigaseg segment IN.tif labels.tif --pipeline nuclei --stats s.csv`.

  python3 perf/peers/opencv_segment_files.py IN.tif LABELS.tif STATS.csv [--threads N] [--compress zlib]

Reads the image with tifffile (cv2.imread where tifffile is missing), takes Otsu's threshold of the
darker side and cv2.connectedComponentsWithStats (8-connectivity, 32-bit labels) on N OpenCV
threads, writes the labels as a 32-bit TIFF with tifffile (uncompressed unless --compress) and the
statistics as CSV. Prints one JSON line: read, compute, write and wall milliseconds, components.
"""
import json
import sys
import time

import cv2
import numpy as np

try:
    import tifffile
except ImportError:
    tifffile = None


def main():
    args = sys.argv[1:]
    threads, compress = 0, None
    if "--threads" in args:
        i = args.index("--threads")
        threads = int(args[i + 1])
        del args[i:i + 2]
    if "--compress" in args:
        i = args.index("--compress")
        compress = args[i + 1]
        del args[i:i + 2]
    source, labels_path, stats_path = args
    if threads:
        cv2.setNumThreads(threads)
    start = time.perf_counter()
    image = tifffile.imread(source) if tifffile else cv2.imread(source, cv2.IMREAD_GRAYSCALE)
    if image.ndim == 3:
        image = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    read = time.perf_counter()
    _, mask = cv2.threshold(image, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=cv2.CV_32S)
    computed = time.perf_counter()
    if tifffile:
        tifffile.imwrite(labels_path, labels.view(np.uint32), compression=compress)
    else:
        cv2.imwrite(labels_path, labels)
    table = np.column_stack([np.arange(1, n), stats[1:, cv2.CC_STAT_AREA], stats[1:, cv2.CC_STAT_LEFT],
                             stats[1:, cv2.CC_STAT_TOP], stats[1:, cv2.CC_STAT_LEFT] + stats[1:, cv2.CC_STAT_WIDTH] - 1,
                             stats[1:, cv2.CC_STAT_TOP] + stats[1:, cv2.CC_STAT_HEIGHT] - 1])
    with open(stats_path, "w") as out:
        out.write("label,area,x0,y0,x1,y1,cx,cy\n")
        np.savetxt(out, np.column_stack([table, centroids[1:]]), fmt=["%d"] * 6 + ["%.3f", "%.3f"], delimiter=",")
    done = time.perf_counter()
    print(json.dumps({"read": (read - start) * 1e3, "compute": (computed - read) * 1e3,
                      "write": (done - computed) * 1e3, "wall_in_process": (done - start) * 1e3,
                      "components": int(n - 1), "reader": "tifffile" if tifffile else "cv2"}))


if __name__ == "__main__":
    main()
