#!/usr/bin/env bash
# The statistics CSV written by the ranks: `label --stats` of a 6000 x 6000 mask of random dots
# (20% of the pixels set: about 2.6 million components, a CSV of 155 MB), tiles of 1024 x 1024, by
# one process and by 2 MPI ranks (each writing the rows of its share of the labels into the one
# file), RUNS times each. Prints the `write` stage (the CSV) and `compute` stage of rank 0's
# --json report, and checks that the CSVs and labels are the same.
#   bash perf/mpi_stats_csv.sh GIGASEG [RUNS]
set -euo pipefail
gigaseg=$1
runs=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -c "
import os, sys
w = h = 6000
table = bytes(255 if i < 51 else 0 for i in range(256))
open(sys.argv[1], 'wb').write(b'P5\n%d %d\n255\n' % (w, h) + os.urandom(w * h).translate(table))" "$work/dots.pgm"
"$gigaseg" --quiet convert "$work/dots.pgm" "$work/dots.tif" --tiff-tile 512
mpirun=(mpirun --oversubscribe --bind-to none)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
report() {
  python3 -c "import json, sys; d = json.load(open(sys.argv[1])); t = d['timings_ms']; print(f\"{sys.argv[2]}: components {d['components']}, write {t['write']:.0f} ms, compute {t['compute']:.0f} ms\")" "$@" |
    tee -a "$work/lines"
}
for run in $(seq "$runs"); do
  for threads in 2 1; do
    "$gigaseg" --json --threads "$threads" label "$work/dots.tif" "$work/l1.tif" --tile 1024x1024 \
      --stats "$work/s1.csv" >"$work/r1.json"
    report "$work/r1.json" "run $run, 1 process, $threads threads"
  done
  "${mpirun[@]}" -n 2 "$gigaseg" --json --threads 1 label "$work/dots.tif" "$work/l2.tif" --tile 1024x1024 \
    --stats "$work/s2.csv" >"$work/r2.json" 2>/dev/null
  report "$work/r2.json" "run $run, 2 ranks, 1 thread each"
  cmp -s "$work/s1.csv" "$work/s2.csv" && cmp -s "$work/l1.tif" "$work/l2.tif" || { echo "outputs differ"; exit 1; }
done
echo "CSV bytes: $(stat -c %s "$work/s1.csv"); every run's CSV and labels the same on 1 process and 2 ranks"
python3 -c "
import re, statistics, sys
lines = open(sys.argv[1]).read().splitlines()
for kind in ('1 process, 2 threads', '1 process, 1 threads', '2 ranks, 1 thread each'):
    write = [float(re.search(r'write ([0-9.]+) ms', l).group(1)) for l in lines if kind in l]
    print(f'median {kind}: write {statistics.median(write):.0f} ms ({len(write)} runs)')" "$work/lines"
