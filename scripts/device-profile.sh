#!/usr/bin/env bash
# On the H200 (after scripts/pack-device.sh here): per-kernel GPU times from Nsight Compute (ncu,
# --clock-control none so the clocks stay as they are) for the EDT at 20000^2 and for one run of
# the cells pipeline at 4096^2 (`gigaseg demo --size 4096`), and for the 31x31 rectangle
# erosion at 20000^2 (its two passes). Raw CSV in $OUT/ncu-*.csv; summarise
# here with `python3 scripts/ncu-summary.py FILE`.
set -u
export LD_LIBRARY_PATH=$PWD/.devbuild/lib
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
common=(--clock-control none --metrics gpu__time_duration.sum --csv --print-kernel-base mangled)
timeout 240 "$NCU" "${common[@]}" --launch-count 40 \
  .devbuild/bench_distance --benchmark_filter='BM_DistanceTransform<Kokkos::Cuda>/20000/0' \
  > "$OUT/ncu-edt.csv" 2> "$OUT/ncu-edt.err"
echo "edt rc=$?"
timeout 300 "$NCU" "${common[@]}" \
  .devbuild/gigaseg --backend cuda demo --size 4096 --out /tmp/demo \
  > "$OUT/ncu-demo.csv" 2> "$OUT/ncu-demo.err"
echo "demo rc=$?"
if [ -x .devbuild/bench_filters ]; then
  timeout 120 "$NCU" "${common[@]}" --launch-count 12 \
    .devbuild/bench_filters --benchmark_filter='BM_Erode<Kokkos::Cuda>/20000/31/1' \
    > "$OUT/ncu-erode.csv" 2> "$OUT/ncu-erode.err"
  echo "erode rc=$?"
fi
for f in "$OUT"/ncu-*.err; do tail -n 3 "$f"; done
