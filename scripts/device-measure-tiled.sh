#!/usr/bin/env bash
# On the GPU machine: the tile engine on the GPU (packed build: GIGASEG_PACK="tests/gigaseg_tests
# apps/gigaseg perf/tiled_mosaic perf/tiff_equal" bash scripts/pack-device.sh build/cuda-bench).
#   1. the tile engine's tests and the labelling tests on every backend, and the CLI tests;
#   2. `segment --pipeline PIPELINE` (nuclei, the default, or cells) on a SIZE x SIZE (default
#      50000) 4096-tiled Deflate BigTIFF of
#      repeated and mirrored synthetic tissue, RUNS times (default 3) each, alternating, after
#      `sync`: in memory, and tile by tile under --memory-limit LIMIT (default 8G); wall time and
#      peak resident memory of each run, the --json report (stages, the tiled entry: busy time of
#      the read, compute and write stages, peak device memory); the labels and statistics of the
#      two compared;
#   3. with BIG (e.g. 100000): one tiled run at BIG x BIG with Zstd output, and its output's size.
#   STREAMS (default "2"): the tiled runs for each of these --tile-streams counts in turn (e.g.
#   "2 0": the tile engine's overlapped pinned transfers, and plain transfers), each output compared
#   with the in-memory one. COMPRESSION (default deflate) is the outputs' --compression.
#   The last tiled run is repeated on the host backend (HOST_RUN=, empty, leaves it out) and compared.
# MEMORY_RUN_LIMIT (e.g. 130G) raises the in-memory run's --memory-limit, whose default (3/4 of the
# GPU's free memory) would send an image that needs more to the tiles. SKIP_TESTS=1 leaves out step 1. Logs and reports go to $OUT (or ./device-out); the images to
# WORK (default /tmp/gigaseg-tiled).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dev=$root/.devbuild
out=${OUT:-$root/device-out}
work=${WORK:-/tmp/gigaseg-tiled}
size=${SIZE:-50000}
limit=${LIMIT:-8G}
runs=${RUNS:-3}
pipeline=${PIPELINE:-nuclei}
streams=${STREAMS:-2}
compression=${COMPRESSION:-deflate}
mkdir -p "$out" "$work"
export LD_LIBRARY_PATH=$dev/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GIGASEG_TEST_DATA=$root/tests/data
export GIGASEG_PHOTOS=$dev/photos
gigaseg=$dev/gigaseg
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB," \
  "$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader)"

# timed LABEL COMMAND...: wall seconds and peak resident MiB of the command (its children's
# rusage), its --json report kept as $out/LABEL.json; "LABEL WALL MIB" added to $out/times.txt.
timed() {
  local label=$1
  shift
  python3 - "$out" "$label" "$@" <<'EOF'
import resource, subprocess, sys, time
out, label = sys.argv[1], sys.argv[2]
start = time.time()
with open(f"{out}/{label}.json", "w") as report:
    rc = subprocess.run(sys.argv[3:], stdout=report).returncode
wall = time.time() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print(f"wall {wall:.2f} s, peak resident {peak} MiB, exit {rc}")
if rc == 0:
    with open(f"{out}/times.txt", "a") as times:
        times.write(f"{label} {wall:.2f} {peak}\n")
EOF
}
# median NAME LABEL-PREFIX: "median NAME: W s, M MiB (N runs)" over the runs whose label starts so.
median() {
  python3 - "$out/times.txt" "$1" "$2" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith(sys.argv[3])]
if rows:
    walls = [float(r[1]) for r in rows]
    print(f"median {sys.argv[2]}: {statistics.median(walls):.2f} s, {max(int(r[2]) for r in rows)} MiB ({len(rows)} runs)")
EOF
}
# summary LABEL: the stages and the tiled entry of $out/LABEL.json on one line.
summary() {
  python3 - "$out/$1.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
stages = {k: round(v) for k, v in r.get("timings_ms", r.get("stages_ms", {})).items()}
line = f"  components {r.get('components')}, stages ms {stages}"
t = r.get("tiled")
if t:
    busy = {k: round(v, 2) for k, v in t["busy_seconds"].items()}
    line += (f"; tiles {t['tiles']}, threads {t['threads']}, busy s {busy}, peak device "
             f"{t['peak_device_bytes'] / 2**30:.2f} GiB (budget {t['device_memory_budget_bytes'] / 2**30:.1f}),"
             f" peak resident {t['peak_resident_bytes'] / 2**30:.2f} GiB")
    if "rounds" in t:
        line += f", rounds {t['rounds']}"
    if "windows" in t:
        line += f", windows {t['windows']}"
    if "stage_seconds" in t:
        line += f", stage s {({k: round(v, 2) for k, v in t['stage_seconds'].items()})}"
print(line)
EOF
}

