#!/usr/bin/env python3
"""Writes a small FITS image for the command-line tests (the FITS standard's fixed 80-character
header cards in 2880-byte blocks, big-endian pixels); the tool reads it through cfitsio.

    write_fits.py OUT.fits star|star8|sky|cube

star: a 96 x 80 32-bit float star field (background 100, Gaussian stars, a NaN block of no data
over rows 60-69, columns 10-39). star8: the same stars as 8-bit integers (background 20, no NaN).
sky: a 128 x 96 32-bit float sky (background 1000, Gaussian noise of sigma 5 from a fixed seed, a
NaN block over rows 80-89, columns 0-29) with the stars of SKY_STARS at sub-pixel positions
(Gaussian profiles of sigma 1.5: total flux 2 pi 1.5^2 x amplitude).
cube: a 4 x 4 x 3 8-bit cube, which the tool refuses.
"""
import math
import random
import struct
import sys

# (x, y, amplitude) of the sky's stars: centres between pixels, and one pair 9 pixels apart.
SKY_STARS = [(20.3, 15.7, 900.0), (70.55, 30.25, 400.0), (45.8, 50.4, 650.0), (100.2, 72.9, 300.0),
             (12.5, 40.5, 500.0), (110.4, 20.1, 800.0), (119.1, 20.3, 350.0)]


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
    if kind == "sky":
        width, height = 128, 96
        noise = random.Random(5)
        pixels = []
        for y in range(height):
            for x in range(width):
                if 80 <= y < 90 and x < 30:
                    pixels.append(float("nan"))
                    continue
                v = 1000.0 + noise.gauss(0.0, 5.0)
                v += sum(a * math.exp(-((x - sx) ** 2 + (y - sy) ** 2) / (2 * 1.5 ** 2)) for sx, sy, a in SKY_STARS)
                pixels.append(v)
        write(path, -32, (width, height), pixels, "f")
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
