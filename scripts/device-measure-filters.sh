#!/usr/bin/env bash
# On the H200 (after scripts/pack-device.sh here): the whole test suite, the CLI tests,
# compute-sanitizer memcheck and racecheck over the filter, morphology and convolution tests,
# bench_filters, and the CuPy and NPP filter peers in the same job. Readable summary in
# $OUT/report.txt, benchmark JSON beside it. Used for docs/performance.md (local filters).
set -u
export SANITIZE=1 PEERS=0 BENCHES='bench_filters' BENCH_FILTER='Cuda'
export RACE_FILTER='Filters/Cuda.Median*:Filters/Cuda.Sobel*:Morphology/Cuda.*'
export MEMCHECK_FILTER='Filters/Cuda.*:Convolve/Cuda.*:Morphology/Cuda.*'
mkdir -p /tmp/logs
OUT_FINAL=$OUT
OUT=/tmp/logs timeout 470 bash scripts/device-run.sh > /tmp/logs/run.log 2>&1
cp /tmp/logs/bench_filters.json /tmp/logs/summary.txt /tmp/logs/run.log "$OUT_FINAL/" 2>/dev/null
grep -m 60 -B2 -A12 "Race reported\|Error\|Invalid" /tmp/logs/racecheck.log /tmp/logs/memcheck.log > "$OUT_FINAL/sanitizer-detail.txt" 2>/dev/null
nvcc -O2 -arch=sm_90 .devbuild/peers/npp_filters.cu -o /tmp/npp_filters -lnppif -lnppim -lnppc > /tmp/logs/npp-build.log 2>&1
report=$OUT_FINAL/report.txt
{
  cat /tmp/logs/summary.txt
  grep -hE "^\[  FAILED|Failure|Expected|Which is|  Actual|ERROR SUMMARY|RACECHECK SUMMARY|^not ok|FAIL" /tmp/logs/unit-all.log /tmp/logs/cli.log /tmp/logs/memcheck.log /tmp/logs/racecheck.log | head -40
  tail -2 /tmp/logs/cli.log
  cat /tmp/logs/bench_filters.txt
  timeout 60 /tmp/npp_filters 2>&1 || tail -5 /tmp/logs/npp-build.log
  PYTHONUNBUFFERED=1 timeout 120 python3 .devbuild/peers/cupy_filters.py 2>&1 | tail -8
} > "$report" 2>&1
cat "$report"
