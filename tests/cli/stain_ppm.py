"""A colour test image for the kmeans pipeline: four stains (background, stroma, hematoxylin, DAB)
in blocks of 23 x 17 pixels that cross tile and rank borders, with noise. Deterministic.

    python3 stain_ppm.py WIDTH HEIGHT OUT.ppm
"""
import random
import sys

width, height, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(3)
stains = [(238, 236, 232), (205, 140, 182), (72, 60, 150), (150, 96, 44)]
pixels = bytearray()
for y in range(height):
    for x in range(width):
        stain = stains[((x // 23) * 7 + (y // 17) * 3 + (x * y) // 700) % 4]
        pixels += bytes(max(0, min(255, v + rng.randint(-9, 9))) for v in stain)
with open(path, "wb") as out:
    out.write(b"P6\n%d %d\n255\n" % (width, height) + pixels)
