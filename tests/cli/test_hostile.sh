#!/usr/bin/env bash
# The command line against a hostile or careless user (docs/robustness.md): no output replaces an
# input or another output, a failed or interrupted command leaves nothing behind, every failure
# is one line with the documented exit code, absurd option values fail at once instead of
# hanging or crashing, and odd inputs (folders, pipes, a full disk) are named in plain words.
# Checks that need root (a small tmpfs for a full disk) or a plain build (an address-space limit
# under AddressSanitizer) say SKIP when they cannot run.
set -u
gigaseg=$1
work=$(mktemp -d)
mounted=""
cleanup() {
  [ -n "$mounted" ] && umount "$mounted" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
passes=0

# expect CODE NAME -- ARGS...: runs gigaseg (at most 60 s), checks the exit code.
expect() {
  local code=$1 name=$2
  shift 3
  timeout 60 "$gigaseg" "$@" >"$work/out" 2>"$work/err" </dev/null
  local got=$?
  if [ "$got" -ne "$code" ]; then
    echo "FAIL $name: exit $got, expected $code (gigaseg $*)"; head -5 "$work/err"; failures=$((failures + 1))
    return 1
  fi
  passes=$((passes + 1))
}
check() {
  local name=$1
  shift
  if "$@"; then passes=$((passes + 1)); else echo "FAIL $name"; head -5 "$work/err"; failures=$((failures + 1)); fi
}
one_line_naming() { [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q -- "$1" "$work/err"; }
no_temporaries() { [ -z "$(find "$work" -name '.*.tmp' 2>/dev/null)" ]; }
same_bytes() { cmp -s "$1" "$2"; }

# A gray test image with structure (bright disks on a dark ramp) and a copy to compare against.
python3 - "$work" <<'EOF'
import sys
work = sys.argv[1]
def pgm(path, w, h):
    rows = bytearray()
    for y in range(h):
        for x in range(w):
            v = (x + y) % 64
            if ((x % 40) - 20) ** 2 + ((y % 40) - 20) ** 2 < 100: v = 200
            rows.append(v)
    open(path, "wb").write(b"P5\n%d %d\n255\n" % (w, h) + bytes(rows))
pgm(work + "/in.pgm", 160, 120)
EOF
cp "$work/in.pgm" "$work/original.pgm"

# --- Outputs never replace inputs, nor each other (same path, symlink, hard link, ./ spelling).
expect 2 out-is-in -- median "$work/in.pgm" "$work/in.pgm" --size 3
check out-is-in-names-option one_line_naming "OUT"
check out-is-in-input-kept same_bytes "$work/in.pgm" "$work/original.pgm"
ln -s "$work/in.pgm" "$work/link.pgm"
expect 2 out-is-symlink-to-in -- median "$work/in.pgm" "$work/link.pgm" --size 3
check out-is-symlink-kept same_bytes "$work/in.pgm" "$work/original.pgm"
ln "$work/in.pgm" "$work/hard.pgm"
expect 2 out-is-hard-link-to-in -- gaussian "$work/in.pgm" "$work/hard.pgm" --sigma 1
check out-is-hard-link-kept same_bytes "$work/in.pgm" "$work/original.pgm"
expect 2 out-is-in-dot-spelling -- convert "$work/in.pgm" "$work/./sub/../in.pgm"
check dot-spelling-kept same_bytes "$work/in.pgm" "$work/original.pgm"
expect 2 stats-is-in -- segment "$work/in.pgm" "$work/labels.tif" --pipeline nuclei --stats "$work/in.pgm"
check stats-is-in-names-option one_line_naming "\-\-stats"
expect 2 overlay-is-labels -- segment "$work/in.pgm" "$work/l.tif" --pipeline nuclei --overlay "$work/l.tif"
check overlay-is-labels-names-option one_line_naming "\-\-overlay"
check overlay-is-labels-nothing-written test ! -e "$work/l.tif"
expect 2 empty-output -- convert "$work/in.pgm" ""
check empty-output-one-line one_line_naming "OUT"
expect 2 empty-stats -- segment "$work/in.pgm" "$work/l.tif" --pipeline nuclei --stats ""
check empty-stats-one-line one_line_naming "\-\-stats"
expect 0 mask-for-label -- threshold "$work/in.pgm" "$work/mask.pgm" --method value=128
expect 2 label-stats-is-labels -- label "$work/mask.pgm" "$work/lab.tif" --stats "$work/lab.tif"
check label-stats-is-labels-names-option one_line_naming "\-\-stats"
check label-stats-is-labels-nothing-written test ! -e "$work/lab.tif"
check inputs-intact same_bytes "$work/in.pgm" "$work/original.pgm"

# batch: an output folder that is the input folder, or an image given as --input.
mkdir -p "$work/slides" "$work/results"
cp "$work/in.pgm" "$work/slides/a.pgm"
cp "$work/in.pgm" "$work/slides/b.pgm"
expect 2 batch-out-is-in -- batch --pipeline nuclei --input "$work/slides" --output "$work/slides"
check batch-out-is-in-names-option one_line_naming "\-\-output"
check batch-out-is-in-nothing-written test "$(ls "$work/slides" | wc -l)" -eq 2
expect 2 batch-out-is-in-other-spelling -- batch --pipeline nuclei --input "$work/slides" --output "$work/slides/."
mkdir -p "$work/mixed"
"$gigaseg" --quiet convert "$work/in.pgm" "$work/mixed/x.tif"
cp "$work/mixed/x.tif" "$work/x-original.tif"
printf '%s\n' "$work/mixed/x.tif" >"$work/list.txt"
expect 2 batch-output-replaces-listed-input -- batch --pipeline nuclei --input "$work/list.txt" --output "$work/mixed"
check batch-output-replaces-names-option one_line_naming "\-\-output"
check batch-listed-input-kept same_bytes "$work/mixed/x.tif" "$work/x-original.tif"
expect 2 batch-input-is-image -- batch --pipeline nuclei --input "$work/in.pgm" --output "$work/results"
check batch-input-is-image-says-so one_line_naming "is an image"

# --- A failed command leaves nothing: outputs it had committed before failing are removed.
expect 3 failed-command-removes-committed -- segment "$work/in.pgm" "$work/committed.tif" --pipeline nuclei \
  --stats "$work/no-such-folder/s.csv"
check failed-command-names-folder one_line_naming "no-such-folder"
check failed-command-no-labels test ! -e "$work/committed.tif"
check failed-command-no-temporaries no_temporaries

# --- Absurd values fail at once, in one line naming the option.
expect 2 threads-too-many -- --threads 100000 info
check threads-too-many-one-line one_line_naming "\-\-threads"
OMP_NUM_THREADS=100000 timeout 60 "$gigaseg" info >"$work/out" 2>"$work/err"
check omp-threads-too-many test $? -eq 2
check omp-threads-names-variable one_line_naming "OMP_NUM_THREADS"
for n in 515 1000 4096 32768; do
  expect 2 "threads-$n" -- --threads "$n" info
  check "threads-$n-one-line" one_line_naming "\-\-threads"
done
expect 0 threads-oversubscribed-quiet -- --threads 3 info
check threads-oversubscribed-no-warning test ! -s "$work/err"
expect 2 threads-zero -- --threads 0 info
check threads-zero-short-message test "$(wc -c <"$work/err")" -lt 160
expect 2 threads-negative -- --threads -3 info
start=$SECONDS
expect 0 morph-huge-element -- morph "$work/in.pgm" "$work/m.pgm" --op erode --se ellipse --size 2147483647
check morph-huge-element-fast test $((SECONDS - start)) -lt 20
expect 0 morph-huge-equals-image-sized -- morph "$work/in.pgm" "$work/m2.pgm" --op erode --se ellipse --size 1001
check morph-huge-same-result same_bytes "$work/m.pgm" "$work/m2.pgm"
expect 2 morph-even-size -- morph "$work/in.pgm" "$work/m.pgm" --op erode --size 2147483646
check morph-even-size-one-line one_line_naming "\-\-size"
expect 2 kmeans-attempts -- kmeans "$work/in.pgm" "$work/k.tif" --k 3 --attempts 2000000000
check kmeans-attempts-one-line one_line_naming "\-\-attempts"
expect 2 kmeans-iterations -- kmeans "$work/in.pgm" "$work/k.tif" --k 3 --iters 2000000000
check kmeans-iterations-one-line one_line_naming "\-\-iters"
expect 2 kmeans-nan-tolerance -- kmeans "$work/in.pgm" "$work/k.tif" --k 3 --tolerance nan
check kmeans-nan-tolerance-one-line one_line_naming "\-\-tolerance"
expect 2 kmeans-seed-past-64-bits -- kmeans "$work/in.pgm" "$work/k.tif" --k 3 --seed 18446744073709551616
check kmeans-seed-past-64-bits-one-line one_line_naming "\-\-seed"
expect 2 kmeans-negative-seed -- kmeans "$work/in.pgm" "$work/k.tif" --k 3 --seed -1
check kmeans-negative-seed-one-line one_line_naming "\-\-seed"
expect 2 gaussian-nan-sigma -- gaussian "$work/in.pgm" "$work/g.pgm" --sigma nan
check gaussian-nan-sigma-one-line one_line_naming "\-\-sigma"
expect 2 gaussian-huge-sigma -- gaussian "$work/in.pgm" "$work/g.pgm" --sigma 1e300
check gaussian-huge-sigma-short one_line_naming "\-\-sigma"
check gaussian-huge-sigma-short-number test "$(wc -c <"$work/err")" -lt 200
expect 2 threshold-nan -- threshold "$work/in.pgm" "$work/t.pgm" --method value=nan
check threshold-nan-one-line one_line_naming "\-\-method"
expect 2 threshold-past-type -- threshold "$work/in.pgm" "$work/t.pgm" --method value=300
check threshold-past-type-one-line one_line_naming "\-\-method"
expect 2 threshold-negative -- threshold "$work/in.pgm" "$work/t.pgm" --method value=-1
expect 2 threshold-mean-nan -- threshold "$work/in.pgm" "$work/t.pgm" --method mean=3,nan
check threshold-mean-nan-one-line one_line_naming "\-\-method"
expect 2 histogram-infinite-range -- histogram "$work/in.pgm" --bins 16 --range 0,inf
check histogram-infinite-range-one-line one_line_naming "\-\-range"
expect 2 small-image-empty -- --small-image-pixels "" info
check small-image-empty-one-line one_line_naming "\-\-small-image-pixels"
expect 2 device-that-does-not-exist -- --device 99 info
check device-that-does-not-exist-one-line one_line_naming "\-\-device"
check no-output-after-usage-errors test ! -e "$work/k.tif" -a ! -e "$work/g.pgm" -a ! -e "$work/t.pgm"

# --- Odd inputs: a folder, a pipe, /dev/stdin, a TIFF cut short.
expect 3 input-is-folder -- convert "$work/slides" "$work/x.png"
check input-is-folder-says-so one_line_naming "is a directory"
expect 0 input-from-pipe -- convert <(cat "$work/in.pgm") "$work/from-pipe.pgm"
check input-from-pipe-same same_bytes "$work/from-pipe.pgm" "$work/in.pgm"
timeout 60 "$gigaseg" convert /dev/stdin "$work/from-stdin.tif" <"$work/in.pgm" >"$work/out" 2>"$work/err"
check input-from-stdin test $? -eq 0 -a -s "$work/from-stdin.tif"
mkfifo "$work/fifo.pgm"
(cat "$work/in.pgm" >"$work/fifo.pgm" &)
expect 0 input-from-fifo -- median "$work/fifo.pgm" "$work/from-fifo.pgm" --size 3
(cat "$work/in.pgm" >"$work/fifo.pgm" &)
expect 0 input-from-fifo-label -- label "$work/fifo.pgm" "$work/from-fifo.tif"
expect 3 tiles-from-fifo -- label "$work/fifo.pgm" "$work/never.tif" --tile 64x64
check tiles-from-fifo-says-why one_line_naming "cannot be read by region"
expect 3 input-dev-zero -- convert /dev/zero "$work/z.png"
check input-dev-zero-one-line one_line_naming "/dev/zero"
expect 0 tiff-for-truncation -- convert "$work/in.pgm" "$work/whole.tif"
head -c 300 "$work/whole.tif" >"$work/cut.tif"
expect 3 truncated-tiff -- convert "$work/cut.tif" "$work/cut.png"
check truncated-tiff-one-line one_line_naming "cut.tif"
check truncated-tiff-no-huge-number bash -c "! grep -q '1844674407' '$work/err'"

# --- A corrupt tile in the middle of a TIFF read tile by tile: an input error naming the file and
# the tile, and nothing under the output's name.
python3 -c "
import random, sys; w, h = 256, 256; r = random.Random(3)
open(sys.argv[1], 'wb').write(b'P5\n%d %d\n255\n' % (w, h) + bytes(255 if r.random() < 0.4 else 0 for _ in range(w * h)))" "$work/dots.pgm"
expect 0 dots-tiles -- convert "$work/dots.pgm" "$work/dots.tif" --tiff-tile 64
# Tile 5 (of 4 across) is at x 64, y 64.
python3 "$(dirname "$0")/corrupt_tile.py" "$work/dots.tif" "$work/dots-bad.tif" 5
for command in "label" "segment --pipeline nuclei"; do
  name=corrupt-tile-${command%% *}
  expect 3 "$name" -- $command "$work/dots-bad.tif" "$work/bad-out.tif" --tile 64x64
  check "$name-names-file" one_line_naming "dots-bad.tif"
  check "$name-names-tile" one_line_naming "tile at 64,64"
  check "$name-nothing-left" test ! -e "$work/bad-out.tif"
done

# --- Full disk and unwritable outputs: resource error, exit 4, nothing half-written.
for command in "--json info" "histogram $work/in.pgm" "kmeans $work/in.pgm $work/k-full.tif --k 2"; do
  name=stdout-full-${command%% *}
  $gigaseg $command >/dev/full 2>"$work/err"
  check "$name-exit" test $? -eq 4
  check "$name-one-line" one_line_naming "standard output"
done
if [ "$(id -u)" -eq 0 ] && mkdir -p "$work/small" && mount -t tmpfs -o size=64k tmpfs "$work/small" 2>/dev/null; then
  mounted="$work/small"
  python3 -c "
import random, sys; w, h = 600, 400
open(sys.argv[1], 'wb').write(b'P5\n%d %d\n255\n' % (w, h) + random.Random(1).randbytes(w * h))" "$work/noisy.pgm"
  for ext in pgm tif png; do
    expect 4 "disk-full-$ext" -- convert "$work/noisy.pgm" "$work/small/noisy.$ext"
    check "disk-full-$ext-one-line" one_line_naming "no space left on device"
    check "disk-full-$ext-names-file" one_line_naming "noisy.$ext"
    check "disk-full-$ext-nothing-left" test -z "$(ls -A "$work/small")"
  done
  # PNGs of 8 MiB and more are deflated in pieces on several threads; zstd TIFF goes the same way.
  python3 -c "
import random, sys; w, h = 3000, 3000
open(sys.argv[1], 'wb').write(b'P5\n%d %d\n255\n' % (w, h) + random.Random(2).randbytes(w * h))" "$work/big-noisy.pgm"
  for target in big.png big.tif; do
    expect 4 "disk-full-pieces-$target" -- --threads 2 --compression zstd convert "$work/big-noisy.pgm" "$work/small/$target"
    check "disk-full-pieces-$target-one-line" one_line_naming "no space left on device"
    check "disk-full-pieces-$target-nothing-left" test -z "$(ls -A "$work/small")"
  done
  expect 4 disk-full-stats-removes-labels -- segment "$work/noisy.pgm" "$work/labels-ok.tif" --pipeline nuclei \
    --stats "$work/small/stats.csv" --overlay "$work/small/overlay.png"
  check disk-full-stats-no-labels test ! -e "$work/labels-ok.tif"
  check disk-full-stats-nothing-left test -z "$(ls -A "$work/small")"
  # Labels written tile by tile: a full disk is the same exit 4, and nothing is left.
  expect 0 noisy-tiles -- convert "$work/noisy.pgm" "$work/noisy-tiles.tif" --tiff-tile 64
  expect 4 disk-full-tiled-labels -- --compression none label "$work/noisy-tiles.tif" "$work/small/labels.tif" \
    --tile 64x64
  check disk-full-tiled-labels-one-line one_line_naming "no space left on device"
  check disk-full-tiled-labels-nothing-left test -z "$(ls -A "$work/small")"
  umount "$work/small" && mounted=""
else
  echo "SKIP disk-full checks: need root to mount a small tmpfs"
fi

# --- A PNG header that claims 20000 x 20000 pixels over a few bytes of data: an input error at once,
# and the memory of the size it claims is not touched (an in-memory command's output is allocated
# before the read and touched meanwhile, up to half the available memory, and the touching stops
# when the read fails). Each command's exit code and peak resident memory (getrusage), in KiB.
python3 - "$work/claims.png" <<'EOF'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
header = struct.pack(">IIBBBBB", 20000, 20000, 8, 0, 0, 0, 0)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(100))))
EOF
asan=""
if nm -D "$gigaseg" 2>/dev/null | grep -q __asan_init || nm "$gigaseg" 2>/dev/null | grep -q __asan_init; then asan=1; fi
for command in "label" "threshold --method otsu" "median --size 5"; do
  name=claims-${command%% *}
  read -r code peak < <(python3 -c '
import resource, subprocess, sys
code = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=open(sys.argv[1], "w")).returncode
print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$work/err" "$gigaseg" ${command%% *} \
    "$work/claims.png" "$work/claims-out.png" ${command#"${command%% *}"})
  check "$name-input-error" test "$code" -eq 3
  check "$name-one-line" one_line_naming "claims.png"
  # Under AddressSanitizer the process starts at over 200 MB (its shadow memory) and a debug build
  # reads more slowly, so the pages touched before the read fails are not this bound's measure.
  if [ -n "$asan" ]; then
    echo "SKIP $name-little-memory: resident memory under AddressSanitizer"
  else
    check "$name-little-memory" test "$peak" -lt 300000
  fi
