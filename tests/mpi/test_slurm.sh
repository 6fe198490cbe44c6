#!/usr/bin/env bash
# The tool under a real Slurm: a single-node cluster from Debian's packages
# (scripts/slurm/cluster.sh, started here and stopped at the end), then
#   - srun --mpi=pmix -n 2 gigaseg segment on one image, the output equal byte for byte to one
#     process's, and gigaseg info showing each rank's place;
#   - the job scripts users copy (scripts/slurm/): a batch as a job array (sbatch --array) and a
#     batch as one MPI job, each image's labels equal to one process's batch.
# Needs root (the daemons); skipped with a message elsewhere.
set -u
gigaseg=$(realpath "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
  echo "slurm: skipped (the single-node cluster needs root)"
  exit 0
fi
work=$(mktemp -d)
export GIGASEG_SLURM_DIR=$work/cluster
cleanup() {
  bash "$root/scripts/slurm/cluster.sh" stop
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
passes=0
check() {
  local name=$1
  shift
  if "$@"; then passes=$((passes + 1)); else echo "FAIL $name"; failures=$((failures + 1)); fi
}

conf=$(bash "$root/scripts/slurm/cluster.sh" start) || { echo "FAIL cluster start"; exit 1; }
export "$conf"  # SLURM_CONF
export GIGASEG=$gigaseg OMP_NUM_THREADS=1
cd "$work"

# One image over two ranks through srun.
"$gigaseg" demo --size 900 --out demo >/dev/null
"$gigaseg" convert demo/tissue.png tissue.tif --tiff-tile 64 >/dev/null
"$gigaseg" --threads 1 segment tissue.tif one.tif --pipeline nuclei --tile 128x128 --stats one.csv >/dev/null
srun --mpi=pmix -n 2 "$gigaseg" --threads 1 --json segment tissue.tif two.tif --pipeline nuclei --tile 128x128 \
  --stats two.csv >srun.json 2>srun.err
check srun-exit test $? -eq 0
check srun-same-labels cmp -s one.tif two.tif
check srun-same-stats cmp -s one.csv two.csv
check srun-two-ranks python3 -c "import json; d = json.load(open('srun.json')); assert d['tiled']['ranks'] == 2, d"
srun --mpi=pmix -n 2 "$gigaseg" info >info.txt 2>&1
check srun-info-ranks test "$(grep -c '^rank [01] on ' info.txt)" -eq 2

# The same image through the job script, sbatch --wait.
sbatch --wait -n 3 -o script.out "$root/scripts/slurm/segment-image.sbatch" tissue.tif three.tif --tile 128x128 \
  --stats three.csv >/dev/null
check sbatch-image-exit test $? -eq 0
check sbatch-image-same-labels cmp -s one.tif three.tif
check sbatch-image-same-stats cmp -s one.csv three.csv

# Batches: six images, one process against a job array of three tasks and an MPI job of three ranks.
mkdir -p images
for seed in 1 2 3 4 5 6; do
  "$gigaseg" demo --size 300 --seed "$seed" --out "d$seed" >/dev/null && cp "d$seed/tissue.png" "images/t$seed.png"
done
(cd images && ls) >list.txt
sed -i 's|^|images/|' list.txt
"$gigaseg" --threads 1 batch --pipeline nuclei --input list.txt --output single --stats >/dev/null 2>&1
sbatch --wait --array=0-2 -o array-%a.out "$root/scripts/slurm/batch-array.sbatch" list.txt array --pipeline nuclei \
  --stats >/dev/null
check array-exit test $? -eq 0
check array-all-ok test "$(cat array/task-*/summary.csv | grep -c ',ok,')" -eq 6
sbatch --wait -n 3 -o mpi.out "$root/scripts/slurm/batch-mpi.sbatch" list.txt mpi --pipeline nuclei --stats >/dev/null
check mpi-batch-exit test $? -eq 0
check mpi-batch-one-summary test "$(grep -c ',ok,' mpi/summary.csv)" -eq 6
for seed in 1 2 3 4 5 6; do
  check "array-t$seed" cmp -s "single/t$seed.tif" "$(ls array/task-*/t$seed.tif)"
  check "mpi-batch-t$seed" cmp -s "single/t$seed.tif" "mpi/t$seed.tif"
  check "mpi-batch-t$seed-csv" cmp -s "single/t$seed.csv" "mpi/t$seed.csv"
done

echo "slurm: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
