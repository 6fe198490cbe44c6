#!/usr/bin/env bash
# End-to-end checks of the gigaseg executable against docs/cli.md: exit codes, one-line errors
# naming the file or option, --json output, global options after the command, atomic outputs.
set -u
gigaseg=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=checks.sh
source "$(dirname "$0")/checks.sh"

expect 0 version -- --version
check version-text grep -q "^gigaseg [0-9]" "$work/out"
expect 0 help -- --help
check help-lists-info grep -q "info" "$work/out"
expect 2 no-command --
check no-command-one-line one_line_naming "gigaseg"

expect 0 info -- info
check info-kokkos grep -q "^Kokkos [345]\." "$work/out"
check info-backends grep -q "^backends:.*openmp" "$work/out"
check info-hwloc grep -q "cores" "$work/out"
expect 0 info-openmp -- --backend openmp info
check info-openmp-text grep -q "backend for large images: openmp" "$work/out"
expect 0 info-options-after-command -- info --threads 1 --backend openmp
check info-one-thread grep -q "host threads: 1" "$work/out"
expect 0 info-json -- --json info
check info-json-valid python3 -c "import json,sys; d=json.load(open('$work/out')); assert d['kokkos_version'] and 'openmp' in d['backends'] and d['host']['cores']>=1 and 'timings_ms' in d and d['backend']"

expect 2 bad-backend -- --backend opencl info
check bad-backend-names-option one_line_naming "backend"
expect 2 bad-threads -- --threads 0 info
check bad-threads-names-option one_line_naming "threads"
expect 2 unknown-option -- info --frobnicate
check unknown-option-one-line one_line_naming "frobnicate"
if ! "$gigaseg" info | grep -q "backends:.*cuda"; then
  expect 2 cuda-not-built -- --backend cuda info
  check cuda-not-built-message one_line_naming "cuda"
fi

# Image commands: convert round trip, errors naming the file, no partial output.
printf 'P2\n3 2\n255\n0 1 2\n3 4 255\n' >"$work/in.pgm"
expect 0 convert -- convert "$work/in.pgm" "$work/out.tif"
expect 0 convert-back -- --json convert "$work/out.tif" "$work/back.pgm"
check convert-json python3 -c "import json; d=json.load(open('$work/out')); assert d['width']==3 and d['height']==2 and 'compute' in d['timings_ms']"
check convert-round-trip cmp -s <(printf 'P5\n3 2\n255\n\0\1\2\3\4\377') "$work/back.pgm"
expect 3 missing-input -- convert "$work/missing.png" "$work/never.png"
check missing-input-names-file one_line_naming "missing.png"
check missing-input-no-output test ! -e "$work/never.png"
printf 'P5\n100 100\n255\n\1\2\3' >"$work/short.pgm"
expect 3 truncated-input -- convert "$work/short.pgm" "$work/never.png"
check truncated-names-file one_line_naming "short.pgm"
check truncated-no-output test ! -e "$work/never.png"
expect 2 bad-extension -- convert "$work/in.pgm" "$work/out.jpg"
check bad-extension-names-file one_line_naming "out.jpg"
expect 3 missing-folder -- convert "$work/in.pgm" "$work/nowhere/out.png"
check missing-folder-names-file one_line_naming "nowhere"
expect 2 missing-argument -- convert "$work/in.pgm"
check no-temporaries-left test -z "$(find "$work" -name '.*.tmp')"

# histogram and threshold (the algorithms themselves are checked against OpenCV in the unit tests).
printf 'P2\n4 2\n255\n0 10 200 255\n30 40 250 60\n' >"$work/t.pgm"
expect 0 histogram -- histogram "$work/t.pgm"
check histogram-rows test "$(wc -l <"$work/out")" -eq 257
check histogram-count grep -qx "255,1" "$work/out"
expect 0 histogram-binned -- --json histogram "$work/t.pgm" --bins 4 --range 0,256
check histogram-binned-counts python3 -c "import json; d=json.load(open('$work/out')); assert d['counts']==[5,0,0,3], d['counts']"
expect 2 histogram-half-range -- histogram "$work/t.pgm" --bins 4
expect 0 threshold-value -- threshold "$work/t.pgm" "$work/mask.pgm" --method value=40
check threshold-value-mask cmp -s <(printf 'P5\n4 2\n255\n\0\0\377\377\0\0\377\377') "$work/mask.pgm"
expect 0 threshold-otsu -- --json threshold "$work/t.pgm" "$work/otsu.png" --method otsu
check threshold-otsu-json python3 -c "import json; d=json.load(open('$work/out')); assert d['threshold']==60 and d['backend'] and 'compute' in d['timings_ms']"
# One process reads a file it reads whole while Kokkos starts: the read's own time is read_ahead,
# what the command waited for it is read, and start is the process's start to the context ready.
check threshold-read-ahead python3 -c "import json; t=json.load(open('$work/out'))['timings_ms']; assert t['read_ahead'] > 0 and t['start'] > 0 and 'read' in t, t"
expect 0 threshold-mean -- threshold "$work/t.pgm" "$work/mean.tif" --method mean=3,2
expect 2 threshold-bad-method -- threshold "$work/t.pgm" "$work/x.png" --method median
check threshold-bad-method-names one_line_naming "method"
expect 2 threshold-even-block -- threshold "$work/t.pgm" "$work/x.png" --method mean=4,2
check threshold-no-output test ! -e "$work/x.png"

printf 'P3\n4 1\n255\n0 0 0 10 10 10 250 250 250 240 240 240\n' >"$work/c.ppm"
expect 0 kmeans -- --json kmeans "$work/c.ppm" "$work/k.pgm" --k 2 --seed 1
check kmeans-json python3 -c "import json; d=json.load(open('$work/out')); assert d['k']==2 and len(d['centres'])==2 and d['centres'][0][0] < d['centres'][1][0]"
check kmeans-map cmp -s <(printf 'P5\n4 1\n255\n\0\0\1\1') "$work/k.pgm"
expect 0 kmeans-attempts -- --json kmeans "$work/c.ppm" "$work/k4.pgm" --k 2 --seed 1 --attempts 3
check kmeans-attempts-json python3 -c "import json; d=json.load(open('$work/out')); assert d['attempts']==3 and 0 <= d['attempt'] < 3"
check kmeans-attempts-map cmp -s "$work/k.pgm" "$work/k4.pgm"
expect 2 kmeans-bad-attempts -- kmeans "$work/c.ppm" "$work/k5.pgm" --k 2 --attempts 0
check kmeans-bad-attempts-names one_line_naming "attempts"
check kmeans-bad-attempts-no-library-name test -z "$(grep -F '::' "$work/err")"
expect 2 kmeans-bad-k -- kmeans "$work/c.ppm" "$work/k2.pgm" --k 65
check kmeans-bad-k-names one_line_naming "k"
expect 3 kmeans-missing-input -- kmeans "$work/missing.tif" "$work/k3.pgm" --k 2

