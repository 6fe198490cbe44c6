#!/usr/bin/python3
"""Checks a pyramidal OME-TIFF that gigaseg wrote, with tifffile (Debian's python3-tifffile):

    check_ome.py OME.tif PLAIN.tif labels|image MICRONS

- it is an OME-TIFF whose reduced levels are SubIFDs of the first page, tiled, the last level at
  most 512 on its largest side and the one before it larger;
- level 0 holds the pixels of PLAIN.tif (the same output written as a plain TIFF);
- each reduced level is half the one before (rounded up); levels 1 and 2 are the 2 x 2 reductions
  of the level before: for labels the most common value (the first in raster order on a tie), for
  images the mean rounded to the nearest integer (float: the mean);
- the OME-XML states the size and pixel type, and PhysicalSizeX/Y = MICRONS (none when 0).
"""
import sys
import xml.etree.ElementTree as ET

import numpy as np
import tifffile


def reduce(a, labels):
    h, w = a.shape[:2]
    out = np.zeros(((h + 1) // 2, (w + 1) // 2) + a.shape[2:], a.dtype)
    for oy in range(out.shape[0]):
        for ox in range(out.shape[1]):
            block = a[2 * oy:2 * oy + 2, 2 * ox:2 * ox + 2].reshape((-1,) + a.shape[2:])
            if labels:
                values = list(block)
                out[oy, ox] = max(values, key=lambda v: (values.count(v), -values.index(v)))
            elif a.dtype == np.float32:
                out[oy, ox] = block.mean(axis=0)
            else:
                out[oy, ox] = np.floor(block.astype(np.float64).mean(axis=0) + 0.5)
    return out


def main():
    path, plain, kind, microns = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    with tifffile.TiffFile(path) as t:
        assert t.is_ome, "not an OME-TIFF"
        levels = [level.asarray() for level in t.series[0].levels]
        assert len(t.pages[0].subifds or []) == len(levels) - 1, "the reduced levels are not SubIFDs"
        assert t.pages[0].is_tiled, "level 0 is not tiled"
        xml = t.ome_metadata
    assert len(levels) >= 2, "no reduced level"
    assert max(levels[-1].shape[:2]) <= 512 < max(levels[-2].shape[:2]), [l.shape for l in levels]
    with tifffile.TiffFile(plain) as t:
        base = t.pages[0].asarray()
    assert levels[0].dtype == base.dtype and np.array_equal(levels[0], base), "level 0 differs from the plain output"
    for k in range(1, len(levels)):
        previous = levels[k - 1]
        assert levels[k].shape[:2] == ((previous.shape[0] + 1) // 2, (previous.shape[1] + 1) // 2), levels[k].shape
        if k <= 2:
            assert np.array_equal(levels[k], reduce(previous, kind == "labels")), f"level {k} is not the reduction"
    pixels = ET.fromstring(xml).find(".//{*}Pixels")
    assert pixels.get("SizeX") == str(base.shape[1]) and pixels.get("SizeY") == str(base.shape[0])
    types = {"uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "float32": "float"}
    assert pixels.get("Type") == types[str(base.dtype)], pixels.get("Type")
    if microns > 0:
        assert abs(float(pixels.get("PhysicalSizeX")) - microns) < 1e-9, pixels.get("PhysicalSizeX")
        assert abs(float(pixels.get("PhysicalSizeY")) - microns) < 1e-9, pixels.get("PhysicalSizeY")
    else:
        assert pixels.get("PhysicalSizeX") is None, pixels.get("PhysicalSizeX")
    print(f"{path}: {len(levels)} levels, OK")


if __name__ == "__main__":
    main()
