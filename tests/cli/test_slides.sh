#!/usr/bin/env bash
# Whole-slide input and OME-TIFF output end to end (docs/cli.md, "Whole-slide images" and
# "OME-TIFF"): synthetic Aperio SVS files made by make_slide (tests/slide_writer.hpp). info lists the
# levels; --level and --mpp pick one; a slide segmented in memory and tile by tile gives the same
# labels and statistics; OME-TIFF pyramids read back by tifffile; bad slides, corrupt OME-XML and
# misplaced options are one-line errors with the right exit code and leave no output.
#   test_slides.sh GIGASEG MAKE_SLIDE
set -u
gigaseg=$1
make_slide=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=checks.sh
source "$(dirname "$0")/checks.sh"

slide=$work/tissue.svs
"$make_slide" "$slide" 2300 1700 --tile 240 --downsamples 4,16 || { echo "FAIL make_slide"; exit 1; }

# info: the levels, their sizes, downsamples and resolution.
expect 0 info-slide -- info "$slide"
check info-slide-levels grep -q "whole-slide image (aperio), 3 levels, 0.25 x 0.25 microns per pixel" "$work/out"
check info-slide-level1 grep -q "level 1: 575 x 425, downsample 4, 1 microns per pixel" "$work/out"
expect 0 info-slide-json -- --json info "$slide"
check info-slide-json-levels json "d['format'] == 'slide' and d['vendor'] == 'aperio' and len(d['levels']) == 3 and d['levels'][2]['width'] == 143 and d['levels'][1]['mpp'] == 1.0"
expect 0 info-plain -- --json info "$slide"
expect 0 convert-level0 -- convert "$slide" "$work/level0.tif"
expect 0 info-tiff -- --json info "$work/level0.tif"
check info-tiff-one-level json "d['format'] == 'tiff' and d['levels'] == 1 and d['width'] == 2300 and d['height'] == 1700"

# --level and --mpp: the level read.
expect 0 convert-level1 -- --level 1 convert "$slide" "$work/level1.tif"
expect 0 info-level1 -- --json info "$work/level1.tif"
check level1-size json "d['width'] == 575 and d['height'] == 425"
expect 0 convert-mpp -- --mpp 3 convert "$slide" "$work/level2.tif"
expect 0 info-level2 -- --json info "$work/level2.tif"
check mpp-picks-level2 json "d['width'] == 143 and d['height'] == 106"
expect 2 level-missing -- --level 3 convert "$slide" "$work/x.tif"
check level-missing-names one_line_naming "has 3 levels"
check level-missing-no-output test ! -e "$work/x.tif"
expect 2 level-and-mpp -- --level 1 --mpp 1 convert "$slide" "$work/x.tif"
check level-and-mpp-names one_line_naming "level"
expect 2 level-on-tiff -- --level 1 convert "$work/level0.tif" "$work/x.tif"
check level-on-tiff-names one_line_naming "usage error: --level: .*level0.tif is not a whole-slide image"
"$make_slide" "$work/unstated.svs" 480 480 --tile 240 --downsamples 2 --mpp 0
expect 3 mpp-unstated -- --mpp 1 convert "$work/unstated.svs" "$work/x.tif"
check mpp-unstated-names one_line_naming "unstated.svs.*microns per pixel"

# The nuclei pipeline on level 0, in memory and tile by tile (tiles that are not the slide's): the
# same labels and statistics.
expect 0 segment-slide-memory -- --compression none segment "$slide" "$work/memory.tif" --pipeline nuclei \
  --stats "$work/memory.csv"
expect 0 segment-slide-tiled -- --json segment "$slide" "$work/tiled.tif" --pipeline nuclei --stats "$work/tiled.csv" \
  --tile 496x304
