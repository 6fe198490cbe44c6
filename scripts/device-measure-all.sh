#!/usr/bin/env bash
# On the H200 (after scripts/pack-device.sh here): the CUDA figures of docs/performance.md with
# their peers in the same job, in two parts that each fit one device call.
#   PART=1: the whole test suite (every backend), the CLI checks, bench_label and the K-means and
#           histogram benchmarks of bench_pixel_ops, CuPy's and NPP's labelling.
#   PART=2: bench_filters and bench_distance, NPP's and CuPy's filters and distance transform.
# Benchmark JSON, peer logs and a summary go to $OUT.
set -u
part=${PART:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p /tmp/logs /tmp/peer-inputs
export SANITIZE=0 GIGASEG_PEER_INPUTS=/tmp/peer-inputs
OUT_FINAL=$OUT
if [ "$part" = 1 ]; then
  PEERS=1 BENCHES='bench_label bench_pixel_ops' BENCH_FILTER='Cuda' OUT=/tmp/logs timeout 540 \
    bash "$root/scripts/device-run.sh" > /tmp/logs/run.log 2>&1
  cp /tmp/logs/bench_label.json /tmp/logs/bench_pixel_ops.json /tmp/logs/cupy-label.log /tmp/logs/npp-label.log \
    "$OUT_FINAL/" 2>/dev/null
  {
    cat /tmp/logs/summary.txt
    grep -hE "^\[  FAILED|^\[  PASSED|tests ran" /tmp/logs/unit-all.log | head -20
    tail -2 /tmp/logs/cli.log
    cat /tmp/logs/bench_label.txt /tmp/logs/bench_pixel_ops.txt 2>/dev/null | grep -v '^$' | head -60
    tail -n 4 /tmp/logs/cupy-label.log /tmp/logs/npp-label.log
  } > "$OUT_FINAL/report.txt" 2>&1
else
  PEERS=0 BENCHES='bench_filters bench_distance' BENCH_FILTER='Cuda' OUT=/tmp/logs timeout 400 \
    bash "$root/scripts/device-run.sh" > /tmp/logs/run.log 2>&1
  cp /tmp/logs/bench_filters.json /tmp/logs/bench_distance.json "$OUT_FINAL/" 2>/dev/null
  nvcc -O2 -arch=sm_90 "$root/.devbuild/peers/npp_filters.cu" -o /tmp/npp_filters -lnppif -lnppim -lnppc > /tmp/logs/npp-build.log 2>&1
  nvcc -O2 -arch=sm_90 "$root/.devbuild/peers/npp_distance.cu" -o /tmp/npp_distance -lnppif -lnppc >> /tmp/logs/npp-build.log 2>&1
  {
    timeout 60 /tmp/npp_filters 2>&1 || tail -5 /tmp/logs/npp-build.log
    PYTHONUNBUFFERED=1 timeout 100 python3 "$root/.devbuild/peers/cupy_filters.py" 2>&1 | tail -8
    timeout 60 /tmp/npp_distance "$GIGASEG_PEER_INPUTS" 2>&1 || tail -5 /tmp/logs/npp-build.log
    PYTHONUNBUFFERED=1 timeout 90 python3 "$root/.devbuild/peers/cupy_distance.py" "$GIGASEG_PEER_INPUTS" 2>&1 | tail -4
  } > "$OUT_FINAL/peers.txt" 2>&1
  { cat /tmp/logs/summary.txt; cat /tmp/logs/bench_filters.txt /tmp/logs/bench_distance.txt 2>/dev/null | grep -v '^$' | head -80
    cat "$OUT_FINAL/peers.txt"; } > "$OUT_FINAL/report.txt" 2>&1
fi
cat "$OUT_FINAL/report.txt"
