"""CuPy peers for bench_filters, 20000 x 20000 8-bit noise: cupyx.scipy.ndimage
median_filter 3 and 5 (mode='nearest', as medianBlur's replicate border), sobel on float32 and
the magnitude (what `gigaseg sobel` returns), grey_erosion 3x3 and 31x31, and the device-to-device
copy of the image for scale. Median of events-timed runs after a warm-up.

    python3 perf/peers/cupy_filters.py [side]
"""
import sys
import cupy as cp
import cupyx.scipy.ndimage as nd

from cupy_timing import bench  # this folder, the script's own


side = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
img = cp.random.default_rng(1).integers(0, 256, size=(side, side), dtype=cp.uint8)
out = cp.empty_like(img)


def sobel_magnitude():
    f = img.astype(cp.float32)
    gx = nd.sobel(f, axis=1, mode='mirror')
    gy = nd.sobel(f, axis=0, mode='mirror')
    return cp.sqrt(gx * gx + gy * gy)


print(f"cupy copy {side}: {bench(lambda: out.__setitem__(Ellipsis, img)):.4f} ms", flush=True)
for k in (3, 5):
    print(f"cupy median_filter {k}x{k}: {bench(lambda: nd.median_filter(img, size=k, mode='nearest')):.4f} ms", flush=True)
print(f"cupy sobel magnitude (float32): {bench(sobel_magnitude):.4f} ms", flush=True)
for k in (3, 31):
    print(f"cupy grey_erosion {k}x{k}: {bench(lambda: nd.grey_erosion(img, size=(k, k))):.4f} ms", flush=True)
