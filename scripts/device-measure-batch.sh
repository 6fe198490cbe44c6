#!/usr/bin/env bash
# On the H200 (after `GIGASEG_PACK="tests/gigaseg_tests apps/gigaseg perf/bench_crossover"
# scripts/pack-device.sh` here): the batch measurements and checks, summary in $OUT/report.txt.
#  - the whole test suite (every backend) and the CLI tests (SUITE=0 skips them);
#  - out of device memory: `demo --size 100000` (exit 4, one line) and the allocation tests;
#  - the small-image crossover per operation family (perf/bench_crossover.cpp; CROSSOVER=0 skips it);
#  - batch throughput: 200 PNG images of 2048 x 2048 (ten synthetic tissues of `gigaseg demo`,
#    seeds 1..10, twenty copies each), cells pipeline, labels written as TIFF, run --sequential
#    (the baseline), then with the default overlap, with 1 and 4 streams and 4 and 12 readers
#    (SHORT=1: only 1 stream), both again; every run's labels must equal the sequential run's;
#  - compute-sanitizer memcheck and racecheck over a small batch on 2 and 3 streams (SANITIZE=0 skips
#    them, SAN_STREAMS="2" takes one stream count, SAN_TIMEOUT the seconds a run).
set -u
export LD_LIBRARY_PATH=$PWD/.devbuild/lib GIGASEG_TEST_DATA=$PWD/tests/data GIGASEG_PHOTOS=$PWD/.devbuild/photos
G=$PWD/.devbuild/gigaseg
report=$OUT/report.txt
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
{
  echo "== device"; nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader; nproc
  if [ "${SUITE:-1}" = 1 ]; then
    echo "== unit tests, every backend"
    timeout 240 .devbuild/gigaseg_tests --gtest_brief=1 > "$OUT/unit.log" 2>&1; echo "rc=$?"
    grep -E "^\[  (PASSED|FAILED)|tests ran|Failure" "$OUT/unit.log" | head -20
    echo "== CLI"
    timeout 240 bash tests/cli/test_cli.sh "$G" > "$OUT/cli.log" 2>&1; echo "rc=$?"; grep FAIL "$OUT/cli.log" | head; tail -1 "$OUT/cli.log"
    echo "== CLI, hostile user"
    timeout 300 bash tests/cli/test_hostile.sh "$G" > "$OUT/cli-hostile.log" 2>&1; echo "rc=$?"
    grep -E "FAIL|SKIP" "$OUT/cli-hostile.log" | head; tail -1 "$OUT/cli-hostile.log"
  fi
  echo "== out of device memory"
  "$G" --backend cuda demo --size 100000 --out /tmp/huge; echo "exit $?"; ls -d /tmp/huge 2>&1 | head -1
  "$G" info | grep -E "GPU|small-image"
  if [ "${CROSSOVER:-1}" = 1 ]; then
    echo "== crossover"
    GIGASEG_CROSSOVER_JSON=$OUT/crossover.json timeout 240 .devbuild/bench_crossover
  fi
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
      f"readers {d['readers']}, backends {d['backends']}, staged ahead {d.get('staged_ahead')}; work summed: "
      f"decode {w['decode']/1e3:.2f} s, segment {w['segment']/1e3:.2f} s, write {w['write']/1e3:.2f} s")
stages = d.get("segment_stages_ms", {})
print("            stages summed (s): " + ", ".join(f"{k} {v/1e3:.2f}" for k, v in sorted(stages.items(), key=lambda kv: -kv[1])))
PY
  }
  run seq --sequential
  run overlap
  run streams1 --streams 1
  if [ "${SHORT:-0}" = 1 ]; then
    names="overlap streams1"
  else
    run streams4 --streams 4
    run readers4 --readers 4
    run readers12 --readers 12
    names="overlap streams1 streams4 readers4 readers12"
  fi
  run overlap2
  run seq2 --sequential
  for name in $names; do
    bad=0
    for f in /tmp/b/seq/*.tif; do cmp -s "$f" "/tmp/b/$name/$(basename "$f")" || bad=$((bad + 1)); done
    echo "$name: $bad label images differ from the sequential run's"
  done
  if [ "${SANITIZE:-1}" = 1 ]; then
  echo "== compute-sanitizer over small batches (4 images of 512 x 512, 2 and 3 streams)"
  mkdir -p /tmp/s/in
  "$G" --quiet --backend cuda demo --size 512 --out /tmp/s/d
  for k in 1 2 3 4; do cp /tmp/s/d/tissue.png "/tmp/s/in/t$k.png"; done
  for tool in memcheck racecheck; do
    for streams in ${SAN_STREAMS:-2 3}; do
      timeout "${SAN_TIMEOUT:-150}" "$SAN" --tool "$tool" --error-exitcode 9 "$G" --quiet --small-image-pixels 0 batch \
        --pipeline cells --input /tmp/s/in --output "/tmp/s/$tool$streams" --streams $streams > "$OUT/san-$tool.log" 2>&1
      echo "$tool, $streams streams: rc=$?"
      grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/san-$tool.log"
      grep -E "^========= (Error|Warning)" "$OUT/san-$tool.log" | cut -c1-200 | sort | uniq -c | head -8
      grep -A1 -E "^========= Error" "$OUT/san-$tool.log" | head -6 | cut -c1-300
    done
  done
  fi
} > "$report" 2>&1
cat "$report"
