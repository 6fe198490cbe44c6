#!/usr/bin/env bash
# On the GPU machine: ranks sharing its GPU (packed MPI build: GIGASEG_PACK="tests/gigaseg_tests
# apps/gigaseg perf/tiled_mosaic" bash scripts/pack-device.sh build/cuda-bench, built with
# -DGIGASEG_ENABLE_MPI=ON; OpenMPI's runtime travels in .devbuild/mpi, scripts/device-mpi-env.sh).
#   1. the process-group and tile-engine tests (TESTS=0 leaves them out), and tests/mpi/test_mpi.sh
#      with this CUDA build;
#   2. `segment --pipeline nuclei` and `edt` (of its mask) on a SIZE x SIZE (default 20000)
#      4096-tiled BigTIFF of synthetic tissue, with --tile TILE (default 4096x4096) and --backend cuda:
#      one process, then 1, 2 and 4 ranks (mpirun -n R, every rank on GPU 0), RUNS times each
#      (default 3), alternating; each output compared with the single process's, byte for byte;
#      wall times and their medians in $OUT, each run's --json report in WORK. The ranks run with
#      MPIRUN_ARGS (default --bind-to none: mpirun would otherwise bind each of 1 or 2 ranks to one
#      core, and the tool then runs that rank on one host thread).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dev=$root/.devbuild
out=${OUT:-$root/device-out}
work=${WORK:-/tmp/gigaseg-mpi}
size=${SIZE:-20000}
tile=${TILE:-4096x4096}
runs=${RUNS:-3}
mkdir -p "$out" "$work"
# shellcheck source=/dev/null
source "$root/scripts/device-mpi-env.sh"
export LD_LIBRARY_PATH=$dev/lib:$LD_LIBRARY_PATH GIGASEG_TEST_DATA=$root/tests/data
gigaseg=$dev/gigaseg
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nproc) cores, $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader)"
mpirun --version | head -1
if [ "${TESTS:-1}" = 1 ]; then
  "$dev/gigaseg_tests" --gtest_filter='ProcessGroup*:Tiled/Cuda.*:Tiled/OpenMP.*Label*:Distance/Cuda.Band*' 2>&1 |
    tail -3
  bash "$root/tests/mpi/test_mpi.sh" "$gigaseg" 2>&1 | grep -E "^FAIL|^mpi:"
fi
[ -s "$work/tissue.tif" ] || "$dev/tiled_mosaic" "$work/tissue.tif" "$size" "$size" tissue >/dev/null
"$gigaseg" --backend cuda threshold "$work/tissue.tif" "$work/mask.tif" --method otsu --tile "$tile" >/dev/null
mpirun -n 2 "$gigaseg" info | tail -4
# run LABEL RANKS ARGS...: one run (RANKS 0: without mpirun), wall seconds to $out/times.txt.
run() {
  local label=$1 ranks=$2
  shift 2
  local launch=()
  # shellcheck disable=SC2206
  [ "$ranks" -gt 0 ] && launch=(mpirun ${MPIRUN_ARGS:---bind-to none} -n "$ranks")
  sync
  local start end
  start=$(date +%s.%N)
  "${launch[@]}" "$gigaseg" --backend cuda --json "$@" >"$work/$label.json" 2>"$work/$label.err"
  local rc=$?
  end=$(date +%s.%N)
  echo "$label $(python3 -c "print(round($end - $start, 3))") $rc" | tee -a "$out/times.txt"
}
for op in nuclei edt; do
  for k in $(seq "$runs"); do
    for ranks in 0 1 2 4; do
      if [ "$op" = nuclei ]; then
        run "$op-r$ranks-$k" "$ranks" segment "$work/tissue.tif" "$work/$op-r$ranks.tif" --pipeline nuclei \
          --stats "$work/$op-r$ranks.csv" --tile "$tile"
      else
        run "$op-r$ranks-$k" "$ranks" edt "$work/mask.tif" "$work/$op-r$ranks.tif" --tile "$tile"
      fi
    done
  done
  for ranks in 1 2 4; do
    if cmp -s "$work/$op-r0.tif" "$work/$op-r$ranks.tif"; then same=identical; else same=DIFFERENT; fi
    echo "$op: $ranks ranks against one process: $same"
  done
  # The host backend's single process, against the GPU's.
  if [ "$op" = nuclei ]; then
    "$gigaseg" --backend openmp segment "$work/tissue.tif" "$work/$op-host.tif" --pipeline nuclei --tile "$tile" \
      >/dev/null
  else
    "$gigaseg" --backend openmp edt "$work/mask.tif" "$work/$op-host.tif" --tile "$tile" >/dev/null
  fi
  if cmp -s "$work/$op-r0.tif" "$work/$op-host.tif"; then same=identical; else same=DIFFERENT; fi
  echo "$op: the host backend against the GPU: $same"
done
python3 - "$out/times.txt" <<'PY'
import collections, statistics, sys
walls = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, wall, rc = line.split()
    if rc == "0":
        walls[label.rsplit("-", 1)[0]].append(float(wall))
for op in ("nuclei", "edt"):
    base = statistics.median(walls[f"{op}-r0"])
    for ranks in (0, 1, 2, 4):
        w = walls[f"{op}-r{ranks}"]
        print(f"median {op} ranks {ranks}: {statistics.median(w):.2f} s ({len(w)} runs), "
              f"overhead against one process {statistics.median(w) / base:.3f}")
PY