done

# --- Out of memory: one line naming the input, exit 4.
# out of host memory: an address-space limit (AddressSanitizer and the CUDA driver reserve far more
# address space than they use, so there it cannot stand for memory; the CUDA build's device memory
# checks are the unit tests').
if [ -n "$asan" ]; then
  echo "SKIP out-of-memory check: address-space limits do not apply under AddressSanitizer"
elif "$gigaseg" info | grep -q "backends:.*cuda"; then
  echo "SKIP out-of-host-memory check: the CUDA driver reserves more address space than any limit"
else
  python3 -c "
import sys; w=h=6000
open(sys.argv[1],'wb').write(b'P5\n%d %d\n255\n'%(w,h)+bytes(w)*h)" "$work/large.pgm"
  prlimit --as=$((600 * 1024 * 1024)) "$gigaseg" --threads 2 segment "$work/large.pgm" "$work/large.tif" \
    --pipeline cells >"$work/out" 2>"$work/err"
  code=$?
  check out-of-memory-exit test "$code" -eq 4
  check out-of-memory-one-line one_line_naming "out of host memory"
  check out-of-memory-no-output test ! -e "$work/large.tif"
  mkdir -p "$work/large-in"
  mv "$work/large.pgm" "$work/large-in/"
  prlimit --as=$((600 * 1024 * 1024)) "$gigaseg" --threads 2 batch --pipeline cells --input "$work/large-in" \
    --output "$work/large-out" >"$work/out" 2>"$work/err"
  code=$?
  check batch-out-of-memory-exit test "$code" -ne 0
  # stderr: the image's progress line, then the command's one error line (naming the summary).
  check batch-out-of-memory-progress-one-line test "$(grep -c "large.pgm" "$work/err")" -eq 1
  check batch-out-of-memory-progress-says-memory grep -q "large.pgm: error: out of host memory" "$work/err"
  check batch-out-of-memory-two-lines test "$(wc -l <"$work/err")" -eq 2
  rm -rf "$work/large-in" "$work/large-out"
  # A labelling whose lists of runs outgrow memory (stripes: three runs every eight pixels, about
  # 160 MB of lists beside 180 MB of pixels and labels). The lists grow on the host backend's
  # threads, inside a parallel region: the failed allocation is still this one line and exit 4.
  python3 -c "