# morph: a 4x3 ramp eroded and dilated by a 3x3 rectangle (pixels outside the image take no part).
printf 'P5\n4 3\n255\n\001\002\003\004\005\006\007\010\011\012\013\014' >"$work/m.pgm"
expect 0 morph-erode -- morph "$work/m.pgm" "$work/me.pgm" --op erode --se rect --size 3
check morph-erode-values cmp -s <(printf 'P5\n4 3\n255\n\001\001\002\003\001\001\002\003\005\005\006\007') "$work/me.pgm"
expect 0 morph-gradient-json -- --json morph "$work/m.pgm" "$work/mg.pgm" --op gradient --se cross --size 3
check morph-json python3 -c "import json; d=json.load(open('$work/out')); assert d['op']=='gradient' and d['se']=='cross' and d['size']==3"
expect 2 morph-even-size -- morph "$work/m.pgm" "$work/m2.pgm" --op erode --size 4
check morph-even-size-names one_line_naming "size"
check morph-even-size-no-output test ! -e "$work/m2.pgm"
expect 2 morph-bad-op -- morph "$work/m.pgm" "$work/m3.pgm" --op thin --size 3
expect 3 morph-missing-input -- morph "$work/missing.pgm" "$work/m4.pgm" --op dilate --size 3
# median, gaussian, sobel, convolve on a 5x4 image with one bright outlier.
printf 'P5\n5 4\n255\n\012\012\012\012\012\012\012\377\012\012\012\012\012\012\012\012\012\012\012\012' >"$work/f.pgm"
expect 0 median3 -- median "$work/f.pgm" "$work/fm.pgm" --size 3
check median3-removes-outlier cmp -s <(printf 'P5\n5 4\n255\n\012\012\012\012\012\012\012\012\012\012\012\012\012\012\012\012\012\012\012\012') "$work/fm.pgm"
expect 2 median-size-7 -- median "$work/f.pgm" "$work/fm7.pgm" --size 7
check median-size-7-no-output test ! -e "$work/fm7.pgm"
expect 0 gaussian-json -- --json gaussian "$work/f.pgm" "$work/fg.pgm" --sigma 1
check gaussian-ksize python3 -c "import json; d=json.load(open('$work/out')); assert d['ksize']==7 and d['command']=='gaussian'"
expect 2 gaussian-bad-sigma -- gaussian "$work/f.pgm" "$work/fg2.pgm" --sigma -1
check gaussian-bad-sigma-names one_line_naming "usage error: --sigma: "
expect 2 gaussian-bad-ksize -- gaussian "$work/f.pgm" "$work/fg3.pgm" --sigma 1 --ksize 4
check gaussian-bad-ksize-names one_line_naming "usage error: --ksize: "
expect 2 median-tuned-on-serial -- --backend serial median "$work/f.pgm" "$work/fm-serial.pgm" --size 3 --path tuned
check median-tuned-on-serial-names one_line_naming "usage error: --path: "
check median-tuned-on-serial-no-output test ! -e "$work/fm-serial.pgm"
expect 0 sobel -- sobel "$work/f.pgm" "$work/fs.tif"
check sobel-float-tiff python3 -c "
import struct
b = open('$work/fs.tif','rb').read()
assert b[:2] in (b'II', b'MM')"
expect 2 sobel-png-output -- sobel "$work/f.pgm" "$work/fs.png"
check sobel-png-output-names one_line_naming "fs.png"
check sobel-png-no-output test ! -e "$work/fs.png"
printf '0 0 0\n0 1 0\n0 0 0\n' >"$work/identity.txt"
expect 0 convolve-identity-fft -- --json convolve "$work/f.pgm" "$work/identity.txt" "$work/fc.tif" --method fft
check convolve-method-json python3 -c "import json; d=json.load(open('$work/out')); assert d['method']=='fft' and d['kernel_width']==3"
expect 0 convolve-identity-direct -- convolve "$work/f.pgm" "$work/identity.txt" "$work/fd.tif" --method direct
expect 0 convolve-histogram -- histogram "$work/fd.tif" --bins 256 --range 0,256
check convolve-identity-values python3 -c "
rows = [l for l in open('$work/out').read().split() if not l.endswith(',0')]
assert rows == ['bin,count', '10,19', '255,1'], rows"
printf '1 2\n3\n' >"$work/ragged.txt"
expect 3 convolve-ragged-kernel -- convolve "$work/f.pgm" "$work/ragged.txt" "$work/fr.tif"
check convolve-ragged-names one_line_naming "ragged.txt"
check convolve-ragged-no-output test ! -e "$work/fr.tif"

# edt: exact distances to the nearest zero pixel, float32 TIFF; an image without a zero pixel is
# an input error naming the file. In l.pgm (below) every nonzero pixel touches a zero one.
printf 'P2\n5 4\n255\n255 0 0 0 0\n0 255 0 200 200\n0 0 0 0 200\n0 0 0 0 0\n' >"$work/e.pgm"
expect 0 edt -- edt "$work/e.pgm" "$work/e.tif"
expect 0 edt-histogram -- histogram "$work/e.tif" --bins 2 --range 0,2
check edt-values python3 -c "
rows = open('$work/out').read().split()
assert rows == ['bin,count', '0,15', '1,5'], rows"
printf 'P2\n3 3\n255\n9 9 9\n9 9 9\n9 9 0\n' >"$work/e2.pgm"
expect 0 edt-corner -- edt "$work/e2.pgm" "$work/e2.tif"
expect 0 edt-corner-histogram -- histogram "$work/e2.tif" --bins 4 --range 0,4
check edt-corner-values python3 -c "
rows = open('$work/out').read().split()
assert rows == ['bin,count', '0,1', '1,3', '2,5', '3,0'], rows"  # 1 1 sqrt2 | 2 2 sqrt5 sqrt5 sqrt8
expect 3 edt-no-zero -- edt "$work/f.pgm" "$work/fe.tif"
check edt-no-zero-names one_line_naming "f.pgm"
check edt-no-zero-no-output test ! -e "$work/fe.tif"
expect 2 edt-png-output -- edt "$work/e.pgm" "$work/e.png"

# watershed: two valleys on a ramp meet at the peak, which goes to the lower side (algorithms/
# watershed.hpp); the mask's 0 keeps a pixel unlabelled; bad sizes and connectivity are refused.
printf 'P2\n7 1\n255\n0 1 2 5 3 1 0\n' >"$work/w_relief.pgm"
printf 'P2\n7 1\n255\n1 0 0 0 0 0 2\n' >"$work/w_markers.pgm"
printf 'P2\n7 1\n255\n1 1 1 1 1 0 1\n' >"$work/w_mask.pgm"
expect 0 watershed -- --json watershed "$work/w_relief.pgm" "$work/w_markers.pgm" "$work/w.pgm"
check watershed-json python3 -c "import json; d=json.load(open('$work/out')); assert d['command']=='watershed' and d['connectivity']==4 and d['largest_label']==2"
check watershed-labels cmp -s <(printf 'P5\n7 1\n65535\n\000\001\000\001\000\001\000\001\000\002\000\002\000\002') "$work/w.pgm"
expect 0 watershed-mask -- watershed "$work/w_relief.pgm" "$work/w_markers.pgm" "$work/wm.pgm" --mask "$work/w_mask.pgm" --connectivity 8
check watershed-mask-labels cmp -s <(printf 'P5\n7 1\n65535\n\000\001\000\001\000\001\000\001\000\001\000\000\000\002') "$work/wm.pgm"
printf 'P2\n6 1\n255\n1 0 0 0 0 2\n' >"$work/w_small.pgm"
expect 3 watershed-size-mismatch -- watershed "$work/w_relief.pgm" "$work/w_small.pgm" "$work/w2.pgm"
check watershed-size-mismatch-names one_line_naming "w_small.pgm"
check watershed-size-mismatch-no-output test ! -e "$work/w2.pgm"
expect 2 watershed-connectivity -- watershed "$work/w_relief.pgm" "$work/w_markers.pgm" "$work/w3.pgm" --connectivity 6

# label and segment: two 8-connected components (a diagonal pair and an L), background 0.
printf 'P2\n5 4\n255\n255 0 0 0 0\n0 255 0 200 200\n0 0 0 0 200\n0 0 0 0 0\n' >"$work/l.pgm"
expect 0 label -- label "$work/l.pgm" "$work/l.tif" --stats "$work/l.csv"
check label-prints-n grep -qx "2" "$work/out"
check label-stats-header grep -qx "label,area,x0,y0,x1,y1,cx,cy,perimeter,mean_intensity" "$work/l.csv"
check label-stats-first grep -qx "1,2,0,0,1,1,0.5000,0.5000,8,255.0000" "$work/l.csv"
check label-stats-second grep -qx "2,3,3,1,4,2,3.6667,1.3333,8,200.0000" "$work/l.csv"
expect 0 label-4 -- --json label "$work/l.pgm" "$work/l4.pgm" --connectivity 4
check label-4-json python3 -c "import json; d=json.load(open('$work/out')); assert d['components']==3 and d['connectivity']==4 and 'compute' in d['timings_ms']"
check label-4-map cmp -s <(printf 'P5\n5 4\n65535\n\0\1\0\0\0\0\0\0\0\0\0\0\0\2\0\0\0\3\0\3\0\0\0\0\0\0\0\0\0\3\0\0\0\0\0\0\0\0\0\0') "$work/l4.pgm"
expect 0 label-of-labels -- label "$work/l.tif" "$work/relabelled.tif"
check label-of-labels-n grep -qx "2" "$work/out"
expect 3 label-stats-of-32-bit -- label "$work/l.tif" "$work/y.tif" --stats "$work/y.csv"
check label-stats-of-32-bit-names one_line_naming "l.tif"
check label-stats-of-32-bit-no-output test ! -e "$work/y.tif"
expect 2 label-bad-connectivity -- label "$work/l.pgm" "$work/x.tif" --connectivity 6
check label-bad-connectivity-names one_line_naming "connectivity"

