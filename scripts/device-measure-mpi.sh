#!/usr/bin/env bash
# On the GPU machine: ranks sharing its GPU (packed MPI build: GIGASEG_PACK="tests/gigaseg_tests
# apps/gigaseg perf/tiled_mosaic" bash scripts/pack-device.sh build/cuda-bench, built with
# -DGIGASEG_ENABLE_MPI=ON; OpenMPI's runtime travels in .devbuild/mpi, scripts/device-mpi-env.sh).
#   1. the process-group and tile-engine tests (TESTS=0 leaves them out), and tests/mpi/test_mpi.sh
#      with this CUDA build;
#   2. the operations OPS (default "nuclei edt cells": `segment --pipeline nuclei`, `edt` of its
#      mask, `segment --pipeline cells`) on a SIZE x SIZE (default 20000) 4096-tiled BigTIFF of
#      synthetic tissue, with --tile TILE (default 4096x4096) and --backend cuda: one process, then
#      1, 2 and 4 ranks (mpirun -n R, every rank on GPU 0), RUNS times each (default 3),
#      alternating; each output (and statistics CSV) compared with the single process's, byte for
#      byte, and the host backend's single process (HOST_OPS, default "nuclei edt") with the GPU's;
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
ops=${OPS:-nuclei edt cells}
host_ops=${HOST_OPS:-nuclei edt}
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
# op_args OP OUTPUT: the arguments of operation OP writing OUTPUT (and OUTPUT's .csv where it has one).
op_args() {
  case $1 in
    nuclei | cells) echo segment "$work/tissue.tif" "$2" --pipeline "$1" --stats "${2%.tif}.csv" --tile "$tile" ;;
    edt) echo edt "$work/mask.tif" "$2" --tile "$tile" ;;
  esac
}
same() {
  if cmp -s "$1" "$2" && { [ ! -e "${1%.tif}.csv" ] || cmp -s "${1%.tif}.csv" "${2%.tif}.csv"; }; then
    echo identical
  else
    echo DIFFERENT
  fi
}
for op in $ops; do
  for k in $(seq "$runs"); do
    for ranks in 0 1 2 4; do
      # shellcheck disable=SC2046
      run "$op-r$ranks-$k" "$ranks" $(op_args "$op" "$work/$op-r$ranks.tif")
    done
  done
  for ranks in 1 2 4; do
    echo "$op: $ranks ranks against one process: $(same "$work/$op-r0.tif" "$work/$op-r$ranks.tif")"
  done
  if [[ " $host_ops " == *" $op "* ]]; then  # the host backend's single process, against the GPU's
    # shellcheck disable=SC2046
    "$gigaseg" --backend openmp $(op_args "$op" "$work/$op-host.tif") >/dev/null
    echo "$op: the host backend against the GPU: $(same "$work/$op-r0.tif" "$work/$op-host.tif")"
  fi
done
python3 - "$out/times.txt" "$ops" <<'PY'
import collections, statistics, sys
walls = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, wall, rc = line.split()
    if rc == "0":
        walls[label.rsplit("-", 1)[0]].append(float(wall))
for op in sys.argv[2].split():
    if not walls[f"{op}-r0"]:
        continue
    base = statistics.median(walls[f"{op}-r0"])
    for ranks in (0, 1, 2, 4):
        w = walls[f"{op}-r{ranks}"]
        print(f"median {op} ranks {ranks}: {statistics.median(w):.2f} s ({len(w)} runs), "
              f"overhead against one process {statistics.median(w) / base:.3f}")
PY
