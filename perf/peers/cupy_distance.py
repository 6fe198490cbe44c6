"""CuPy peer for bench_distance: cupyx.scipy.ndimage.distance_transform_edt on the masks
bench_distance wrote (GIGASEG_PEER_INPUTS=DIR: DIR/cells_<side>.u8), float32 distances where this
CuPy allows it, median of 7 event-timed runs after a warm-up (cupy_timing.py)."""
import os
import sys

import cupy as cp
import numpy as np
from cupyx.scipy import ndimage

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cupy_timing import bench  # noqa: E402

folder = sys.argv[1] if len(sys.argv) > 1 else "."
for side in (20000, 4096):
    mask = cp.asarray(np.fromfile(os.path.join(folder, f"cells_{side}.u8"), dtype=np.uint8).reshape(side, side))
    try:
        run = lambda: ndimage.distance_transform_edt(mask, float64_distances=False)  # noqa: E731
        run()
        kind = "float32"
    except TypeError:
        run = lambda: ndimage.distance_transform_edt(mask)  # noqa: E731
        kind = "float64"
    ms = bench(run)
    print(f"cupy distance_transform_edt {side}x{side} ({kind}): {ms:.3f} ms (median of 7); max {float(run().max()):.3f}")