import sys; w=h=6000
open(sys.argv[1],'wb').write(b'P5\n%d %d\n255\n'%(w,h)+bytes([0,255,255,0,255,0,0,255])*(w*h//8))" "$work/striped.pgm"
  for threads in 1 2; do
    prlimit --as=$((400 * 1024 * 1024)) "$gigaseg" --threads "$threads" label "$work/striped.pgm" \
      "$work/striped.tif" >"$work/out" 2>"$work/err"
    code=$?
    check "runs-out-of-memory-$threads-threads-exit" test "$code" -eq 4
    check "runs-out-of-memory-$threads-threads-one-line" one_line_naming "striped.pgm: out of host memory"
    check "runs-out-of-memory-$threads-threads-no-output" test ! -e "$work/striped.tif"
  done
  rm -f "$work/striped.pgm"
fi

# --- Interrupted mid-write: temporaries removed, the shell's exit code (130, 143), no output.
python3 -c "
import sys; w=h=4000
open(sys.argv[1],'wb').write(b'P5\n%d %d\n255\n'%(w,h)+bytes((x*x+y)%256 for y in range(0,h,1) for x in range(w)))" \
  "$work/slow.pgm"
for signal in TERM INT; do
  mkdir -p "$work/sig-$signal"
  "$gigaseg" --threads 1 convert "$work/slow.pgm" "$work/sig-$signal/slow.png" 2>"$work/err" &
  pid=$!
  for _ in $(seq 1 2000); do
    [ -n "$(find "$work/sig-$signal" -name '.*.tmp')" ] && break
    sleep 0.005
  done
  kill -s "$signal" "$pid"
  wait "$pid"
  code=$?
  expected=$([ "$signal" = TERM ] && echo 143 || echo 130)
  check "sig$signal-exit-$expected" test "$code" -eq "$expected"
  check "sig$signal-one-line" one_line_naming "SIG$signal"
  check "sig$signal-nothing-left" test -z "$(ls -A "$work/sig-$signal")"
done

# --- Stale temporaries: those of a dead process on this host go, a live or another host's stay.
host=$(hostname | sed 's/[-./]/_/g')
dead=$(bash -c 'echo $$')
mkdir -p "$work/stale"
touch "$work/stale/.x.png.gigaseg-$host-$dead-0.tmp" "$work/stale/.y.png.gigaseg-$host-$$-0.tmp" \
  "$work/stale/.z.png.gigaseg-otherhost-$dead-0.tmp"
expect 0 stale-run -- convert "$work/in.pgm" "$work/stale/fresh.png"
check stale-dead-removed test ! -e "$work/stale/.x.png.gigaseg-$host-$dead-0.tmp"
check stale-live-kept test -e "$work/stale/.y.png.gigaseg-$host-$$-0.tmp"
check stale-other-host-kept test -e "$work/stale/.z.png.gigaseg-otherhost-$dead-0.tmp"
rm -f "$work"/stale/.*.tmp
# A killed batch's temporaries go with the next --resume over its folder, even with nothing to redo.
expect 0 batch-before-kill -- batch --pipeline nuclei --input "$work/slides" --output "$work/results"
touch "$work/results/.a.tif.gigaseg-$host-$dead-1.tmp"
expect 0 batch-resume-cleans -- batch --pipeline nuclei --input "$work/slides" --output "$work/results" --resume
check batch-resume-removed-stale no_temporaries

# --- batch: items that fail are reported in --json with the exit code; nothing of them is left.
printf 'P5\n100 100\n255\n\1\2' >"$work/slides/c-broken.pgm"
expect 3 batch-with-failure -- --json batch --pipeline nuclei --input "$work/slides" --output "$work/results"
check batch-json-on-failure python3 -c "
import json; d = json.load(open('$work/out'))
assert d['exit_code'] == 3 and d['failed'] == 1 and d['ok'] == 2 and 'error' in d, d
[f] = d['failures']
assert f['file'].endswith('c-broken.pgm') and 'truncated' in f['error'], f"
check batch-failed-item-no-output bash -c "! ls '$work/results' | grep -q c-broken"
check batch-no-temporaries no_temporaries

check inputs-intact-at-end same_bytes "$work/in.pgm" "$work/original.pgm"
echo "hostile CLI checks: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