check segment-slide-tiled-json json "d['tiled']['tiles'] == 30 and d['components'] > 500"
check segment-slide-same-stats cmp -s "$work/memory.csv" "$work/tiled.csv"
expect 0 segment-slide-untile -- --compression none convert "$work/tiled.tif" "$work/untiled.tif"
check segment-slide-same-labels cmp -s "$work/memory.tif" "$work/untiled.tif"
expect 0 segment-slide-mpp -- --json --mpp 1 segment "$slide" "$work/l1.tif" --pipeline nuclei --tile 256x256
check segment-slide-mpp-level1 json "d['tiled']['tiles'] == 6"

# batch takes slides from a folder.
mkdir -p "$work/slides" && cp "$slide" "$work/slides/a.svs" && cp "$work/unstated.svs" "$work/slides/b.svs"
expect 0 batch-slides -- batch --input "$work/slides" --output "$work/batch" --pipeline nuclei
check batch-slides-labels test -s "$work/batch/a.tif" -a -s "$work/batch/b.tif"

# Bad slides: a corrupt tile, a slide OpenSlide rejects, a truncated slide. One line naming the
# file, exit 3, nothing left under the output's name.
cp "$slide" "$work/corrupt.svs"
python3 - "$work/corrupt.svs" <<'EOF'
import struct, sys
# The first directory's TileOffsets (tag 324): overwrite the middle of a tile in the middle of level 0.
data = bytearray(open(sys.argv[1], 'rb').read())
order = '<' if data[:2] == b'II' else '>'
ifd = struct.unpack(order + 'I', data[4:8])[0]
count = struct.unpack(order + 'H', data[ifd:ifd + 2])[0]
for i in range(count):
    tag, kind, n, value = struct.unpack(order + 'HHII', data[ifd + 2 + 12 * i: ifd + 14 + 12 * i])
    if tag == 324:
        offsets = struct.unpack(order + '%dI' % n, data[value:value + 4 * n])
        at = offsets[len(offsets) // 2] + 40
        data[at:at + 64] = b'\xff' * 64
open(sys.argv[1], 'wb').write(data)
EOF
expect 3 corrupt-slide -- segment "$work/corrupt.svs" "$work/x.tif" --pipeline nuclei
check corrupt-slide-names one_line_naming "corrupt.svs: OpenSlide cannot read level 0"
check corrupt-slide-no-output test ! -e "$work/x.tif"
expect 3 corrupt-slide-tiled -- segment "$work/corrupt.svs" "$work/x.tif" --pipeline nuclei --tile 256x256
check corrupt-slide-tiled-names one_line_naming "corrupt.svs: OpenSlide cannot read level 0"
check corrupt-slide-tiled-no-output sh -c "! ls -a '$work' | grep -q -e '^x.tif' -e gigaseg-scratch"
mkdir -p "$work/mirax/slide"
printf '[GENERAL]\nSLIDE_VERSION=01.02\n' >"$work/mirax/slide.mrxs"
printf 'not a key file\n' >"$work/mirax/slide/Slidedat.ini"
expect 3 rejected-slide -- segment "$work/mirax/slide.mrxs" "$work/x.tif" --pipeline nuclei
check rejected-slide-names one_line_naming "slide.mrxs: OpenSlide cannot read this slide: .*Slidedat.ini"
expect 3 rejected-slide-info -- info "$work/mirax/slide.mrxs"
check rejected-slide-info-names one_line_naming "slide.mrxs"
head -c 3000 "$slide" >"$work/truncated.svs"
expect 3 truncated-slide -- convert "$work/truncated.svs" "$work/x.tif"
check truncated-slide-names one_line_naming "truncated.svs"
check truncated-slide-no-output test ! -e "$work/x.tif"

# OME-TIFF outputs: pyramids in SubIFDs with OME-XML, read back by tifffile (tests/cli/check_ome.py,
# with /usr/bin/python3, which has Debian's numpy and tifffile).
py=/usr/bin/python3
check_ome="$(dirname "$0")/check_ome.py"
expect 0 ome-labels -- --compression none segment "$slide" "$work/labels.ome.tif" --pipeline nuclei \
  --overlay "$work/overlay.ome.tif"
expect 0 ome-plain -- --compression none segment "$slide" "$work/labels.tif" --pipeline nuclei --overlay "$work/overlay.png"
check ome-labels-pyramid $py "$check_ome" "$work/labels.ome.tif" "$work/labels.tif" labels 0.25
expect 0 overlay-as-tiff -- --compression none convert "$work/overlay.png" "$work/overlay.tif"
check ome-overlay-pyramid $py "$check_ome" "$work/overlay.ome.tif" "$work/overlay.tif" image 0.25
expect 0 ome-tiled -- segment "$slide" "$work/tiled.ome.tif" --pipeline nuclei --tile 496x304
check ome-tiled-pyramid $py "$check_ome" "$work/tiled.ome.tif" "$work/labels.tif" labels 0.25
check ome-no-scratch-left sh -c "! ls -a '$work' | grep -q -e gigaseg-scratch -e '\.tmp$'"
expect 0 ome-level1 -- --level 1 threshold "$slide" "$work/mask.ome.tif" --method otsu
expect 0 ome-level1-plain -- --level 1 threshold "$slide" "$work/mask.tif" --method otsu
check ome-mask-level1-mpp $py "$check_ome" "$work/mask.ome.tif" "$work/mask.tif" image 1.0
expect 0 ome-distance -- --compression none edt "$work/mask.tif" "$work/distance.ome.tif"
expect 0 ome-distance-plain -- --compression none edt "$work/mask.tif" "$work/distance.tif"
check ome-distance-float $py "$check_ome" "$work/distance.ome.tif" "$work/distance.tif" image 0
# An OME-TIFF input: read, its physical size carried to the next OME output.
expect 0 ome-input -- --json info "$work/labels.ome.tif"
check ome-input-size json "d['format'] == 'tiff' and d['width'] == 2300"
expect 0 ome-chain -- threshold "$work/mask.ome.tif" "$work/again.ome.tif" --method value=128
expect 0 ome-chain-plain -- threshold "$work/mask.ome.tif" "$work/again.tif" --method value=128
check ome-chain-mpp $py "$check_ome" "$work/again.ome.tif" "$work/again.tif" image 1.0
expect 0 ome-no-mpp -- threshold "$work/level0.tif" "$work/nompp.ome.tif" --method value=128
expect 0 ome-no-mpp-plain -- threshold "$work/level0.tif" "$work/nompp.tif" --method value=128
check ome-no-mpp-stated $py "$check_ome" "$work/nompp.ome.tif" "$work/nompp.tif" image 0
# A corrupt OME-XML: an input error naming the file and what is wrong.
$py - "$work/bad-ome.tif" "$work/bad-size.tif" <<'EOF'
import sys
import numpy
import tifffile
broken = '<?xml version="1.0"?><OME><Image><Pixels SizeX="50"></Image>'
negative = '<?xml version="1.0"?><OME><Image><Pixels PhysicalSizeX="-3"/></Image></OME>'
tifffile.imwrite(sys.argv[1], numpy.zeros((40, 50), numpy.uint8), description=broken, metadata=None)
tifffile.imwrite(sys.argv[2], numpy.zeros((40, 50), numpy.uint8), description=negative, metadata=None)
EOF
expect 3 corrupt-ome -- threshold "$work/bad-ome.tif" "$work/x.tif" --method value=1
check corrupt-ome-names one_line_naming "bad-ome.tif: its OME-XML .* is not well-formed XML: line 1"
check corrupt-ome-no-output test ! -e "$work/x.tif"
expect 3 corrupt-ome-info -- info "$work/bad-ome.tif"
check corrupt-ome-info-names one_line_naming "bad-ome.tif: its OME-XML"
expect 3 bad-ome-size -- threshold "$work/bad-size.tif" "$work/x.tif" --method value=1
check bad-ome-size-names one_line_naming "bad-size.tif: its OME-XML's PhysicalSizeX is not a positive number"

echo "slide checks: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
