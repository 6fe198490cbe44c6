#!/usr/bin/env bash
# The whole-slide goal on this machine: a synthetic Aperio SVS of WIDTH x HEIGHT (default 60000 x
# 40000; JPEG tiles of 240, levels 1/4 and 1/16, written by make_slide with libtiff) segmented at
# level 0 by the nuclei pipeline, file to file, under /usr/bin/time -v: wall time, peak resident
# memory, regions. Then the same with the formats for viewers: the labels as a pyramidal OME-TIFF
# and the outlines as GeoJSON.
#   perf/slide_large.sh BUILD_DIR [WORK_DIR]     (WIDTH= HEIGHT= from the environment)
set -euo pipefail
build=$(cd "$1" && pwd)
work=${2:-/tmp/gigaseg-slide}
width=${WIDTH:-60000}
height=${HEIGHT:-40000}
gigaseg=$build/apps/gigaseg
mkdir -p "$work"
slide=$work/slide-${width}x${height}.svs
if [[ ! -s $slide ]]; then
  start=$SECONDS
  "$build/tests/make_slide" "$slide" "$width" "$height" --tile 240 --downsamples 4,16
  echo "# made $slide ($(du -m "$slide" | cut -f1) MB) in $((SECONDS - start)) s"
fi
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, gigaseg $(git -C "$(dirname "$0")" rev-parse --short HEAD)"
"$gigaseg" info "$slide"
# run LABEL ARGS...: one gigaseg run under /usr/bin/time -v, summarised on one line.
run() {
  local label=$1
  shift
  sync
  /usr/bin/time -v "$gigaseg" --json "$@" >"$work/$label.json" 2>"$work/$label.time"
  python3 - "$work/$label.json" "$work/$label.time" "$label" <<'PY'
import json, re, sys
report = json.load(open(sys.argv[1]))
time = open(sys.argv[2]).read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", time)
seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", time).group(1))
stages = {k: round(v) for k, v in report["timings_ms"].items()}
print(f"{sys.argv[3]}: wall {seconds:.1f} s, peak resident {kib} KB ({kib / 2**20:.2f} GiB), "
      f"{report['components']} regions, tiles {report['tiled']['tiles']}, stages ms {stages}")
PY
}
run nuclei segment "$slide" "$work/labels.tif" --pipeline nuclei --stats "$work/nuclei.csv"
run formats segment "$slide" "$work/labels.ome.tif" --pipeline nuclei --stats "$work/formats.csv" \
  --geojson "$work/nuclei.geojson"
cmp -s "$work/nuclei.csv" "$work/formats.csv" && echo "statistics of the two runs: identical"
echo "outputs: labels.tif $(du -m "$work/labels.tif" | cut -f1) MB, labels.ome.tif $(du -m "$work/labels.ome.tif" | cut -f1) MB," \
  "nuclei.geojson $(du -m "$work/nuclei.geojson" | cut -f1) MB"
rm -f "$work/labels.tif" "$work/labels.ome.tif" "$work/nuclei.geojson"