# Labelling tile by tile: the labels and statistics of the in-memory run, byte for byte, for tiles
# that cut most components (a random 8-bit image of 300 x 200 in 32 x 48 tiles), chosen with
# --tile or by --memory-limit; the options and inputs it cannot take are refused by name.
python3 -c "
import random, sys; w, h = 300, 200; r = random.Random(7)
open(sys.argv[1], 'wb').write(b'P5\n%d %d\n255\n' % (w, h) + bytes(r.randrange(1, 256) if r.random() < 0.45 else 0 for _ in range(w * h)))" "$work/dots.pgm"
expect 0 dots-tif -- convert "$work/dots.pgm" "$work/dots.tif" --tiff-tile 64
expect 0 label-memory -- --compression none label "$work/dots.tif" "$work/dots-memory.tif" --stats "$work/dots-memory.csv"
expect 0 label-tiled -- --json label "$work/dots.tif" "$work/dots-tiled.tif" --stats "$work/dots-tiled.csv" --tile 32x48
check label-tiled-json python3 -c "import json; d=json.load(open('$work/out')); t=d['tiled']; assert t['tiles']==50 and t['passes']==2 and t['tile_width']==32 and t['pixel_bytes_written']==240000 and d['components']>100"
check label-tiled-reads-no-whole-image python3 -c "import json; t=json.load(open('$work/out'))['timings_ms']; assert 'read_ahead' not in t, t"
check label-tiled-same-stats cmp -s "$work/dots-memory.csv" "$work/dots-tiled.csv"
expect 0 label-tiled-untile -- --compression none convert "$work/dots-tiled.tif" "$work/dots-untiled.tif"
check label-tiled-same-labels cmp -s "$work/dots-memory.tif" "$work/dots-untiled.tif"
expect 0 label-over-budget -- --json label "$work/dots.tif" "$work/dots-budget.tif" --memory-limit 100K
check label-over-budget-tiled python3 -c "import json; d=json.load(open('$work/out')); assert d['tiled']['tile_width']==4096 and d['tiled']['tiles']==1 and 'read_ahead' not in d['timings_ms']"
expect 2 label-bad-tile -- label "$work/dots.tif" "$work/x.tif" --tile 30x48
check label-bad-tile-names one_line_naming "--tile"
expect 2 label-bad-limit -- label "$work/dots.tif" "$work/x.tif" --memory-limit lots
check label-bad-limit-names one_line_naming "--memory-limit"
expect 2 label-tiled-png-output -- label "$work/dots.tif" "$work/x.png" --tile 32x32
check label-tiled-png-output-names one_line_naming "x.png"
expect 0 label-tiled-pgm-input -- --json label "$work/dots.pgm" "$work/dots-pgm.tif" --stats "$work/dots-pgm.csv" \
  --tile 32x48
check label-tiled-pgm-decoded python3 -c "import json; d=json.load(open('$work/out')); t=d['tiled']; assert t['decoded_to_scratch'] and t['tiles']==50 and 'decode' in d['timings_ms']"
check label-tiled-pgm-same-stats cmp -s "$work/dots-memory.csv" "$work/dots-pgm.csv"
expect 0 label-tiled-pgm-untile -- --compression none convert "$work/dots-pgm.tif" "$work/dots-pgm-untiled.tif"
check label-tiled-pgm-same-labels cmp -s "$work/dots-memory.tif" "$work/dots-pgm-untiled.tif"
check label-tiled-pgm-no-scratch-left sh -c "! ls -a '$work' | grep -q gigaseg-scratch"
expect 0 convert-tiled -- --json convert "$work/dots.pgm" "$work/dots-converted.tif" --tile 32x48
check convert-tiled-json python3 -c "import json; d=json.load(open('$work/out')); assert d['tile_width']==32 and d['tile_height']==48 and d['width']==300"
expect 0 convert-tiled-untile -- convert "$work/dots-converted.tif" "$work/dots-back.pgm"
check convert-tiled-same-pixels cmp -s "$work/dots.pgm" "$work/dots-back.pgm"
expect 2 convert-tiled-png-output -- convert "$work/dots.pgm" "$work/x.png" --tile 32x48
check convert-tiled-png-output-names one_line_naming "x.png"
head -c 30000 "$work/dots.pgm" >"$work/short.pgm"
expect 3 label-tiled-short-pgm -- label "$work/short.pgm" "$work/x.tif" --tile 32x32
check label-tiled-short-pgm-names one_line_naming "short.pgm"
check label-tiled-short-pgm-nothing-left sh -c "test ! -e '$work/x.tif' && ! ls -a '$work' | grep -q gigaseg-scratch"
expect 0 tissue-tif -- demo --size 512 --out "$work/tissue"
expect 0 tissue-tiled-tif -- convert "$work/tissue/tissue.png" "$work/tissue.tif" --tiff-tile 64
expect 0 nuclei-memory -- --compression none segment "$work/tissue.tif" "$work/n-memory.tif" --pipeline nuclei \
  --stats "$work/n-memory.csv"
expect 0 nuclei-tiled -- --json segment "$work/tissue.tif" "$work/n-tiled.tif" --pipeline nuclei \
  --stats "$work/n-tiled.csv" --tile 48x32
check nuclei-tiled-json python3 -c "import json; d=json.load(open('$work/out')); t=d['tiled']; assert t['passes']==3 and t['tiles']==176 and d['foreground']=='dark' and d['components']>10"
check nuclei-tiled-same-stats cmp -s "$work/n-memory.csv" "$work/n-tiled.csv"
expect 0 nuclei-tiled-untile -- --compression none convert "$work/n-tiled.tif" "$work/n-untiled.tif"
check nuclei-tiled-same-labels cmp -s "$work/n-memory.tif" "$work/n-untiled.tif"
expect 0 nuclei-tiled-png -- segment "$work/tissue/tissue.png" "$work/n-png.tif" --pipeline nuclei \
  --stats "$work/n-png.csv" --tile 48x32
check nuclei-tiled-png-same-stats cmp -s "$work/n-memory.csv" "$work/n-png.csv"
# The tile engine's CUDA streams (--tile-streams): the same labels and statistics with none, one
# and three, on the GPU where the build has one (small tiles would go to the host otherwise).
on_gpu=()
if "$gigaseg" info | grep -q "backends:.*cuda"; then on_gpu=(--backend cuda); fi
for streams in 0 1 3; do
  expect 0 "nuclei-tiled-streams-$streams" -- "${on_gpu[@]}" --tile-streams "$streams" segment "$work/tissue.tif" \
    "$work/n-streams.tif" --pipeline nuclei --stats "$work/n-streams.csv" --tile 48x32
  check "nuclei-tiled-streams-$streams-same-stats" cmp -s "$work/n-memory.csv" "$work/n-streams.csv"
  expect 0 "nuclei-tiled-streams-$streams-untile" -- --compression none convert "$work/n-streams.tif" \
    "$work/n-streams-untiled.tif"
  check "nuclei-tiled-streams-$streams-same-labels" cmp -s "$work/n-memory.tif" "$work/n-streams-untiled.tif"
