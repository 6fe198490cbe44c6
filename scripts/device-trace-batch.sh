#!/usr/bin/env bash
# On the H200 (after pack-device.sh, with .devbuild/libgigaseg_kokkos_trace.so): where the cells
# pipeline's host time goes in a batch, by Kokkos event and by the gaps between events
# (perf/tools/kokkos_trace.cpp): ten 2048 x 2048 tissues, --sequential, then two lanes.
set -u
export LD_LIBRARY_PATH=$PWD/.devbuild/lib
G=$PWD/.devbuild/gigaseg
mkdir -p /tmp/t/in
"$G" --quiet --backend cuda demo --size 2048 --seed 3 --out /tmp/t/d
for k in 0 1 2 3 4 5 6 7 8 9; do cp /tmp/t/d/tissue.png "/tmp/t/in/t$k.png"; done
for mode in --sequential "--streams 2"; do
  echo "== trace: batch $mode"
  KOKKOS_TRACE_TOP=${TOP:-30} KOKKOS_PROFILE_LIBRARY=$PWD/.devbuild/libgigaseg_kokkos_trace.so KOKKOS_TOOLS_LIBS=$PWD/.devbuild/libgigaseg_kokkos_trace.so \
    "$G" --json batch --pipeline cells --input /tmp/t/in --output "/tmp/t/o${mode// /}" $mode 2> /tmp/t/trace.txt > /tmp/t/batch.json
  python3 -c "import json; d=json.load(open('/tmp/t/batch.json')); print(d['seconds'], d['work_ms'], {k: round(v, 1) for k, v in d['segment_stages_ms'].items()})"
  grep -v "^[0-9]*/[0-9]* " /tmp/t/trace.txt | cut -c1-230
done