if [[ -z ${SKIP_TESTS:-} ]]; then
  echo "== tests"
  OMP_NUM_THREADS=4 "$dev/gigaseg_tests" \
    --gtest_filter='*Tiled*:TilePipeline*:*RegionStats*:*RegionTotals*:*Label*:*Renumber*:*Nuclei*:*Markers*:*Distance*:*Watershed*' \
    >"$out/tests.log" 2>&1
  echo "gigaseg_tests (tiled, labels, statistics, nuclei, markers, distance, watershed): exit $? ($(grep -c '^\[       OK' "$out/tests.log") ok," \
    "$(grep -c '^\[  FAILED  \] [A-Z]' "$out/tests.log") failed)"
  grep '^\[  FAILED  \] [A-Z]' "$out/tests.log" | head -20
  timeout 300 bash "$dev/cli/test_cli.sh" "$gigaseg" >"$out/cli.log" 2>&1
  echo "CLI tests: exit $? ($(tail -n 1 "$out/cli.log"))"
fi

"$gigaseg" demo --size 4096 --out "$work/tissue" >/dev/null || exit 2
image=$work/mosaic-$size.tif
start=$SECONDS
"$dev/tiled_mosaic" "$image" "$size" "$size" "photo:$work/tissue/tissue.png" || exit 2
echo "== ${size}x${size}: $(du -m "$image" | cut -f1) MB, made in $((SECONDS - start)) s"
echo "outputs: --compression $compression"
for run in $(seq "$runs"); do
  sync
  echo "memory run $run: $(timed "memory-$size-$run" "$gigaseg" --json --backend cuda --compression "$compression" \
    segment "$image" "$work/memory.tif" --pipeline "$pipeline" --stats "$work/memory.csv" \
    ${MEMORY_RUN_LIMIT:+--memory-limit "$MEMORY_RUN_LIMIT"})"
  summary "memory-$size-$run"
  for s in $streams; do
    sync
    echo "tiled --memory-limit $limit --tile-streams $s run $run: $(timed "tiled-s$s-$size-$run" "$gigaseg" --json \
      --backend cuda --compression "$compression" --tile-streams "$s" segment "$image" "$work/tiled-s$s.tif" \
      --pipeline "$pipeline" --stats "$work/tiled-s$s.csv" --memory-limit "$limit")"
    summary "tiled-s$s-$size-$run"
  done
done
median "$size in memory" "memory-$size-"
for s in $streams; do
  median "$size tiled --memory-limit $limit --tile-streams $s" "tiled-s$s-$size-"
  echo "labels, in memory and tiled (--tile-streams $s): $("$dev/tiff_equal" "$work/memory.tif" "$work/tiled-s$s.tif")"
  cmp -s "$work/memory.csv" "$work/tiled-s$s.csv" &&
    echo "statistics: equal ($(($(wc -l <"$work/tiled-s$s.csv") - 1)) regions)" || echo "statistics: DIFFER"
done
first=$(echo "$streams" | awk '{print $1}')
mv "$work/tiled-s$first.tif" "$work/tiled.tif"
mv "$work/tiled-s$first.csv" "$work/tiled.csv"
if [[ -n ${HOST_RUN-1} ]]; then  # the same tiles on the host backend: the same answer
  echo "tiled on the host (openmp): $(timed "host-$size" "$gigaseg" --json --backend openmp segment "$image" \
    "$work/host.tif" --pipeline "$pipeline" --stats "$work/host.csv" --memory-limit "$limit")"
  summary "host-$size"
  echo "labels, GPU and host: $("$dev/tiff_equal" "$work/tiled.tif" "$work/host.tif")"
  cmp -s "$work/host.csv" "$work/tiled.csv" && echo "statistics, GPU and host: equal" || echo "statistics: DIFFER"
fi
rm -f "$work/memory.tif" "$work/tiled.tif" "$work/tiled-s"*.tif "$work/host.tif" "$image"

if [[ -n ${BIG:-} ]]; then
  big=$work/mosaic-$BIG.tif
  start=$SECONDS
  "$dev/tiled_mosaic" "$big" "$BIG" "$BIG" "photo:$work/tissue/tissue.png" || exit 2
  echo "== ${BIG}x${BIG}: $(du -m "$big" | cut -f1) MB, made in $((SECONDS - start)) s; $(df -h "$work" | tail -1)"
  sync
  echo "tiled --memory-limit $limit, Zstd output: $(timed "tiled-$BIG" "$gigaseg" --json --backend cuda --compression zstd segment \
    "$big" "$work/big.tif" --pipeline "$pipeline" --stats "$work/big.csv" --memory-limit "$limit")"
  summary "tiled-$BIG"
  echo "output: $(du -m "$work/big.tif" | cut -f1) MB, $(($(wc -l <"$work/big.csv") - 1)) regions"
  rm -f "$work/big.tif" "$big"
fi