done
expect 2 bad-tile-streams -- --tile-streams 17 segment "$work/tissue.tif" "$work/x.tif" --pipeline nuclei --tile 48x32
check bad-tile-streams-names one_line_naming "tile-streams"
for filter in "median --size 5" "gaussian --sigma 3" "sobel" "morph --op open --se ellipse --size 7" \
  "morph --op close --se cross --size 9" "morph --op dilate --se rect --size 41"; do
  name=$(echo "$filter" | tr ' ' '-')
  expect 0 "$name-memory" -- --compression none $filter "$work/tissue.tif" "$work/f-memory.tif"
  expect 0 "$name-tiled" -- $filter "$work/tissue.tif" "$work/f-tiled.tif" --tile 32x16
  expect 0 "$name-untile" -- --compression none convert "$work/f-tiled.tif" "$work/f-untiled.tif"
  check "$name-tiled-same" cmp -s "$work/f-memory.tif" "$work/f-untiled.tif"
done
printf '0 1 0 1 0\n1 2 3 2 1\n0 3 -4 3 0\n1 2 3 2 1\n0 1 0 1 0\n' >"$work/k5.txt"
expect 0 convolve-memory -- --compression none convolve "$work/tissue.tif" "$work/k5.txt" "$work/f-memory.tif" \
  --method direct
expect 0 convolve-tiled -- convolve "$work/tissue.tif" "$work/k5.txt" "$work/f-tiled.tif" --tile 32x16
expect 0 convolve-untile -- --compression none convert "$work/f-tiled.tif" "$work/f-untiled.tif"
check convolve-tiled-same cmp -s "$work/f-memory.tif" "$work/f-untiled.tif"
expect 2 convolve-tiled-fft -- convolve "$work/tissue.tif" "$work/k5.txt" "$work/x.tif" --tile 32x16 --method fft
check convolve-tiled-fft-names one_line_naming "--method"
check convolve-tiled-fft-nothing-left test ! -e "$work/x.tif"
for method in otsu value=100 mean=11,2; do
  expect 0 "threshold-$method-memory" -- --compression none threshold "$work/tissue.tif" "$work/t-memory.tif" \
    --method "$method"
  expect 0 "threshold-$method-tiled" -- threshold "$work/tissue.tif" "$work/t-tiled.tif" --method "$method" --tile 32x16
  expect 0 "threshold-$method-untile" -- --compression none convert "$work/t-tiled.tif" "$work/t-untiled.tif"
  check "threshold-$method-tiled-same" cmp -s "$work/t-memory.tif" "$work/t-untiled.tif"
done
# edt in bands of whole rows: the in-memory distances, byte for byte, with --tile (bands of 16 rows)
# and chosen by --memory-limit (bands as tall as the limit holds); no zero pixel names the file.
expect 0 threshold-dots -- threshold "$work/dots.tif" "$work/t-dots.tif" --method otsu
expect 0 edt-memory -- --compression none edt "$work/t-memory.tif" "$work/d-memory.tif"
expect 0 edt-tiled -- --json edt "$work/t-memory.tif" "$work/d-tiled.tif" --tile 32x16
check edt-tiled-json python3 -c "import json; d=json.load(open('$work/out')); t=d['tiled']; assert t['passes']==2 and t['tile_height']==16 and t['pixel_bytes_written']==4*d['width']*d['height']"
expect 0 edt-tiled-untile -- --compression none convert "$work/d-tiled.tif" "$work/d-untiled.tif"
check edt-tiled-same cmp -s "$work/d-memory.tif" "$work/d-untiled.tif"
expect 0 edt-limit -- --json edt "$work/t-memory.tif" "$work/d-limit.tif" --memory-limit 100K
check edt-limit-banded python3 -c "import json; d=json.load(open('$work/out')); t=d['tiled']; assert t['tile_width']==4096 and t['tile_height']==16, t"
expect 0 edt-limit-untile -- --compression none convert "$work/d-limit.tif" "$work/d-untiled.tif"
check edt-limit-same cmp -s "$work/d-memory.tif" "$work/d-untiled.tif"
expect 0 edt-no-zero-tif -- convert "$work/f.pgm" "$work/f.tif"
expect 3 edt-tiled-no-zero -- edt "$work/f.tif" "$work/fe.tif" --tile 16x16
check edt-tiled-no-zero-names one_line_naming "f.tif"
check edt-tiled-no-zero-no-output test ! -e "$work/fe.tif"
# watershed tile by tile: the in-memory labels, byte for byte (the random image as the relief, its
# components as the markers, the Otsu mask); markers that are no TIFF are refused by name.
expect 0 watershed-memory -- --compression none watershed "$work/dots.tif" "$work/dots-memory.tif" \
  "$work/ws-memory.tif" --mask "$work/t-dots.tif" --connectivity 8
expect 0 watershed-tiled -- --json watershed "$work/dots.tif" "$work/dots-memory.tif" "$work/ws-tiled.tif" \
  --mask "$work/t-dots.tif" --connectivity 8 --tile 32x48
check watershed-tiled-json python3 -c "import json; d=json.load(open('$work/out')); t=d['tiled']; assert t['rounds']>=2 and t['tiles']==50 and t['passes']==t['rounds']+1, t"
expect 0 watershed-tiled-untile -- --compression none convert "$work/ws-tiled.tif" "$work/ws-untiled.tif"
check watershed-tiled-same cmp -s "$work/ws-memory.tif" "$work/ws-untiled.tif"
expect 2 watershed-tiled-pgm-markers -- watershed "$work/dots.tif" "$work/dots.pgm" "$work/x.tif" --tile 32x48
check watershed-tiled-pgm-markers-names one_line_naming "dots.pgm"
expect 0 histogram-memory -- histogram "$work/tissue.tif"
cp "$work/out" "$work/h-memory.csv"
expect 0 histogram-tiled -- histogram "$work/tissue.tif" --tile 48x32
check histogram-tiled-same cmp -s "$work/h-memory.csv" "$work/out"
# The cells pipeline tile by tile: the in-memory labels and statistics, byte for byte; the
# gradient relief is refused tile by tile, by name.
expect 0 cells-memory -- --compression none segment "$work/tissue.tif" "$work/c-memory.tif" --pipeline cells \
  --stats "$work/c-memory.csv"
expect 0 cells-tiled -- --json segment "$work/tissue.tif" "$work/c-tiled.tif" --pipeline cells --tile 64x48 \
  --stats "$work/c-tiled.csv"
check cells-tiled-json python3 -c "import json; d=json.load(open('$work/out')); t=d['tiled']; assert d['pipeline']=='cells' and d['components']>10 and t['rounds']['watershed']>=1 and t['tile_height']==48, d"
check cells-tiled-same-stats cmp -s "$work/c-memory.csv" "$work/c-tiled.csv"
expect 0 cells-tiled-untile -- --compression none convert "$work/c-tiled.tif" "$work/c-untiled.tif"
check cells-tiled-same-labels cmp -s "$work/c-memory.tif" "$work/c-untiled.tif"
check cells-tiled-no-scratch-left sh -c "! ls -a '$work' | grep -q gigaseg-scratch"
# By windows (tiles of 256 x 256, each computed in a window 128 pixels wider around it).
expect 0 cells-windows -- --json segment "$work/tissue.tif" "$work/c-windows.tif" --pipeline cells --tile 256x256 \
  --stats "$work/c-windows.csv"
check cells-windows-json python3 -c "import json; d=json.load(open('$work/out')); t=d['tiled']; assert t['windows']['halo']==128 and t['passes']==2 and t['tiles']>=4 and t['stage_seconds']['windows']>0, d"
check cells-windows-same-stats cmp -s "$work/c-memory.csv" "$work/c-windows.csv"
expect 0 cells-windows-untile -- --compression none convert "$work/c-windows.tif" "$work/c-untiled.tif"
check cells-windows-same-labels cmp -s "$work/c-memory.tif" "$work/c-untiled.tif"
expect 0 cells-no-windows -- --json --window-halo 0 segment "$work/tissue.tif" "$work/c-rounds.tif" --pipeline cells \
  --tile 256x256 --stats "$work/c-rounds.csv"
