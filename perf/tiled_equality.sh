#!/usr/bin/env bash
# The tile engine's equality check at scale: every operation that runs tile by tile, on large
# images, in memory and with each tile size, the outputs compared pixel by pixel (perf/tiff_equal,
# strip by strip) and the CSVs byte for byte. Prints one line per comparison and a summary; exits 1
# when any output differs.
#
#   SIZE=20000 TILES="512x512 1008x704 4096x4096" [OPS="label-8 median"] bash perf/tiled_equality.sh [BUILD]
#
# GIGASEG, MOSAIC and EQUAL name the three programs where they are not under BUILD (a packed build
# on the GPU machine); GIGASEG_ARGS are global options put before every command (--backend cuda).
#
# The images (perf/tiled_mosaic), SIZE x SIZE, 4096-tiled TIFFs:
#   photo   scikit-image's `camera` photograph (python3-skimage), repeated and mirrored;
#   spiral  the adversarial mask: a spiral through every tile, a one-pixel spiral connected only
#           diagonally in places, and one-pixel diagonal bridges over every tile corner;
#   far     the distance transform's adversarial mask: zero pixels only in the top left 4 x 4
#           corner, so that most distances are over 10000 pixels and come from bands far above;
#   tissue  synthetic stained tissue (cells of many sizes), for the cells pipeline.
# The distance transform also runs on the photograph's Otsu mask (threshold, in memory), and the
# watershed floods the photograph from that mask's components.
# Tile sizes must be multiples of 16 (they are the output's TIFF tiles): 1008x704 stands for "a
# size that divides nothing", its tiles' edges falling anywhere in the image.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/openmp}
gigaseg=${GIGASEG:-$build/apps/gigaseg}
mosaic=${MOSAIC:-$build/perf/tiled_mosaic}
equal=${EQUAL:-$build/perf/tiff_equal}
read -r -a global <<<"${GIGASEG_ARGS:-}"
size=${SIZE:-20000}
tiles=${TILES:-"512x512 1008x704 4096x4096"}
work=${WORK:-/tmp/gigaseg-tiled-equality-$size}
photo=${PHOTO:-/usr/lib/python3/dist-packages/skimage/data/camera.png}
mkdir -p "$work"
failed=0
compared=0

say() { printf '%s\n' "$*"; }
# compare NAME A B: pixels of two TIFFs, or bytes of two other files.
compare() {
  local name=$1 a=$2 b=$3 verdict
  compared=$((compared + 1))
  if [[ $a == *.tif ]]; then
    verdict=$("$equal" "$a" "$b") || failed=$((failed + 1))
  elif cmp -s "$a" "$b"; then
    verdict="equal (bytes)"
  else
    verdict="differ (bytes)"
    failed=$((failed + 1))
  fi
  say "$name: $verdict"
}
# run NAME OUT_EXT CSV ARGS...: the command in memory, then with each tile size; ARGS holds IN and
# OUT as the words @IN and @OUT, CSV (yes/no) whether --stats @CSV is added.
run() {
  local name=$1 ext=$2 csv=$3 image=$4
  shift 4
  [[ -n ${OPS:-} && " $OPS " != *" $name "* ]] && return
  local -a words=()
  local reference=$work/$image-$name-memory.$ext
  for w in "$@"; do words+=("${w//@IN/$work/$image.tif}"); done
  local -a args=("${words[@]//@OUT/$reference}")
  [[ $csv == yes ]] && args+=(--stats "$work/$image-$name-memory.csv")
  local start=$SECONDS
  "$gigaseg" --quiet "${global[@]}" "${args[@]}" >"$work/$image-$name-memory.txt" || { say "$image $name: in memory FAILED"; failed=$((failed + 1)); return; }
  say "$image $name: in memory $((SECONDS - start)) s"
  for tile in $tiles; do
    local out=$work/$image-$name-$tile.$ext
    args=("${words[@]//@OUT/$out}")
    [[ $csv == yes ]] && args+=(--stats "$work/$image-$name-$tile.csv")
    start=$SECONDS
    "$gigaseg" --quiet "${global[@]}" "${args[@]}" --tile "$tile" >"$work/$image-$name-$tile.txt" || { say "$image $name $tile: FAILED"; failed=$((failed + 1)); continue; }
    say "$image $name $tile: tiled $((SECONDS - start)) s"
    compare "  $image $name $tile output" "$reference" "$out"
    [[ $csv == yes ]] && compare "  $image $name $tile statistics" "$work/$image-$name-memory.csv" "$work/$image-$name-$tile.csv"
    compare "  $image $name $tile stdout" "$work/$image-$name-memory.txt" "$work/$image-$name-$tile.txt"
    rm -f "$out"
  done
  rm -f "$reference"
}

printf '0 1 0 1 0\n1 2 3 2 1\n0 3 -4 3 0\n1 2 3 2 1\n0 1 0 1 0\n' >"$work/kernel.txt"
for image in photo spiral far tissue; do
  [[ $image == tissue && -n ${OPS:-} && " $OPS " != *" cells "* ]] && continue
  kind=$image
  [[ $image == photo ]] && kind=photo:$photo
  [[ -s $work/$image.tif ]] || "$mosaic" "$work/$image.tif" "$size" "$size" "$kind" || exit 2
done
[[ -s $work/mask.tif ]] || "$gigaseg" --quiet threshold "$work/photo.tif" "$work/mask.tif" --method otsu || exit 2

for image in photo spiral; do
  run label-8 tif yes "$image" label @IN @OUT
  run label-4 tif yes "$image" label @IN @OUT --connectivity 4
done
run nuclei tif yes photo segment @IN @OUT --pipeline nuclei
for image in tissue photo; do
  run cells tif yes "$image" segment @IN @OUT --pipeline cells
done
run threshold-otsu tif no photo threshold @IN @OUT --method otsu
run threshold-mean tif no photo threshold @IN @OUT --method mean=31,4
run histogram txt no photo histogram @IN
run median tif no photo median @IN @OUT --size 5
run gaussian tif no photo gaussian @IN @OUT --sigma 2.5
run sobel tif no photo sobel @IN @OUT
run morph-open tif no photo morph @IN @OUT --op open --se ellipse --size 9
run morph-dilate tif no spiral morph @IN @OUT --op dilate --se cross --size 5
run convolve tif no photo convolve @IN "$work/kernel.txt" @OUT --method direct
for image in mask spiral far; do
  run edt tif no "$image" edt @IN @OUT
done
# The watershed of the photograph from the components of its Otsu mask (4-connected) as markers,
# inside the spiral mask: floods that run along the spiral's arms through many tiles.
if [[ -z ${OPS:-} || " $OPS " == *" watershed "* ]]; then
  [[ -s $work/markers.tif ]] || "$gigaseg" --quiet label "$work/mask.tif" "$work/markers.tif" --connectivity 4 \
    --tile 4096x4096 >/dev/null || exit 2
fi
run watershed tif no photo watershed @IN "$work/markers.tif" @OUT --mask "$work/spiral.tif" --connectivity 8

say "compared $compared outputs at ${size}x${size}, tiles: $tiles; $failed differ or failed"
[[ $failed == 0 ]]
