#!/usr/bin/env python3
"""Copies a classic (not Big) little-endian tiled TIFF with one tile's compressed bytes overwritten.

    corrupt_tile.py IN.tif OUT.tif INDEX

INDEX: the tile's index in the TileOffsets table (tag 324) of the first directory, row-major
(row * tiles across + column). Bytes 2..199 of that tile's data become 0xff, so that its decoder
fails while the file's structure stays valid.
"""
import sys

source, target, index = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = bytearray(open(source, "rb").read())
ifd = int.from_bytes(data[4:8], "little")
count = int.from_bytes(data[ifd:ifd + 2], "little")
for k in range(count):
    entry = ifd + 2 + 12 * k
    if int.from_bytes(data[entry:entry + 2], "little") == 324:
        table = int.from_bytes(data[entry + 8:entry + 12], "little")
        at = int.from_bytes(data[table + 4 * index:table + 4 * index + 4], "little")
        data[at + 2:at + 200] = b"\xff" * 198
        break
else:
    sys.exit(f"{source}: no TileOffsets")
open(target, "wb").write(data)