check cells-no-windows-json python3 -c "import json; d=json.load(open('$work/out')); t=d['tiled']; assert t['windows']['halo']==0 and t['rounds']['watershed']>=1, d"
check cells-no-windows-same-stats cmp -s "$work/c-memory.csv" "$work/c-rounds.csv"
expect 2 cells-bad-window-halo -- segment "$work/tissue.tif" "$work/c.tif" --pipeline cells --window-halo -1
check cells-bad-window-halo-names one_line_naming "--window-halo"
expect 2 cells-tiled-gradient -- segment "$work/tissue.tif" "$work/c.tif" --pipeline cells --relief gradient \
  --tile 64x64
check cells-tiled-gradient-names one_line_naming "--relief"
# The kmeans pipeline tile by tile, on the gray tissue and a colour image: the in-memory centres,
# class, labels and statistics, byte for byte; past --memory-limit it is taken tile by tile itself.
python3 "$(dirname "$0")/stain_ppm.py" 230 170 "$work/stain.ppm"
expect 0 stain-tif -- convert "$work/stain.ppm" "$work/stain.tif" --tiff-tile 32
for image in tissue stain; do
  expect 0 "kmeans-$image-memory" -- --json --compression none segment "$work/$image.tif" "$work/k-$image-memory.tif" \
    --pipeline kmeans --k 3 --seed 2 --stats "$work/k-$image-memory.csv"
  cp "$work/out" "$work/k-$image-memory.json"
  expect 0 "kmeans-$image-tiled" -- --json segment "$work/$image.tif" "$work/k-$image-tiled.tif" --pipeline kmeans \
    --k 3 --seed 2 --tile 64x48 --stats "$work/k-$image-tiled.csv"
  check "kmeans-$image-tiled-json" python3 -c "import json; m=json.load(open('$work/k-$image-memory.json')); t=json.load(open('$work/out')); assert 'tiled' not in m and t['tiled']['tile_height']==48 and t['centres']==m['centres'] and t['object_class']==m['object_class'] and t['components']==m['components']>3 and t['iterations']>=1, (t, m)"
  check "kmeans-$image-tiled-same-stats" cmp -s "$work/k-$image-memory.csv" "$work/k-$image-tiled.csv"
  expect 0 "kmeans-$image-untile" -- --compression none convert "$work/k-$image-tiled.tif" "$work/k-$image-untiled.tif"
  check "kmeans-$image-tiled-same-labels" cmp -s "$work/k-$image-memory.tif" "$work/k-$image-untiled.tif"
done
expect 0 kmeans-limited -- --json segment "$work/stain.tif" "$work/k-limited.tif" --pipeline kmeans --k 3 --seed 2 \
  --memory-limit 300K --stats "$work/k-limited.csv"
check kmeans-limited-tiled python3 -c "import json; d=json.load(open('$work/out')); assert d['tiled']['tiles']>=1, d"
check kmeans-limited-same-stats cmp -s "$work/k-stain-memory.csv" "$work/k-limited.csv"
expect 2 nuclei-tiled-overlay -- segment "$work/tissue.tif" "$work/n.tif" --pipeline nuclei --tile 64x64 \
  --overlay "$work/n.png"
check nuclei-tiled-overlay-names one_line_naming "--overlay"
expect 3 label-missing-stats-folder -- label "$work/l.pgm" "$work/x.tif" --stats "$work/nowhere/s.csv"
check label-no-output test ! -e "$work/x.tif"
expect 0 segment-nuclei -- --json segment "$work/l.pgm" "$work/s.tif" --pipeline nuclei --foreground bright \
  --stats "$work/s.csv" --overlay "$work/s.png"
check segment-json python3 -c "import json; d=json.load(open('$work/out')); assert d['components']==2 and d['pipeline']=='nuclei' and all(k in d['timings_ms'] for k in ('otsu','label','stats','compute'))"
check segment-overlay test -s "$work/s.png"
expect 2 segment-unknown-pipeline -- segment "$work/l.pgm" "$work/s2.tif" --pipeline watershed
check segment-unknown-names one_line_naming "pipeline"

# GeoJSON outlines (docs/cli.md, "GeoJSON"): each region's polygons fill back exactly its pixels,
# their areas and the measurements are the statistics', every geometry valid for GEOS, under 8- and
# 4-connectivity; simplified outlines keep the shape with fewer vertices; tile by tile the same
# bytes. Checked with /usr/bin/python3, which has Debian's shapely.
check_geojson="/usr/bin/python3 $(dirname "$0")/check_geojson.py"
for connectivity in 8 4; do
  expect 0 "geojson-label$connectivity" -- label "$work/dots.tif" "$work/g$connectivity.pgm" \
    --connectivity "$connectivity" --stats "$work/g$connectivity.csv" --geojson "$work/g$connectivity.geojson"
  check "geojson-label$connectivity-exact" $check_geojson "$work/g$connectivity.pgm" "$work/g$connectivity.geojson" \
    "$work/g$connectivity.csv"
done
check geojson-one-polygon-a-4-connected-component python3 -c "
import json; t = lambda p: [f['geometry']['type'] for f in json.load(open(p))['features']]
assert 'MultiPolygon' not in t('$work/g4.geojson')"
expect 0 geojson-flat -- label "$work/dots.tif" "$work/gf.pgm" --stats "$work/gf.csv" --geojson "$work/gf.geojson" \
  --geojson-properties flat
check geojson-flat-exact $check_geojson "$work/gf.pgm" "$work/gf.geojson" "$work/gf.csv" --flat
expect 2 geojson-bad-properties -- label "$work/dots.tif" "$work/gf.pgm" --geojson "$work/gf2.geojson" \
  --geojson-properties nested
check geojson-bad-properties-names one_line_naming "--geojson-properties"
# Simplified on the 4-connected labels, whose regions are one polygon each (8-connected salt is many
# pieces of a few pixels, each simplified on its own).
expect 0 geojson-simplified -- label "$work/dots.tif" "$work/gs.pgm" --stats "$work/gs.csv" --geojson "$work/gs.geojson" \
  --simplify 1.5 --connectivity 4
check geojson-simplified-shape $check_geojson "$work/gs.pgm" "$work/gs.geojson" "$work/gs.csv" \
  --simplified "$work/g4.geojson" 1.5
check geojson-simplified-fewer-vertices python3 -c "
import json
polygons = lambda g: [g['coordinates']] if g['type'] == 'Polygon' else g['coordinates']
n = lambda p: sum(len(r) for f in json.load(open(p))['features'] for q in polygons(f['geometry']) for r in q)
assert n('$work/gs.geojson') < 0.8 * n('$work/g4.geojson'), (n('$work/gs.geojson'), n('$work/g4.geojson'))"
# Tile by tile, the labels are read back in bands of rows that hold whole regions: the same file.
expect 0 geojson-tiled -- label "$work/dots.tif" "$work/gt.tif" --tile 32x48 --geojson "$work/gt.geojson"
check geojson-tiled-equals-memory cmp -s "$work/gt.geojson" "$work/g8.geojson"
python3 -c "
import random, sys; w, h = 90, 2600; r = random.Random(11)
open(sys.argv[1], 'wb').write(b'P5\n%d %d\n255\n' % (w, h) + bytes(r.randrange(1, 256) if r.random() < 0.42 else 0 for _ in range(w * h)))" "$work/tall.pgm"
expect 0 tall-tif -- convert "$work/tall.pgm" "$work/tall.tif" --tiff-tile 64
expect 0 geojson-tall-memory -- label "$work/tall.tif" "$work/tall-m.pgm" --stats "$work/tall-m.csv" \
  --geojson "$work/tall-m.geojson" --connectivity 4
