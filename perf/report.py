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
