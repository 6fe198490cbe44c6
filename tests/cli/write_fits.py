#!/usr/bin/env python3
"""Writes a small FITS image for the command-line tests (the FITS standard's fixed 80-character
header cards in 2880-byte blocks, big-endian pixels); the tool reads it through cfitsio.

    write_fits.py OUT.fits star|star8|cube

star: a 96 x 80 32-bit float star field (background 100, Gaussian stars, a NaN block of no data
over rows 60-69, columns 10-39). star8: the same stars as 8-bit integers (background 20, no NaN).
cube: a 4 x 4 x 3 8-bit cube, which the tool refuses.
"""
import math
import struct
import sys


def card(key, value):
    return ("%-8s= %20s" % (key, value)).ljust(80).encode()


def write(path, bitpix, axes, pixels, fmt):
    cards = [card("SIMPLE", "T"), card("BITPIX", str(bitpix)), card("NAXIS", str(len(axes)))]
    cards += [card("NAXIS%d" % (i + 1), str(n)) for i, n in enumerate(axes)]
    header = b"".join(cards) + b"END".ljust(80)
    header += b" " * (-len(header) % 2880)
    data = struct.pack(">%d%s" % (len(pixels), fmt), *pixels)
    data += b"\0" * (-len(data) % 2880)
    open(path, "wb").write(header + data)


def main():
    path, kind = sys.argv[1:3]
    if kind == "cube":
        write(path, 8, (4, 4, 3), [0] * 48, "B")
        return
    width, height = 96, 80
    stars = [(20, 15, 900.0), (70, 30, 400.0), (45, 50, 650.0), (85, 72, 300.0), (12, 40, 500.0)]
    pixels = []
    if kind == "star8":
        for y in range(height):
            for x in range(width):
                v = 20.0 + sum(a * math.exp(-((x - sx) ** 2 + (y - sy) ** 2) / 4.5) for sx, sy, a in stars) / 4
                pixels.append(min(255, int(v)))
        write(path, 8, (width, height), pixels, "B")
        return
    for y in range(height):
        for x in range(width):
            if 60 <= y < 70 and 10 <= x < 40:
                pixels.append(float("nan"))
                continue
            v = 100.0 + sum(a * math.exp(-((x - sx) ** 2 + (y - sy) ** 2) / 4.5) for sx, sy, a in stars)
            pixels.append(v)
    write(path, -32, (width, height), pixels, "f")


if __name__ == "__main__":
    main()