for limit in 1G 200K; do  # three bands of rows, and bands of a few dozen rows
  expect 0 "geojson-tall-tiled-$limit" -- --json label "$work/tall.tif" "$work/tall-t.tif" --tile 48x64 \
    --geojson "$work/tall-t$limit.geojson" --connectivity 4 --memory-limit "$limit"
  check "geojson-tall-tiled-$limit-equals-memory" cmp -s "$work/tall-t$limit.geojson" "$work/tall-m.geojson"
done
check geojson-tall-exact $check_geojson "$work/tall-m.pgm" "$work/tall-m.geojson" "$work/tall-m.csv"
# Salt under 8-connectivity: regions touching themselves at corners everywhere (MultiPolygons of
# their 4-connected pieces, rings pinched at corners split), all valid; tile by tile the same bytes
# (bands of whole regions: one of them spans 1072 rows).
expect 0 geojson-salt8-memory -- label "$work/tall.tif" "$work/tall8-m.pgm" --stats "$work/tall8-m.csv" \
  --geojson "$work/tall8-m.geojson"
check geojson-salt8-exact-and-valid $check_geojson "$work/tall8-m.pgm" "$work/tall8-m.geojson" "$work/tall8-m.csv"
check geojson-salt8-has-multipolygons grep -q MultiPolygon "$work/tall8-m.geojson"
expect 0 geojson-salt8-tiled -- label "$work/tall.tif" "$work/tall8-t.tif" --tile 48x64 \
  --geojson "$work/tall8-t.geojson" --memory-limit 1G
check geojson-salt8-tiled-equals-memory cmp -s "$work/tall8-t.geojson" "$work/tall8-m.geojson"
expect 4 geojson-tiled-too-tall -- label "$work/dots.tif" "$work/gt2.tif" --tile 32x48 --geojson "$work/gt2.geojson" \
  --memory-limit 2K
check geojson-tiled-too-tall-names one_line_naming "--geojson: a region .* rows tall needs more memory"
check geojson-tiled-too-tall-nothing-written test ! -e "$work/gt2.tif" -a ! -e "$work/gt2.geojson"
expect 2 geojson-bad-simplify -- label "$work/dots.tif" "$work/gt.tif" --geojson "$work/gt.geojson" --simplify -1
check geojson-bad-simplify-names one_line_naming "--simplify"
cp "$work/dots.tif" "$work/dots-before.tif"
expect 2 geojson-replaces-input -- label "$work/dots.tif" "$work/gt.tif" --geojson "$work/dots.tif"
check geojson-replaces-input-names one_line_naming "--geojson"
check geojson-replaces-input-intact cmp -s "$work/dots.tif" "$work/dots-before.tif"

# OME-Zarr (docs/cli.md, "OME-Zarr"): labels and distances written as OME-Zarr hold the TIFF route's
# values (python3-zarr reads them); a Zarr input, whole or tile by tile (read by region, chunk by
# chunk), gives the labels and statistics of the same image from a TIFF; written tile by tile, its
# chunks are the tiles and its values the in-memory TIFF's; a folder that is no Zarr is never
# replaced.
zarr_equal="/usr/bin/python3 -c \"
import sys, numpy, tifffile, zarr
z = zarr.open(sys.argv[1], mode='r')['0'][:]
assert numpy.array_equal(z, tifffile.imread(sys.argv[2])), 'the OME-Zarr and the TIFF differ'\""
expect 0 zarr-labels -- label "$work/dots.tif" "$work/dots.ome.zarr" --stats "$work/dots-zarr.csv"
check zarr-labels-equal-tiff bash -c "$zarr_equal '$work/dots.ome.zarr' '$work/dots-memory.tif'"
check zarr-labels-same-stats cmp -s "$work/dots-zarr.csv" "$work/dots-memory.csv"
expect 0 zarr-distances -- edt "$work/t-memory.tif" "$work/d.ome.zarr"
check zarr-distances-equal-tiff bash -c "$zarr_equal '$work/d.ome.zarr' '$work/d-memory.tif'"
expect 0 zarr-input-convert -- convert "$work/dots.tif" "$work/dots-in.ome.zarr"
expect 0 zarr-input-memory -- --compression none label "$work/dots-in.ome.zarr" "$work/zin-memory.tif" \
  --stats "$work/zin-memory.csv"
check zarr-input-memory-equals-tiff-input cmp -s "$work/zin-memory.tif" "$work/dots-memory.tif"
expect 0 zarr-input-tiled -- label "$work/dots-in.ome.zarr" "$work/zin-tiled.tif" --stats "$work/zin-tiled.csv" \
  --tile 32x48
check zarr-input-tiled-same-stats cmp -s "$work/zin-tiled.csv" "$work/dots-memory.csv"
expect 0 zarr-input-tiled-untile -- --compression none convert "$work/zin-tiled.tif" "$work/zin-untiled.tif"
check zarr-input-tiled-equals-memory cmp -s "$work/zin-untiled.tif" "$work/dots-memory.tif"
expect 0 zarr-tiled-output -- label "$work/dots.tif" "$work/zt.ome.zarr" --tile 32x48 --stats "$work/zt.csv"
check zarr-tiled-output-equals-tiff bash -c "$zarr_equal '$work/zt.ome.zarr' '$work/dots-memory.tif'"
check zarr-tiled-output-same-stats cmp -s "$work/zt.csv" "$work/dots-memory.csv"
check zarr-tiled-output-chunks-are-tiles /usr/bin/python3 -c "
import zarr; assert zarr.open('$work/zt.ome.zarr', mode='r')['0'].chunks == (48, 32)"
expect 0 zarr-tiled-cells -- segment "$work/tissue.tif" "$work/zc.ome.zarr" --pipeline cells --tile 64x64
check zarr-tiled-cells-equals-tiff bash -c "$zarr_equal '$work/zc.ome.zarr' '$work/c-memory.tif'"
mkdir -p "$work/keep.ome.zarr" && echo precious >"$work/keep.ome.zarr/notes.txt"
expect 2 zarr-replaces-a-folder -- label "$work/dots.tif" "$work/keep.ome.zarr"
check zarr-replaces-a-folder-names one_line_naming "keep.ome.zarr: is there already and is no Zarr image"
check zarr-replaces-a-folder-intact test -s "$work/keep.ome.zarr/notes.txt"
expect 2 zarr-plain-name -- label "$work/dots.tif" "$work/dots.zarr"
check zarr-plain-name-names one_line_naming "name them .ome.zarr"

# FITS input (cfitsio): a float star field with a block of NaN (no data) thresholded by Otsu over
# its finite pixels, the NaN never foreground; its stars labelled; converted to a float TIFF whole
# and by bands of rows (read by region) alike; an 8-bit star field segmented tile by tile as in
# memory; a cube refused naming the file.
python3 "$(dirname "$0")/write_fits.py" "$work/stars.fits" star
python3 "$(dirname "$0")/write_fits.py" "$work/stars8.fits" star8
python3 "$(dirname "$0")/write_fits.py" "$work/cube.fits" cube
expect 0 fits-threshold -- --compression none threshold "$work/stars.fits" "$work/stars-mask.tif" --method otsu
expect 0 fits-convert-whole -- --compression none convert "$work/stars.fits" "$work/stars-whole.tif"
expect 0 fits-convert-bands -- convert "$work/stars.fits" "$work/stars-bands.tif" --tile 32x32
expect 0 fits-convert-untile -- --compression none convert "$work/stars-bands.tif" "$work/stars-untiled.tif"
check fits-convert-bands-same cmp -s "$work/stars-whole.tif" "$work/stars-untiled.tif"
expect 0 fits-nuclei -- --compression none segment "$work/stars8.fits" "$work/stars8.tif" --pipeline nuclei \
  --stats "$work/stars8.csv"
expect 0 fits-nuclei-tiled -- segment "$work/stars8.fits" "$work/stars8-tiled.tif" --pipeline nuclei --tile 32x32 \
  --stats "$work/stars8-tiled.csv"
