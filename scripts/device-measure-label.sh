#!/usr/bin/env bash
# On the H200 (after scripts/pack-device.sh here): tests and sanitizers of the labelling, statistics
# and K-means kernels, bench_label and the K-means benchmarks, the CuPy and NPP peers in the same
# job, and per-kernel times from Nsight Compute. Everything readable goes to $OUT/report.txt; the
# benchmark JSON beside it. Used for docs/performance.md (pixel operations, labelling).
set -u
export SANITIZE=${SANITIZE:-1} PEERS=1 BENCHES='bench_label bench_pixel_ops' BENCH_FILTER='Cuda|Huge|KMeansPass'
export RACE_FILTER='LabelOnBackend/Cuda.Region*:LabelOnBackend/Cuda.AdversarialImages*:KMeansOnBackend/Cuda.Pitched*'
export MEMCHECK_FILTER='KMeansOnBackend/Cuda.*:LabelOnBackend/Cuda.*:-*TwentyRuns*'
mkdir -p /tmp/logs
OUT_FINAL=$OUT
OUT=/tmp/logs timeout 420 bash scripts/device-run.sh > /tmp/logs/run.log 2>&1
cp /tmp/logs/bench_label.json /tmp/logs/bench_pixel_ops.json "$OUT_FINAL/" 2>/dev/null
# The first hazards and errors in full, for a failing sanitizer run.
grep -m 60 -B2 -A12 "Race reported\|Error\|Invalid" /tmp/logs/racecheck.log /tmp/logs/memcheck.log > "$OUT_FINAL/sanitizer-detail.txt" 2>/dev/null
report=$OUT_FINAL/report.txt
{
  cat /tmp/logs/summary.txt
  grep -hE "^\[  FAILED|Failure|Expected|Which is|  Actual|ERROR SUMMARY|RACECHECK SUMMARY" /tmp/logs/unit-all.log /tmp/logs/memcheck.log /tmp/logs/racecheck.log | head -40
  python3 - <<'PY'
import json
for f in ('bench_label.json', 'bench_pixel_ops.json'):
    try:
        data = json.load(open('/tmp/logs/' + f))
    except OSError:
        continue
    for b in data['benchmarks']:
        if b.get('aggregate_name') == 'median':
            print(f"{b['run_name'][:62]:62s} {b['real_time']:9.4f} ms {b.get('label', '')} {b.get('components', '')} {b.get('device_GiB', '')}")
PY
  grep -h "cupy\|npp " /tmp/logs/cupy-label.log /tmp/logs/npp-label.log
} > "$report" 2>&1
export LD_LIBRARY_PATH=$PWD/.devbuild/lib
K='regex:local_kernel|flood_kernel|seam_kernel|flatten_kernel|number_kernel|DeviceScan|stats_kernel|kmeans_pass|cuda_parallel_launch'
summarise() { awk '/^  [a-zA-Z_v]/ {name = substr($0, 3, 70)} /gpu__time_duration/ {print "  " name " | min/max/avg " $2 ": " $3, $4, $5}'; }
for f in 'BM_Label<Kokkos::Cuda>/20000/0/1' 'BM_Label<Kokkos::Cuda>/20000/1/1' 'BM_RegionStats<Kokkos::Cuda>/20000/0/0' 'BM_RegionStats<Kokkos::Cuda>/20000/1/0'; do
  echo "== ncu $f" >> "$report"
  timeout 90 ncu --clock-control none -k "$K" --metrics gpu__time_duration.sum --launch-count 16 --print-summary per-kernel .devbuild/bench_label \
    --benchmark_filter="$f" 2>&1 | summarise >> "$report"
done
echo "== ncu K-means 10 iterations" >> "$report"
timeout 60 ncu --clock-control none -k "$K" --metrics gpu__time_duration.sum --launch-count 30 --print-summary per-kernel .devbuild/bench_pixel_ops \
  --benchmark_filter='BM_KMeans<Kokkos::Cuda>/2048/10/1' 2>&1 | summarise >> "$report"
cat "$report"
# Where the local pass (flood_kernel for plain masks) spends its time on the random mask: stall reasons, occupancy, scheduler.
{
  echo "== ncu flood_kernel, random mask, one launch: warp states, occupancy, scheduler"
  timeout 150 ncu --clock-control none -k regex:flood_kernel --launch-count 1 --section WarpStateStats \
    --section Occupancy --section SchedulerStats --section LaunchStats --section MemoryWorkloadAnalysis \
    .devbuild/bench_label --benchmark_filter='BM_Label<Kokkos::Cuda>/20000/0/1' 2>&1 | grep -v "^==PROF==" | tail -90
} > "$OUT_FINAL/ncu-local.txt" 2>&1
