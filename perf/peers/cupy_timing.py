"""Timing shared by the CuPy peers: the median of CUDA-event-timed runs after a warm-up."""
import cupy as cp
import numpy as np


def bench(f, n=7):
    f()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(n):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        f()
        e.record()
        e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))
