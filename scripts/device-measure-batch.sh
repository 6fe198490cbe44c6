#!/usr/bin/env bash
# On the H200 (after `GIGASEG_PACK="tests/gigaseg_tests apps/gigaseg perf/bench_crossover"
# scripts/pack-device.sh` here): issue 7's measurements and checks, summary in $OUT/report.txt.
#  - the whole test suite (every backend) and the CLI tests;
#  - out of device memory: `demo --size 100000` (exit 4, one line) and the allocation tests;
#  - the small-image crossover per operation family (perf/bench_crossover.cpp);
#  - batch throughput: 200 PNG images of 2048 x 2048 (ten synthetic tissues of `gigaseg demo`,
#    seeds 1..10, twenty copies each), cells pipeline, labels written as TIFF, run --sequential
#    (the baseline), then with the default overlap and with 1 and 4 streams; every run's labels
#    must equal the sequential run's;
#  - compute-sanitizer memcheck and racecheck over a small batch on 3 streams.
set -u
export LD_LIBRARY_PATH=$PWD/.devbuild/lib GIGASEG_TEST_DATA=$PWD/tests/data
G=$PWD/.devbuild/gigaseg
report=$OUT/report.txt
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
{
  echo "== device"; nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader; nproc
  echo "== unit tests, every backend"
  timeout 240 .devbuild/gigaseg_tests --gtest_brief=1 > "$OUT/unit.log" 2>&1; echo "rc=$?"
  grep -E "^\[  (PASSED|FAILED)|tests ran|Failure" "$OUT/unit.log" | head -20
  echo "== CLI"
  timeout 240 bash tests/cli/test_cli.sh "$G" > "$OUT/cli.log" 2>&1; echo "rc=$?"; grep FAIL "$OUT/cli.log" | head; tail -1 "$OUT/cli.log"
  echo "== out of device memory"
  "$G" --backend cuda demo --size 100000 --out /tmp/huge; echo "exit $?"; ls -d /tmp/huge 2>&1 | head -1
  "$G" info | grep -E "GPU|small-image"
  echo "== crossover"
  GIGASEG_CROSSOVER_JSON=$OUT/crossover.json timeout 240 .devbuild/bench_crossover
  echo "== batch: 200 images of 2048 x 2048"
  mkdir -p /tmp/b/in
  for s in 1 2 3 4 5 6 7 8 9 10; do
    "$G" --quiet --backend cuda demo --size 2048 --seed "$s" --out "/tmp/b/d$s"
    for k in $(seq -w 1 20); do cp "/tmp/b/d$s/tissue.png" "/tmp/b/in/t${s}_$k.png"; done
  done
  ls /tmp/b/in | wc -l; du -sh /tmp/b/in
  run() {  # run NAME ARGS...
    local name=$1; shift
    "$G" --json batch --pipeline cells --input /tmp/b/in --output "/tmp/b/$name" "$@" > "$OUT/batch-$name.json" 2> "$OUT/batch-$name.err"
    grep -m 3 ",error" "/tmp/b/$name/summary.csv"
    python3 - "$OUT/batch-$name.json" "$name" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError:
    sys.exit(f"{sys.argv[2]}: no JSON report")
w = d["work_ms"]
print(f"{sys.argv[2]:>10}: {d['seconds']:.2f} s, {d['images_per_second']:.1f} images/s, ok {d['ok']}, streams {d['streams']}, "
      f"readers {d['readers']}, backends {d['backends']}; work summed: decode {w['decode']/1e3:.2f} s, "
      f"segment {w['segment']/1e3:.2f} s, write {w['write']/1e3:.2f} s")
PY
  }
  run seq --sequential
  run overlap
  run streams1 --streams 1
  run streams4 --streams 4
  run overlap2
  run seq2 --sequential
  for name in overlap streams1 streams4; do
    bad=0
    for f in /tmp/b/seq/*.tif; do cmp -s "$f" "/tmp/b/$name/$(basename "$f")" || bad=$((bad + 1)); done
    echo "$name: $bad label images differ from the sequential run's"
  done
  echo "== compute-sanitizer over a batch on 3 streams (8 images of 1024 x 1024)"
  mkdir -p /tmp/s/in
  "$G" --quiet --backend cuda demo --size 1024 --out /tmp/s/d
  for k in 1 2 3 4 5 6 7 8; do cp /tmp/s/d/tissue.png "/tmp/s/in/t$k.png"; done
  for tool in memcheck racecheck; do
    timeout 200 "$SAN" --tool "$tool" --error-exitcode 9 "$G" --quiet --small-image-pixels 0 batch --pipeline cells \
      --input /tmp/s/in --output "/tmp/s/$tool" --streams 3 > "$OUT/san-$tool.log" 2>&1
    echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error|Race" "$OUT/san-$tool.log" | head -5
  done
} > "$report" 2>&1
cat "$report"
