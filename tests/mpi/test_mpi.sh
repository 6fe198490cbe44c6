#!/usr/bin/env bash
# The tool over MPI ranks (mpirun --oversubscribe on this host's backend): every distributed
# command's outputs on 1, 2, 3 and 4 ranks are the single process's, byte for byte (the TIFF files
# and the statistics CSVs); --json (printed once, by rank 0) reports the ranks and each rank's
# share; a corrupt tile read by one rank ends every rank with the same error (exit 3), one line printed, and
# leaves nothing under the output's name; a command that runs on one process is refused on several.
set -u
gigaseg=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passes=0
# Ranks on a 2-core machine: more ranks than cores, one host thread each; as root where CI runs;
# every rank runs to its end when one fails, so that each rank's exit code is seen.
# A run that hangs (ranks waiting for one another) fails after 5 minutes instead of stopping the suite.
mpirun=(timeout 300 mpirun --oversubscribe --allow-run-as-root --mca btl self,vader
  --mca orte_abort_on_non_zero_status 0 -x OMP_NUM_THREADS=1)

check() {
  local name=$1
  shift
  if "$@"; then passes=$((passes + 1)); else echo "FAIL $name"; failures=$((failures + 1)); fi
}
# run NAME CODE RANKS ARGS...: gigaseg on RANKS ranks (0: without mpirun), checks the exit code.
run() {
  local name=$1 code=$2 ranks=$3
  shift 3
  if [ "$ranks" -eq 0 ]; then
    "$gigaseg" --threads 1 "$@" >"$work/out" 2>"$work/err"
  else
    # Each rank's exit code goes to $work/codes (mpirun itself reports only the first one).
    rm -f "$work/codes"
    "${mpirun[@]}" -n "$ranks" bash -c '"$@"; code=$?; echo "$code" >>"'"$work"'/codes"; exit $code' rank \
      "$gigaseg" --threads 1 "$@" >"$work/out" 2>"$work/err"
    if [ "$(sort -u "$work/codes" | tr '\n' ' ')" != "$code " ] || [ "$(wc -l <"$work/codes")" -ne "$ranks" ]; then
      echo "FAIL $name: the ranks' exit codes are $(tr '\n' ' ' <"$work/codes"), expected $code on all $ranks"
      failures=$((failures + 1))
      return 1
    fi
    # mpirun adds its own notice of a failed job; the tool's lines are those it starts.
    grep '^gigaseg: ' "$work/err" >"$work/err.tool"
    mv "$work/err.tool" "$work/err"
  fi
  local got=$?
  [ "$ranks" -eq 0 ] || got=$(head -1 "$work/codes")
  if [ "$got" -ne "$code" ]; then
    echo "FAIL $name: exit $got, expected $code (ranks $ranks: gigaseg $*)"
    head -5 "$work/err"
    failures=$((failures + 1))
    return 1
  fi
  passes=$((passes + 1))
}