check fits-nuclei-tiled-same-stats cmp -s "$work/stars8.csv" "$work/stars8-tiled.csv"
check fits-nuclei-five-stars test "$(wc -l <"$work/stars8.csv")" -eq 6
# The stars pipeline on a noisy sky: the background and noise from the finite pixels, sources above
# 5 sigma, each star's flux-weighted centroid within 0.1 pixel of where it was drawn and its flux
# within 15% of the drawn Gaussian's (the wings below the threshold are not counted).
python3 "$(dirname "$0")/write_fits.py" "$work/sky.fits" sky
expect 0 stars-pipeline -- --json segment "$work/sky.fits" "$work/sky.tif" --pipeline stars --stats "$work/sky.csv"
check stars-report python3 -c "
import json; d = json.load(open('$work/out'))
assert d['pipeline'] == 'stars' and d['components'] == 7 and abs(d['background'] - 1000) < 1 and 4 < d['noise'] < 6, d"
check stars-centroids python3 -c "
import csv, math, sys
sys.path.insert(0, '$(dirname "$0")')
from write_fits import SKY_STARS
rows = list(csv.DictReader(open('$work/sky.csv')))
assert len(rows) == 7, rows
for sx, sy, a in SKY_STARS:
    r = min(rows, key=lambda r: (float(r['flux_cx']) - sx) ** 2 + (float(r['flux_cy']) - sy) ** 2)
    d = math.hypot(float(r['flux_cx']) - sx, float(r['flux_cy']) - sy)
    assert d < 0.1, (sx, sy, r)
    assert 0.85 < float(r['flux']) / (2 * math.pi * 1.5 ** 2 * a) <= 1.02, (a, r['flux'])"
expect 0 stars-serial -- --backend serial segment "$work/sky.fits" "$work/sky-serial.tif" --pipeline stars \
  --stats "$work/sky-serial.csv"
check stars-same-on-serial cmp -s "$work/sky.csv" "$work/sky-serial.csv"
expect 2 stars-tiled -- segment "$work/sky.fits" "$work/x.tif" --pipeline stars --tile 32x32
check stars-tiled-names one_line_naming "--tile"
expect 2 stars-batch -- batch --pipeline stars --input "$work" --output "$work/stars-batch"
check stars-batch-names one_line_naming "--pipeline"
printf 'P6\n4 3\n255\n%036d' 0 >"$work/colour.ppm"
expect 3 stars-rgb -- segment "$work/colour.ppm" "$work/x.tif" --pipeline stars
check stars-rgb-names one_line_naming "colour.ppm: the stars pipeline takes a gray or float image"
expect 0 fits-label -- label "$work/stars-mask.tif" "$work/stars-labels.pgm" --stats "$work/stars.csv"
check fits-five-stars test "$(cat "$work/out")" = 5
expect 0 fits-convert -- --json convert "$work/stars.fits" "$work/stars-float.tif"
check fits-convert-float python3 -c "
import json; d = json.load(open('$work/out')); assert d['pixel_type'] == 'f32' and d['width'] == 96 and d['height'] == 80, d"
check fits-nan-never-foreground python3 -c "
import struct; data = open('$work/stars-labels.pgm', 'rb').read().split(b'\\n', 3)[3]
w = 96; v = lambda x, y: struct.unpack_from('>H', data, 2 * (y * w + x))[0] if len(data) == 2 * 96 * 80 else data[y * w + x]
assert all(v(x, y) == 0 for y in range(60, 70) for x in range(10, 40))"
expect 3 fits-cube -- convert "$work/cube.fits" "$work/cube.tif"
check fits-cube-names one_line_naming "cube.fits.*3 axes"
check fits-cube-nothing-written test ! -e "$work/cube.tif"

# demo and the cells / kmeans pipelines on its synthetic tissue (every drawn cell found).
expect 0 demo -- --json demo --size 512 --out "$work/demo"
check demo-json python3 -c "import json; d=json.load(open('$work/out')); assert d['components']==d['cells_drawn']>=10 and all(k in d['timings_ms'] for k in ('edt','markers','watershed','merge'))"
check demo-files test -s "$work/demo/tissue.png" -a -s "$work/demo/labels.tif" -a -s "$work/demo/overlay.png"
cells=$(python3 -c "import json; print(json.load(open('$work/out'))['cells_drawn'])")
expect 0 segment-cells -- --json segment "$work/demo/tissue.png" "$work/c.tif" --pipeline cells --stats "$work/c.csv" --overlay "$work/c.png"
check segment-cells-json python3 -c "import json; d=json.load(open('$work/out')); assert d['components']==$cells and d['foreground']=='dark' and d['markers']==$cells and all(k in d['timings_ms'] for k in ('median','otsu','open','edt','markers','watershed','merge','stats'))"
check segment-cells-stats test "$(wc -l <"$work/c.csv")" -eq $((cells + 1))
expect 0 segment-cells-gradient -- --json segment "$work/demo/tissue.png" "$work/cg.tif" --pipeline cells --relief gradient --background-distance 6
check segment-cells-gradient-json python3 -c "import json; d=json.load(open('$work/out')); assert 0 < d['components'] <= $cells and 'relief' in d['timings_ms']"
expect 0 segment-kmeans -- --json segment "$work/demo/tissue.png" "$work/k.tif" --pipeline kmeans --k 2 --seed 1
check segment-kmeans-json python3 -c "import json; d=json.load(open('$work/out')); assert d['object_class']==0 and d['components']>=1 and len(d['centres'])==2 and 'kmeans' in d['timings_ms']"
expect 0 segment-cells-geojson -- segment "$work/demo/tissue.png" "$work/cgj.pgm" --pipeline cells --stats "$work/cgj.csv" \
  --geojson "$work/cgj.geojson"
check segment-cells-geojson-exact $check_geojson "$work/cgj.pgm" "$work/cgj.geojson" "$work/cgj.csv"
expect 4 demo-too-large -- demo --size 100000 --out "$work/huge-demo"
check demo-too-large-names one_line_naming "size.*GiB"
check demo-too-large-nothing-written test ! -e "$work/huge-demo"
expect 2 segment-bad-open -- segment "$work/demo/tissue.png" "$work/x.tif" --pipeline cells --open 4
check segment-bad-open-names one_line_naming "open"
expect 2 segment-bad-class -- segment "$work/demo/tissue.png" "$work/x.tif" --pipeline kmeans --k 2 --class 2
check segment-bad-class-names one_line_naming "class"
check segment-bad-no-output test ! -e "$work/x.tif"
# batch: a folder with three good images and a corrupt one; the corrupt one is reported in the
# summary and the exit, the others are segmented; --resume skips the finished ones; list files.
mkdir -p "$work/batch-in"
for name in a b d; do cp "$work/demo/tissue.png" "$work/batch-in/$name.png"; done
head -c 300 "$work/demo/tissue.png" >"$work/batch-in/c.png"
echo "not an image" >"$work/batch-in/notes.txt"
expect 3 batch-one-bad -- --quiet batch --pipeline cells --input "$work/batch-in" --output "$work/batch-out" --stats
check batch-one-bad-names one_line_naming "summary.csv"
check batch-summary python3 -c "
import csv; rows = list(csv.DictReader(open('$work/batch-out/summary.csv')))
assert [r['file'].split('/')[-1] for r in rows] == ['a.png', 'b.png', 'c.png', 'd.png'], rows
assert rows[2]['status'].startswith('error: corrupt or truncated PNG'), rows[2]
assert all(r['status'] == 'ok' and int(r['components']) == $cells for r in rows if not r['file'].endswith('c.png'))"
check batch-outputs test -s "$work/batch-out/a.tif" -a -s "$work/batch-out/b.csv" -a -s "$work/batch-out/d.tif" -a ! -e "$work/batch-out/c.tif"
check batch-labels-equal-segment cmp "$work/batch-out/a.tif" "$work/c.tif"
rm "$work/batch-in/c.png"
rm "$work/batch-out/b.tif"
expect 0 batch-resume -- batch --pipeline cells --input "$work/batch-in" --output "$work/batch-out" --stats --resume
check batch-resume-progress test "$(grep -c "(resumed)" "$work/err")" -eq 2
check batch-resume-redone test -s "$work/batch-out/b.tif"
check batch-resume-summary python3 -c "
import csv; rows = list(csv.DictReader(open('$work/batch-out/summary.csv')))
assert len(rows) == 3 and all(r['status'] == 'ok' and int(r['components']) == $cells for r in rows), rows"
expect 0 batch-geojson -- batch --pipeline cells --input "$work/batch-in" --output "$work/batch-geojson" --geojson
check batch-geojson-equals-segment cmp -s "$work/batch-geojson/a.geojson" "$work/cgj.geojson"
check batch-geojson-every-image test -s "$work/batch-geojson/b.geojson" -a -s "$work/batch-geojson/d.geojson"
expect 0 batch-geojson-tiled -- batch --pipeline cells --input "$work/batch-in" --output "$work/batch-gt" --geojson \
  --tile 64x64
