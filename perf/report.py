#!/usr/bin/env python3
"""Tables from a Google Benchmark JSON file: the median of each benchmark, its rate, and the
ratios docs/performance.md quotes (threshold against the device-to-device copy of the same size,
and the host-versus-GPU crossover that sets the small-image threshold)."""
import json
import sys

data = json.load(open(sys.argv[1]))
medians = {}
for b in data["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    name = b["run_name"]
    medians[name] = (b["real_time"], b.get("TB/s", 0.0))

print(f"{'benchmark':55s} {'median ms':>10s} {'TB/s':>8s}")
for name, (ms, tbs) in medians.items():
    print(f"{name:55s} {ms:10.4f} {tbs:8.3f}")

def find(prefix, arg):
    for name, value in medians.items():
        if name.startswith(prefix) and name.split("/")[1] == str(arg):
            return value
    return None

for side in (8192, 20000):
    t = find("BM_ThresholdNaive<Kokkos::Cuda>", side)
    c = find("BM_CudaMemcpyDeviceToDevice", side)
    if t and c:
        print(f"\n{side}x{side}: naive threshold {t[0]:.3f} ms ({t[1]:.3f} TB/s), "
              f"cudaMemcpy D2D {c[0]:.3f} ms ({c[1]:.3f} TB/s), threshold/copy rate ratio {t[1]/c[1]:.3f}")

crossover = None
for side in (32, 64, 128, 256, 512, 1024, 2048, 4096):
    g = find("BM_ThresholdCudaEndToEnd", side)
    h = find("BM_ThresholdHost", side)
    if g and h:
        print(f"{side:5d}^2 = {side*side:9d} px: host {h[0]:.4f} ms, GPU incl. transfers {g[0]:.4f} ms")
        if crossover is None and g[0] < h[0]:
            crossover = side * side
if crossover:
    print(f"GPU (with transfers) first beats the host at {crossover} pixels")

# Pixel operations (bench_pixel_ops): rates against the device-to-device copy of the same image.
copy = find("BM_CudaMemcpyDeviceToDevice", 20000)
if copy:
    print(f"\n20000x20000 cudaMemcpy D2D: {copy[0]:.4f} ms, {copy[1]:.3f} TB/s (read + written)")
    for name, (ms, tbs) in medians.items():
        if ("Kokkos::Cuda" in name or "Cub" in name) and "/20000" in name:
            print(f"  {name.split('/iterations')[0]:45s} {ms:8.4f} ms  {tbs:6.3f} TB/s  = {tbs/copy[1]:.3f} of the copy rate"
                  f"  ({copy[0]/ms:.3f} of the copy's speed in time)")
host_copy = find("BM_HostMemcpy", 8192)
if host_copy:
    print(f"\nhost memcpy 8192x8192: {host_copy[0]:.3f} ms")
    for name, (ms, tbs) in medians.items():
        if "DefaultHostExecutionSpace" in name and "/8192" in name:
            print(f"  {name.split('/iterations')[0]:55s} {ms:8.3f} ms = {host_copy[0]/ms:.3f} of memcpy (time of the same image)")