# Inputs: the synthetic tissue (1000 x 1000, not a multiple of the tiles) as a tiled TIFF, and a
# mask of random dots whose components cross every tile edge and corner.
"$gigaseg" demo --size 1000 --out "$work/demo" >/dev/null || { echo "FAIL demo"; exit 1; }
"$gigaseg" convert "$work/demo/tissue.png" "$work/tissue.tif" --tiff-tile 64 >/dev/null || exit 1
python3 -c "
import random, sys; w, h = 700, 500; r = random.Random(5)
open(sys.argv[1], 'wb').write(b'P5\n%d %d\n255\n' % (w, h) + bytes(255 if r.random() < 0.45 else 0 for _ in range(w * h)))" "$work/dots.pgm"
"$gigaseg" convert "$work/dots.pgm" "$work/dots.tif" --tiff-tile 32 >/dev/null || exit 1
# A distance field whose only zero is in the top left corner: every rank's bands need another's.
python3 -c "
import sys; w, h = 500, 700
open(sys.argv[1], 'wb').write(b'P5\n%d %d\n255\n' % (w, h) + bytes(0 if x < 3 and y < 3 else 255 for y in range(h) for x in range(w)))" "$work/far.pgm"
"$gigaseg" convert "$work/far.pgm" "$work/far.tif" --tiff-tile 32 >/dev/null || exit 1
# Watershed plateaus that cross every rank border: a relief of three gray levels in blocks larger
# than the tiles, flooded from a few markers (the components of sparse dots) inside a mask.
python3 -c "
import sys; w, h = 640, 480
open(sys.argv[1], 'wb').write(b'P5\n%d %d\n255\n' % (w, h) + bytes(40 * ((x // 150 + y // 130) % 3) for y in range(h) for x in range(w)))" "$work/plateaus.pgm"
"$gigaseg" convert "$work/plateaus.pgm" "$work/plateaus.tif" --tiff-tile 32 >/dev/null || exit 1
python3 -c "
import random, sys; w, h = 640, 480; r = random.Random(7)
open(sys.argv[1], 'wb').write(b'P5\n%d %d\n255\n' % (w, h) + bytes(255 if r.random() < 0.0004 else 0 for _ in range(w * h)))" "$work/seeds.pgm"
"$gigaseg" convert "$work/seeds.pgm" "$work/seeds.tif" --tiff-tile 32 >/dev/null || exit 1
"$gigaseg" label "$work/seeds.tif" "$work/markers.tif" >/dev/null || exit 1
python3 -c "
import sys; w, h = 640, 480
open(sys.argv[1], 'wb').write(b'P5\n%d %d\n255\n' % (w, h) + bytes(0 if (x - 500) ** 2 + (y - 100) ** 2 < 60 ** 2 else 255 for y in range(h) for x in range(w)))" "$work/holed.pgm"
"$gigaseg" convert "$work/holed.pgm" "$work/holed.tif" --tiff-tile 32 >/dev/null || exit 1
# One bright blob across every tile, touching two others: the cells pipeline's distances, markers
# and flooding all cross every rank border.
python3 -c "
import sys; w, h = 700, 600
def v(x, y):
    d = min((x - 350) ** 2 + (y - 300) ** 2 - 260 ** 2, (x - 80) ** 2 + (y - 80) ** 2 - 70 ** 2, (x - 640) ** 2 + (y - 540) ** 2 - 90 ** 2)
    return 200 if d < 0 else 30
open(sys.argv[1], 'wb').write(b'P5\n%d %d\n255\n' % (w, h) + bytes(v(x, y) for y in range(h) for x in range(w)))" "$work/blob.pgm"
"$gigaseg" convert "$work/blob.pgm" "$work/blob.tif" --tiff-tile 32 >/dev/null || exit 1
# A colour image of four stains in blocks crossing the rank borders, for the kmeans pipeline.
python3 "$(dirname "$0")/../cli/stain_ppm.py" 610 450 "$work/stain.ppm"
"$gigaseg" convert "$work/stain.ppm" "$work/stain.tif" --tiff-tile 32 >/dev/null || exit 1

# name|arguments (OUT and CSV stand for the outputs)
cases=(
  "label8|label $work/dots.tif OUT --connectivity 8 --tile 64x48 --stats CSV"
  "label4|label $work/dots.tif OUT --connectivity 4 --tile 96x64"
  "nuclei|segment $work/tissue.tif OUT --pipeline nuclei --tile 128x96 --stats CSV"
  "nuclei-zstd|--compression zstd segment $work/tissue.tif OUT --pipeline nuclei --tile 256x256"
  "otsu|threshold $work/tissue.tif OUT --method otsu --tile 64x64"
  "median|median $work/tissue.tif OUT --size 5 --tile 112x80"
  "gaussian|gaussian $work/tissue.tif OUT --sigma 2 --tile 64x64"
  "sobel|--compression none sobel $work/tissue.tif OUT --tile 96x96"
  "edt|edt $work/dots.tif OUT --tile 64x48"
  "edt-far|edt $work/far.tif OUT --tile 96x32"
  "cells|segment $work/tissue.tif OUT --pipeline cells --tile 128x96 --stats CSV"
  "cells8|segment $work/tissue.tif OUT --pipeline cells --connectivity 8 --min-area 40 --tile 64x64 --stats CSV"
  "cells-blob|segment $work/blob.tif OUT --pipeline cells --min-separation 0 --tile 64x48 --stats CSV"
  "kmeans|segment $work/stain.tif OUT --pipeline kmeans --k 4 --space lab --tile 96x64 --stats CSV"
  "kmeans-gray|segment $work/tissue.tif OUT --pipeline kmeans --k 3 --foreground bright --tile 128x96 --stats CSV"
  "watershed4|watershed $work/plateaus.tif $work/markers.tif OUT --tile 64x48"
  "watershed8-mask|watershed $work/plateaus.tif $work/markers.tif OUT --mask $work/holed.tif --connectivity 8 --tile 96x64"
)
for entry in "${cases[@]}"; do
  name=${entry%%|*}
  args=${entry#*|}
  one=${args//OUT/$work/$name-1p.tif}
  one=${one//CSV/$work/$name-1p.csv}
  run "$name-one-process" 0 0 $one || continue
  for ranks in 1 2 3 4; do
    many=${args//OUT/$work/$name-${ranks}r.tif}
    many=${many//CSV/$work/$name-${ranks}r.csv}
    run "$name-$ranks-ranks" 0 "$ranks" --json $many || continue
    check "$name-$ranks-ranks-same-file" cmp -s "$work/$name-1p.tif" "$work/$name-${ranks}r.tif"
    if [[ $args == *CSV* ]]; then
      check "$name-$ranks-ranks-same-csv" cmp -s "$work/$name-1p.csv" "$work/$name-${ranks}r.csv"
    fi
    check "$name-$ranks-ranks-one-report" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))  # one JSON object: rank 0 alone printed
t = d['tiled']
n = int(sys.argv[2])
if n > 1:
    assert t['ranks'] == n and len(t['rank_shares']) == n, t
    assert [s['rank'] for s in t['rank_shares']] == list(range(n))
    assert sum(s['tiles'] for s in t['rank_shares']) == t['tiles']
    assert sum(s['pixels'] for s in t['rank_shares']) == d.get('width', 0) * d.get('height', 0) or 'width' not in d
else:
    assert 'ranks' not in t
" "$work/out" "$ranks"
  done
done

# The histogram: the same counts on any number of ranks.
run histogram-one-process 0 0 histogram "$work/tissue.tif" --tile 64x64 && cp "$work/out" "$work/hist-1p.csv"
for ranks in 2 3; do
  run "histogram-$ranks-ranks" 0 "$ranks" histogram "$work/tissue.tif" --tile 64x64
  check "histogram-$ranks-ranks-same" cmp -s "$work/hist-1p.csv" "$work/out"
done

# OME-Zarr outputs over ranks: each rank writes its tiles' chunks into rank 0's temporary folder,
# rank 0 makes the levels and renames it: every file of the folder is the single process's, byte
# for byte, and its full resolution holds the TIFF route's values (python3-zarr).
zarr_cases=(
  "label8|label $work/dots.tif OUT --connectivity 8 --tile 64x48 --stats CSV"
  "cells|segment $work/tissue.tif OUT --pipeline cells --tile 128x96 --stats CSV"
  "edt-far|edt $work/far.tif OUT --tile 96x32"
)
for entry in "${zarr_cases[@]}"; do
  name=${entry%%|*}
  args=${entry#*|}
  mkdir -p "$work/zarr-$name-0"
  one=${args//OUT/$work/zarr-$name-0/out.ome.zarr}
  one=${one//CSV/$work/zarr-$name-0/out.csv}
  run "zarr-$name-one-process" 0 0 $one || continue
  check "zarr-$name-one-process-equals-tiff" /usr/bin/python3 -c "
import sys, numpy, tifffile, zarr
assert numpy.array_equal(zarr.open(sys.argv[1], mode='r')['0'][:], tifffile.imread(sys.argv[2]))
" "$work/zarr-$name-0/out.ome.zarr" "$work/$name-1p.tif"
  for ranks in 2 3; do
    mkdir -p "$work/zarr-$name-$ranks"
    many=${args//OUT/$work/zarr-$name-$ranks/out.ome.zarr}
    many=${many//CSV/$work/zarr-$name-$ranks/out.csv}
    run "zarr-$name-$ranks-ranks" 0 "$ranks" $many || continue
    check "zarr-$name-$ranks-ranks-same-files" diff -r "$work/zarr-$name-0" "$work/zarr-$name-$ranks"
    check "zarr-$name-$ranks-ranks-no-temporary" test -z "$(ls -A "$work/zarr-$name-$ranks" | grep -v '^out\.')"
  done
done
# A Zarr input over ranks: each rank reads its tiles by region from the chunks; the labels and
# statistics of the TIFF input.
"$gigaseg" convert "$work/dots.tif" "$work/dots-in.ome.zarr" >/dev/null || exit 1
for ranks in 2 3; do
  run "zarr-input-$ranks-ranks" 0 "$ranks" label "$work/dots-in.ome.zarr" "$work/zin-${ranks}r.tif" --connectivity 8 \
    --tile 64x48 --stats "$work/zin-${ranks}r.csv" || continue
  check "zarr-input-$ranks-ranks-same-file" cmp -s "$work/label8-1p.tif" "$work/zin-${ranks}r.tif"
  check "zarr-input-$ranks-ranks-same-csv" cmp -s "$work/label8-1p.csv" "$work/zin-${ranks}r.csv"
done

# A corrupt tile (the one at 64,64 of the dots TIFF, in classic TIFF's tile offsets) is read by
# one rank: every rank stops with the same error, exit 3, one line, nothing under the output.
# Tile row 2, column 2 of 22 across (32 x 32 tiles).
python3 "$(dirname "$0")/../cli/corrupt_tile.py" "$work/dots.tif" "$work/dots-bad.tif" $((2 * 22 + 2))
for command in "label" "segment --pipeline nuclei" "segment --pipeline cells"; do
  name=corrupt-tile-${command##* }
  run "$name" 3 3 $command "$work/dots-bad.tif" "$work/bad-out.tif" --tile 64x64
  check "$name-one-line" test "$(wc -l <"$work/err")" -eq 1
  check "$name-names-file-and-tile" grep -q "dots-bad.tif.*tile at 64,64" "$work/err"
  check "$name-nothing-left" test ! -e "$work/bad-out.tif"
  check "$name-no-scratch-left" bash -c "! ls -A '$work' | grep -q gigaseg-scratch"
done

# Out of memory on one rank alone (rank 1 under a 300 MB address-space limit, a tile's labels
# larger than that): every rank exits 4, one line naming the input and the rank, nothing under the
# output. Where rank 1 runs out depends on its threads' timing: a tile's labels, or the lists of
# runs a labelling grows inside a parallel region (which must not abort the rank and leave rank 0
# waiting); the run is repeated to meet both.
python3 -c "
import sys; w = h = 6000
sys.stdout.buffer.write(b'P5\n%d %d\n255\n' % (w, h) + bytes([0, 255, 255, 0, 255, 0, 0, 255]) * (w * h // 8))" \
  >"$work/big.pgm"
"$gigaseg" convert "$work/big.pgm" "$work/big.tif" --tiff-tile 512 >/dev/null
for attempt in 1 2 3 4 5 6; do
  rm -f "$work/codes"
  "${mpirun[@]}" -n 2 bash -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then ulimit -v 300000; fi
    "$@"; code=$?; echo "$code" >>"'"$work"'/codes"; exit $code' rank \
    "$gigaseg" --threads 1 label "$work/big.tif" "$work/oom.tif" --tile 6000x3008 >/dev/null 2>"$work/err"
  check "oom-one-rank-$attempt-exit-4-on-all" test "$(sort -u "$work/codes" | tr '\n' ' ')" = "4 "
  check "oom-one-rank-$attempt-two-codes" test "$(wc -l <"$work/codes")" -eq 2
  check "oom-one-rank-$attempt-one-line" test "$(grep -c '^gigaseg: resource error' "$work/err")" -eq 1
  check "oom-one-rank-$attempt-names-input-and-rank" \
    grep -q "^gigaseg: resource error: $work/big.tif: out of host memory.* on rank 1\$" "$work/err"
  check "oom-one-rank-$attempt-nothing-left" test ! -e "$work/oom.tif"
done

# A rank that cannot set up (here rank 1 asks for more host threads than Kokkos takes) fails every
# rank with its error, instead of leaving the others waiting for it.
rm -f "$work/codes"
"${mpirun[@]}" -n 2 bash -c 'threads=1; if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then threads=99999; fi
  "$@" --threads $threads; code=$?; echo "$code" >>"'"$work"'/codes"; exit $code' rank \
  "$gigaseg" label "$work/dots.tif" "$work/setup.tif" --tile 64x64 >/dev/null 2>"$work/err"
check setup-failure-exit-2-on-all test "$(sort -u "$work/codes" | tr '\n' ' ')" = "2 "
check setup-failure-two-codes test "$(wc -l <"$work/codes")" -eq 2
check setup-failure-one-line test "$(grep -c '^gigaseg: usage error: --threads' "$work/err")" -eq 1

# The cells pipeline over ranks keeps its scratch images in the output's folder, which every rank
# must see: rank 1 given a private folder of that name (a tmpfs mounted in a mount namespace of its
# own, as root) makes every rank exit 2 with one line naming the folder, and nothing is left there.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
  mkdir -p "$work/private"
  rm -f "$work/codes"
  "${mpirun[@]}" -n 2 bash -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then
      unshare -m sh -c "mount -t tmpfs none \"$1\" && exec \"\$0\" \"\$@\"" "${@:2}"
    else "${@:2}"; fi; code=$?; echo "$code" >>"'"$work"'/codes"; exit $code' rank "$work/private" \
    "$gigaseg" --threads 1 segment "$work/tissue.tif" "$work/private/c.tif" --pipeline cells --tile 128x96 \
    >/dev/null 2>"$work/err"
  check unshared-folder-exit-2-on-all test "$(sort -u "$work/codes" | tr '\n' ' ')" = "2 "
  check unshared-folder-two-codes test "$(wc -l <"$work/codes")" -eq 2
  check unshared-folder-one-line test "$(grep -c 'private: is not shared by the ranks' "$work/err")" -eq 1
  check unshared-folder-usage-error grep -q '^gigaseg: usage error: ' "$work/err"
  check unshared-folder-nothing-left test -z "$(ls -A "$work/private")"
  # nuclei needs no shared folder: the tiles and the statistics' rows rank 1 cannot write into rank
  # 0's temporary files go to rank 0, and the outputs are the single process's.
  rm -f "$work/codes"
  "${mpirun[@]}" -n 2 bash -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then
      unshare -m sh -c "mount -t tmpfs none \"$1\" && exec \"\$0\" \"\$@\"" "${@:2}"
    else "${@:2}"; fi; code=$?; echo "$code" >>"'"$work"'/codes"; exit $code' rank "$work/private" \
    "$gigaseg" --threads 1 segment "$work/tissue.tif" "$work/private/n.tif" --pipeline nuclei --tile 128x96 \
    --stats "$work/private/n.csv" >/dev/null 2>"$work/err"
  check unshared-nuclei-exit-0-on-all test "$(sort -u "$work/codes" | tr '\n' ' ')" = "0 "
  check unshared-nuclei-same-file cmp -s "$work/nuclei-1p.tif" "$work/private/n.tif"
  check unshared-nuclei-same-csv cmp -s "$work/nuclei-1p.csv" "$work/private/n.csv"
  rm -f "$work/private/n.tif" "$work/private/n.csv"
fi

# Commands that run on one process refuse several ranks, each rank with the same usage error.
run kmeans-on-ranks 2 2 kmeans "$work/tissue.tif" "$work/k.tif"
check kmeans-command-on-ranks-one-line test "$(wc -l <"$work/err")" -eq 1
check kmeans-on-ranks-nothing-left test ! -e "$work/k.tif"

# batch over ranks: the images handed out as the ranks ask; every image's labels and statistics
# equal to one process's batch, one summary.csv (rank 0's) with every image's row.
mkdir -p "$work/images"
for seed in 1 2 3 4 5 6 7; do
  "$gigaseg" demo --size 400 --seed "$seed" --out "$work/d$seed" >/dev/null && cp "$work/d$seed/tissue.png" "$work/images/t$seed.png"
done
summary_rows() { cut -d, -f1-3 "$1" | sort; }  # file, status, components (not the seconds)
run batch-one-process 0 0 batch --pipeline nuclei --input "$work/images" --output "$work/b1" --stats
for ranks in 2 3; do
  run "batch-$ranks-ranks" 0 "$ranks" --json batch --pipeline nuclei --input "$work/images" --output "$work/b$ranks" \
    --stats
  check "batch-$ranks-ranks-same-summary" diff <(summary_rows "$work/b1/summary.csv") <(summary_rows "$work/b$ranks/summary.csv")
  for seed in 1 2 3 4 5 6 7; do
    check "batch-$ranks-ranks-t$seed" cmp -s "$work/b1/t$seed.tif" "$work/b$ranks/t$seed.tif"
    check "batch-$ranks-ranks-t$seed-csv" cmp -s "$work/b1/t$seed.csv" "$work/b$ranks/t$seed.csv"
  done
  check "batch-$ranks-ranks-shares" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['ranks'] == int(sys.argv[2]) and d['ok'] == 7, d
assert sum(s['images'] for s in d['rank_shares']) == 7, d['rank_shares']" "$work/out" "$ranks"
done
# A corrupt image: its row says why, the others are done, and every rank exits 3 with one line.
cp -r "$work/images" "$work/images-bad"
head -c 3000 "$work/images/t4.png" >"$work/images-bad/t4.png"
run batch-corrupt 3 3 batch --pipeline nuclei --input "$work/images-bad" --output "$work/bbad"
check batch-corrupt-one-line test "$(wc -l <"$work/err")" -eq 1
check batch-corrupt-row grep -q "t4.png,\"*error" "$work/bbad/summary.csv"
check batch-corrupt-others-ok test "$(grep -c ',ok,' "$work/bbad/summary.csv")" -eq 6

# A rank killed in the middle of a batch: the job fails, nothing half-written is left under an
# output's name, and --resume completes the batch with the single process's outputs. The last
# image of the killed run is a named pipe nobody writes, so the batch cannot end before the kill
# on any machine: every other image is done, one rank waits on the pipe, the others for it.
mkdir -p "$work/many" "$work/pipe"
for seed in 1 2 3 4; do "$gigaseg" demo --size 600 --seed "$seed" --out "$work/big$seed" >/dev/null; done
for k in $(seq 1 12); do cp "$work/big$(( (k - 1) % 4 + 1 ))/tissue.png" "$work/many/m$k.png"; done
mkfifo "$work/pipe/m12.png"
for k in $(seq 1 12); do echo "many/m$k.png"; done >"$work/all.txt"
{ for k in $(seq 1 11); do echo "many/m$k.png"; done; echo "pipe/m12.png"; } >"$work/stuck.txt"
run many-one-process 0 0 batch --pipeline nuclei --input "$work/all.txt" --output "$work/m1" --stats
# (mpirun as users run it: a rank that dies ends the job.)
timeout 300 mpirun --oversubscribe --allow-run-as-root --mca btl self,vader -n 3 "$gigaseg" --threads 1 batch \
  --pipeline nuclei --input "$work/stuck.txt" --output "$work/mk" --stats >/dev/null 2>"$work/err" &
launcher=$!
for _ in $(seq 1200); do
  [ "$(ls "$work/mk" 2>/dev/null | grep -c '^m.*\.csv$')" -ge 11 ] && break
  sleep 0.05
done
victim=$(pgrep -f "^$gigaseg --threads 1 batch --pipeline nuclei --input $work/stuck.txt" | tail -1)
kill -9 "$victim" 2>/dev/null
wait "$launcher"
check killed-rank-fails-the-job test $? -ne 0
check killed-rank-no-summary test ! -e "$work/mk/summary.csv"
check killed-rank-left-work test ! -e "$work/mk/m12.tif"
run resume-after-kill 0 2 batch --pipeline nuclei --input "$work/all.txt" --output "$work/mk" --stats --resume
check resume-no-temporaries bash -c "! ls -A '$work/mk' | grep -q -v -E '^(m[0-9]+\.(tif|csv)|summary\.csv)$'"
check resume-same-summary diff <(summary_rows "$work/m1/summary.csv") <(summary_rows "$work/mk/summary.csv")
for k in $(seq 1 12); do
  check "resume-m$k" cmp -s "$work/m1/m$k.tif" "$work/mk/m$k.tif"
done

echo "mpi: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
