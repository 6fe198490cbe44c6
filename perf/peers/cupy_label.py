"""CuPy peer for bench_label (cupyx.scipy.ndimage.label): the same two
20000 x 20000 masks as perf/bench_label.cpp (integer hashes, bit for bit), labelled with
cupyx.scipy.ndimage.label at 8-connectivity, median of events-timed runs after a warm-up; also the
device-to-device copy of the mask for scale. Prints one line a mask with the component count, so
the counts can be compared with gigaseg's.

    python3 perf/peers/cupy_label.py [side]
"""
import sys
import cupy as cp
import cupyx.scipy.ndimage as nd

from cupy_timing import bench  # this folder, the script's own


def mask(kind, side):
    y = cp.arange(side, dtype=cp.uint32)[:, None]
    x = cp.arange(side, dtype=cp.uint32)[None, :]
    if kind == "random":
        s = (y * cp.uint32(side) + x) * cp.uint32(2654435761)
        s ^= s >> cp.uint32(13)
        s *= cp.uint32(0x5BD1E995)
        s ^= s >> cp.uint32(15)
    else:
        s = (y // cp.uint32(24)) * cp.uint32(7919) + (x // cp.uint32(24)) * cp.uint32(104729)
        s ^= s >> cp.uint32(13)
        s *= cp.uint32(2654435761)
    return ((s >> cp.uint32(16)) & cp.uint32(1)).astype(cp.bool_)


side = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
structure = cp.ones((3, 3), dtype=cp.int32)
for kind in ("random", "blobs"):
    m = mask(kind, side)
    out = cp.empty_like(m)
    t_copy = bench(lambda: cp.copyto(out, m))
    labels, n = nd.label(m, structure=structure)
    t_label = bench(lambda: nd.label(m, structure=structure), 5)
    print(f"cupy {side}^2 {kind}: label {t_label:.3f} ms, components {int(n)}, copy {t_copy:.4f} ms", flush=True)
    del m, out, labels
    cp.get_default_memory_pool().free_all_blocks()