check batch-geojson-tiled-equals-memory cmp -s "$work/batch-gt/a.geojson" "$work/cgj.geojson"
printf '# two of them\nbatch-in/a.png\n\n%s\n' "$work/batch-in/d.png" >"$work/list.txt"
expect 0 batch-list -- --json batch --pipeline nuclei --input "$work/list.txt" --output "$work/batch-list"
check batch-list-json python3 -c "import json; d=json.load(open('$work/out')); assert d['images']==2 and d['ok']==2 and d['failed']==0"
check batch-list-outputs test -s "$work/batch-list/a.tif" -a -s "$work/batch-list/d.tif" -a -s "$work/batch-list/summary.csv"
# Overlap: lanes (CUDA streams on a GPU build), readers ahead and a mixed run (small images on the
# host, large on the device under --backend auto) give the same files as --sequential.
mkdir -p "$work/batch-mixed"
expect 0 demo-small -- --quiet demo --size 200 --out "$work/demo-small"
for name in m1 m3 m5; do cp "$work/demo/tissue.png" "$work/batch-mixed/$name.png"; done
for name in m2 m4; do cp "$work/demo-small/tissue.png" "$work/batch-mixed/$name.png"; done
expect 0 batch-sequential -- --json --small-image-pixels pipeline=100000 batch --pipeline cells --input "$work/batch-mixed" --output "$work/batch-seq" --sequential --stats
check batch-sequential-json python3 -c "import json; d=json.load(open('$work/out')); assert d['sequential'] and d['streams']==1 and d['ok']==5 and sum(d['backends'].values())==5 and set(d['work_ms'])=={'decode','segment','write'}"
expect 0 batch-lanes -- --json --small-image-pixels pipeline=100000 batch --pipeline cells --input "$work/batch-mixed" --output "$work/batch-lanes" --streams 3 --readers 2 --writers 1 --stats
check batch-lanes-json python3 -c "import json; d=json.load(open('$work/out')); assert not d['sequential'] and d['readers']==2 and d['writers']==1 and d['ok']==5 and d['images_per_second']>0"
check batch-lanes-equal-sequential bash -c "for n in m1 m2 m3 m4 m5; do cmp '$work/batch-seq/'\$n.tif '$work/batch-lanes/'\$n.tif && cmp '$work/batch-seq/'\$n.csv '$work/batch-lanes/'\$n.csv || exit 1; done"
check batch-lanes-staged-json python3 -c "import json; d=json.load(open('$work/out')); assert d['staged_ahead'] >= 0 and 'upload' in d['segment_stages_ms']"
# kmeans takes the colour image (staged as RGB on a lane): lanes and sequential agree.
# batch tile by tile: every image with --tile, the larger ones past --memory-limit; the labels and
# statistics those of the in-memory batch, and an overlay refused with --tile.
expect 0 batch-tiled -- --json batch --pipeline cells --input "$work/batch-mixed" --output "$work/batch-tiled" --stats --tile 64x48
check batch-tiled-json python3 -c "import json; d=json.load(open('$work/out')); assert d['tiled_images']==5 and d['ok']==5 and d['images_per_second']>0, d"
check batch-tiled-no-scratch-left sh -c "! ls -a '$work/batch-tiled' | grep -q gigaseg-scratch"
expect 0 batch-limited -- --json batch --pipeline cells --input "$work/batch-mixed" --output "$work/batch-limited" --stats --memory-limit 4M
check batch-limited-json python3 -c "import json; d=json.load(open('$work/out')); assert d['tiled_images']==3 and d['ok']==5, d"
check batch-tiled-equal-memory bash -c "for n in m1 m2 m3 m4 m5; do for run in tiled limited seq; do '$gigaseg' --quiet --compression none convert '$work/batch-'\$run/\$n.tif '$work/batch-u'\$run.tif || exit 1; done; cmp '$work/batch-useq.tif' '$work/batch-utiled.tif' && cmp '$work/batch-useq.tif' '$work/batch-ulimited.tif' && cmp '$work/batch-seq/'\$n.csv '$work/batch-tiled/'\$n.csv && cmp '$work/batch-seq/'\$n.csv '$work/batch-limited/'\$n.csv || exit 1; done"
expect 2 batch-tiled-overlay -- batch --pipeline cells --input "$work/batch-mixed" --output "$work/batch-x" --tile 64x48 --overlay
check batch-tiled-overlay-names one_line_naming "--overlay"
expect 0 batch-kmeans-sequential -- --small-image-pixels pipeline=100000 batch --pipeline kmeans --input "$work/batch-mixed" --output "$work/batch-kseq" --sequential
expect 0 batch-tiled-kmeans -- --json batch --pipeline kmeans --input "$work/batch-mixed" --output "$work/batch-ktiled" --tile 64x48
check batch-tiled-kmeans-json python3 -c "import json; d=json.load(open('$work/out')); assert d['tiled_images']==5 and d['ok']==5, d"
check batch-tiled-kmeans-equal-memory bash -c "for n in m1 m2 m3 m4 m5; do for run in ktiled kseq; do '$gigaseg' --quiet --compression none convert '$work/batch-'\$run/\$n.tif '$work/batch-u'\$run.tif || exit 1; done; cmp '$work/batch-ukseq.tif' '$work/batch-uktiled.tif' || exit 1; done"
expect 0 batch-kmeans-lanes -- --small-image-pixels pipeline=100000 batch --pipeline kmeans --input "$work/batch-mixed" --output "$work/batch-klanes" --streams 2 --readers 4
check batch-kmeans-lanes-equal-sequential bash -c "for n in m1 m2 m3 m4 m5; do cmp '$work/batch-kseq/'\$n.tif '$work/batch-klanes/'\$n.tif || exit 1; done"
expect 2 batch-bad-streams -- batch --pipeline cells --input "$work/batch-mixed" --output "$work/batch-x" --streams 0
check batch-bad-streams-names one_line_naming "streams"
expect 2 batch-bad-writers -- batch --pipeline cells --input "$work/batch-mixed" --output "$work/batch-x" --writers 0
check batch-bad-writers-names one_line_naming "writers"
expect 0 info-small-image -- --json --small-image-pixels filter=7,label=0 info
check info-small-image-json python3 -c "import json; d=json.load(open('$work/out'))['small_image_pixels']; assert d['filter']==7 and d['label']==0 and d['point'] is None and d['pipeline']==65536 and set(d)=={'point','filter','label','distance','pipeline'}"
expect 2 bad-small-image -- --small-image-pixels colour=5 info
check bad-small-image-names one_line_naming "small-image-pixels"
cp "$work/demo/tissue.png" "$work/batch-in/a.tif"
expect 2 batch-clash -- batch --pipeline cells --input "$work/batch-in" --output "$work/batch-clash"
check batch-clash-names one_line_naming "a.png"
expect 3 batch-missing-input -- batch --pipeline cells --input "$work/nowhere" --output "$work/batch-none"
check batch-missing-input-names one_line_naming "nowhere"
expect 3 demo-bad-folder -- demo --size 64 --out /proc/gigaseg-demo
check demo-bad-folder-names one_line_naming "gigaseg-demo"
check no-temporaries-after-labels test -z "$(find "$work" -name '.*.tmp')"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
