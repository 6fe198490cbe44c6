#!/usr/bin/env bash
# On the GPU machine: runs the packed CUDA build (.devbuild/, see pack-device.sh) — the whole test
# suite on every backend, the CLI tests, `gigaseg info`, compute-sanitizer on the CUDA tests, and
# the foundation benchmark. Logs and JSON go to $OUT (or ./device-out).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dev=$root/.devbuild
out=${OUT:-$root/device-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$dev/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GIGASEG_TEST_DATA=$root/tests/data  # golden files (the tests were built with this machine's path)
export GIGASEG_PHOTOS=$dev/photos           # the cross-backend test's photographs (pack-device.sh)
summary=()
step() { # step NAME COMMAND...: runs it, logs to $out/NAME.log, records pass/fail
  local name=$1; shift
  echo "== $name"
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  tail -n 4 "$out/$name.log"
  summary+=("$name: $([ $rc -eq 0 ] && echo ok || echo "FAILED (exit $rc)")")
}
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
step unit-all env OMP_NUM_THREADS=2 "$dev/gigaseg_tests"
step unit-openmp-1thread env OMP_NUM_THREADS=1 "$dev/gigaseg_tests" --gtest_filter='*/OpenMP.*'
step cli bash "$dev/cli/test_cli.sh" "$dev/gigaseg"
step info "$dev/gigaseg" info
step info-json "$dev/gigaseg" --json info
if [ "${SANITIZE:-1}" = 1 ] && command -v compute-sanitizer >/dev/null; then
  step racecheck compute-sanitizer --tool racecheck --error-exitcode 9 "$dev/gigaseg_tests" --gtest_filter="${RACE_FILTER:-PixelOps/Cuda.Histogram*:KMeansOnBackend/Cuda.*:LabelOnBackend/Cuda.*}"
  step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 "$dev/gigaseg_tests" --gtest_filter="${MEMCHECK_FILTER:-*/Cuda.*:-*Huge*}"
fi
# Each benchmark program writes its JSON; report.py prints medians and the ratios to the peers.
# BENCHES names the programs to run (default all), BENCH_FILTER a --benchmark_filter regex.
for bench in "$dev"/bench_*; do
  [ -x "$bench" ] || continue
  name=$(basename "$bench")
  case " ${BENCHES:-$name} " in *" $name "*) ;; *) continue ;; esac
  step "$name" env OMP_NUM_THREADS=${BENCH_THREADS:-16} "$bench" --benchmark_out="$out/$name.json" \
    --benchmark_out_format=json ${BENCH_FILTER:+--benchmark_filter=$BENCH_FILTER}
  python3 "$dev/report.py" "$out/$name.json" | tee "$out/$name.txt"
done
# The labelling peers, on the same GPU in the same job (perf/peers/).
if [ "${PEERS:-0}" = 1 ]; then
  step cupy-label env PYTHONUNBUFFERED=1 python3 "$dev/peers/cupy_label.py"
  tail -n 3 "$out/cupy-label.log"
  if command -v nvcc >/dev/null; then
    step npp-build nvcc -O2 -std=c++20 -arch=sm_90 "$dev/peers/npp_label.cu" -o /tmp/npp_label -lnppif -lnppc -lnppial \
      -lnppist -lnppidei -lnppim
    step npp-label /tmp/npp_label
    tail -n 3 "$out/npp-label.log"
  fi
fi
cat "$out/info.log"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
