#!/usr/bin/env bash
# The tile engine on images larger than memory, on this machine: `segment --pipeline nuclei` in
# memory and tile by tile (wall time and peak resident memory from /usr/bin/time), the outputs
# compared (perf/tiff_equal for the labels, cmp for the statistics), and OpenCV's Otsu threshold +
# connectedComponentsWithStats (perf/opencv_cli_peer) on the largest image cv::imread accepts
# (2^30 pixels: 32768 x 32768), its labels written raw (cv::imwrite cannot write 4 GiB of them).
# PEER_ONLY=1: only OpenCV's runs.
#
#   bash perf/tiled_large.sh [BUILD] > docs/perf-data/tiled-host-DATE.txt
#
# The images: synthetic tissue of 4096 x 4096 (`gigaseg demo`), repeated and mirrored to each size
# (perf/tiled_mosaic photo:...), 4096-tiled Deflate BigTIFFs. SIZES (default "16384 30000 32768
# 50000"), MEMORY_SIZES (in-memory runs too, default "16384 30000"), RUNS (default 3).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/openmp}
gigaseg=$build/apps/gigaseg
mosaic=$build/perf/tiled_mosaic
equal=$build/perf/tiff_equal
peer=$build/perf/opencv_cli_peer
work=${WORK:-/tmp/gigaseg-tiled-large}
sizes=${SIZES:-"16384 30000 32768 50000"}
memory_sizes=${MEMORY_SIZES:-"16384 30000"}
runs=${RUNS:-3}
mkdir -p "$work"

# timed LABEL COMMAND...: one line with the wall time, the peak resident memory and the command.
timed() {
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/stdout" 2>"$work/stderr" || {
    echo "$label: FAILED ($(tail -1 "$work/stderr"))"
    return 1
  }
  read -r wall kb <"$work/time"
  echo "$label: wall $wall s, peak resident $((kb / 1024)) MiB ($(tr '\n' ' ' <"$work/stdout" | cut -c1-160))"
  echo "$wall $((kb / 1024))" >>"$work/times-${label%%, run*}"
}
# median LABEL: "median LABEL: W s, M MiB" over the runs timed under LABEL (peak memory: the largest).
median() {
  sort -n "$work/times-$1" | awk -v label="$1" '{ w[NR] = $1; if ($2 > m) m = $2 }
    END { printf "median %s: %s s, %d MiB (%d runs)\n", label, (NR % 2 ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2), m, NR }'
  rm -f "$work/times-$1"
}

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; gigaseg $(git -C "$root" rev-parse --short HEAD)"
[[ -s $work/tissue/tissue.png ]] || "$gigaseg" demo --size 4096 --out "$work/tissue" >/dev/null
for size in $sizes; do
  image=$work/mosaic-$size.tif
  [[ -s $image ]] || "$mosaic" "$image" "$size" "$size" "photo:$work/tissue/tissue.png" || exit 2
  echo "## ${size}x${size} ($(du -m "$image" | cut -f1) MB)"
  memory=no
  [[ " $memory_sizes " == *" $size "* ]] && memory=yes
  for run in $(seq "$runs"); do
    [[ -n ${PEER_ONLY:-} ]] && break
    sync
    if [[ $memory == yes ]]; then
      timed "$size in memory, run $run" "$gigaseg" --json segment "$image" "$work/memory.tif" --pipeline nuclei \
        --stats "$work/memory.csv"
    fi
    sync
    timed "$size tiled 4096x4096, run $run" "$gigaseg" --json segment "$image" "$work/tiled.tif" --pipeline nuclei \
      --stats "$work/tiled.csv" --tile 4096x4096
  done
  if [[ -z ${PEER_ONLY:-} ]]; then
    [[ $memory == yes ]] && median "$size in memory"
    median "$size tiled 4096x4096"
  fi
  if [[ $memory == yes ]]; then
    echo "labels: $("$equal" "$work/memory.tif" "$work/tiled.tif")"
    cmp -s "$work/memory.csv" "$work/tiled.csv" && echo "statistics: equal ($(($(wc -l <"$work/tiled.csv") - 1)) regions)" ||
      echo "statistics: DIFFER"
  else
    echo "regions: $(($(wc -l <"$work/tiled.csv") - 1))"
  fi
  if [[ $size == 32768 && -x $peer ]]; then
    for run in $(seq "$runs"); do
      sync
      timed "$size OpenCV, run $run" "$peer" nuclei "$image" "$work/opencv.raw" "$work/opencv.csv"
    done
    median "$size OpenCV"
    echo "(OpenCV: cv::imread, Otsu + connectedComponentsWithStats, the 32-bit labels written raw (cv::imwrite fails: its TIFF encoder writes no BigTIFF), the CSV)"
    echo "OpenCV regions: $(($(wc -l <"$work/opencv.csv") - 1))"
  fi
  rm -f "$work/memory.tif" "$work/tiled.tif" "$work/opencv.raw"
done
