#!/usr/bin/env bash
# On the H200 (after scripts/pack-device.sh here): the whole test suite and the CLI tests,
# compute-sanitizer memcheck and racecheck over the distance, markers, watershed and pipeline
# tests, bench_distance (EDT, watershed, the cells pipeline), `gigaseg demo` at 8192^2, and NPP's
# and CuPy's EDT on the same masks in the same job. Readable summary in $OUT/report.txt, benchmark
# JSON and logs beside it. Used for docs/performance.md (distance transform and watershed).
set -u
export SANITIZE=1 PEERS=0 BENCHES='bench_distance' BENCH_FILTER='Cuda'
export RACE_FILTER='Distance/Cuda.*:Markers/Cuda.*:WatershedOnBackend/Cuda.Golden*'
export MEMCHECK_FILTER='Distance/Cuda.*:Markers/Cuda.*:WatershedOnBackend/Cuda.Golden*:Pipelines/Cuda.*'
export GIGASEG_PEER_INPUTS=/tmp/peer-inputs
mkdir -p /tmp/logs "$GIGASEG_PEER_INPUTS"
OUT_FINAL=$OUT
OUT=/tmp/logs timeout 400 bash scripts/device-run.sh > /tmp/logs/run.log 2>&1
cp /tmp/logs/bench_distance.json /tmp/logs/bench_distance.log /tmp/logs/summary.txt /tmp/logs/run.log "$OUT_FINAL/" 2>/dev/null
grep -m 60 -B2 -A12 "Race reported\|Error\|Invalid" /tmp/logs/racecheck.log /tmp/logs/memcheck.log > "$OUT_FINAL/sanitizer-detail.txt" 2>/dev/null
nvcc -O2 -arch=sm_90 .devbuild/peers/npp_distance.cu -o /tmp/npp_distance -lnppif -lnppc > /tmp/logs/npp-build.log 2>&1
report=$OUT_FINAL/report.txt
{
  cat /tmp/logs/summary.txt
  grep -hE "^\[  FAILED|Failure|Expected|Which is|  Actual|ERROR SUMMARY|RACECHECK SUMMARY|^not ok|FAIL" /tmp/logs/unit-all.log /tmp/logs/cli.log /tmp/logs/memcheck.log /tmp/logs/racecheck.log | head -40
  tail -2 /tmp/logs/cli.log
  grep -h -A 30 "fatal signal" /tmp/logs/unit-all.log /tmp/logs/unit-openmp-1thread.log | head -40
  cat /tmp/logs/bench_distance.txt
  timeout 60 /tmp/npp_distance "$GIGASEG_PEER_INPUTS" 2>&1 || tail -5 /tmp/logs/npp-build.log
  PYTHONUNBUFFERED=1 timeout 90 python3 .devbuild/peers/cupy_distance.py "$GIGASEG_PEER_INPUTS" 2>&1 | tail -4
  LD_LIBRARY_PATH=.devbuild/lib timeout 120 .devbuild/gigaseg --backend cuda demo --size 8192 --out /tmp/demo 2>&1 | tail -16
  # Per-kernel times of the EDT at 20000^2 and of the pipeline at 4096^2, where nsys exists.
  if command -v nsys >/dev/null; then
    LD_LIBRARY_PATH=.devbuild/lib timeout 120 nsys profile -o /tmp/edt --force-overwrite true --stats=true \
      .devbuild/bench_distance --benchmark_filter='BM_DistanceTransform<Kokkos::Cuda>/20000|BM_CellsPipeline<Kokkos::Cuda>' 2>&1 |
      grep -A 25 "cuda_gpu_kern_sum" | cut -c1-220 | head -28
  fi
} > "$report" 2>&1
cat "$report"
