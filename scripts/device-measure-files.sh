#!/usr/bin/env bash
# On the GPU machine: the command line from file to file at SIZE x SIZE (default 20000): `demo
# --size SIZE` and `segment --pipeline nuclei --stats` against OpenCV + tifffile
# (perf/segment_files.py); then, with TESTS=1 (default), the packed CUDA build's test suite and
# command-line checks (device-run.sh, without sanitizers and benchmarks unless asked). Logs and
# JSON go to $OUT.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dev=$root/.devbuild
out=${OUT:-$root/device-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$dev/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nproc | tee "$out/cores.txt"
python3 -c "import cv2, sys; print('opencv', cv2.__version__, 'python', sys.version.split()[0])" | tee "$out/peers.txt"
python3 -c "import tifffile; print('tifffile', tifffile.__version__)" 2>&1 | tail -1 | tee -a "$out/peers.txt"
python3 "$root/perf/segment_files.py" "$dev/gigaseg" "$out/segment-files.json" --size "${SIZE:-20000}" \
  --runs "${RUNS:-5}" --demo-runs "${DEMO_RUNS:-3}" --threads "$(nproc)" 2>&1 | tee "$out/segment-files.txt"
if [ "${TESTS:-1}" = 1 ]; then
  SANITIZE=${SANITIZE:-0} BENCHES=${BENCHES:-none} bash "$root/scripts/device-run.sh"
fi
