#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus: small valid files of every layout the readers accept.

    python3 tests/fuzz/make_seeds.py tests/fuzz/corpus

Files are written with the standard library only (struct, zlib), so the corpus can be remade
anywhere. Each seed is a few hundred bytes, so that libFuzzer's mutations reach the headers and
the pixel data alike. The fuzzers add what they discover to the same folders.
"""
import os
import struct
import sys
import zlib


def pixels(w, h, channels, depth):
    out = bytearray()
    for y in range(h):
        for x in range(w):
            for c in range(channels):
                v = (x * 37 + y * 11 + c * 53) % (1 << depth)
                out += struct.pack(">H", v) if depth == 16 else bytes([v & 0xFF])
    return bytes(out)


# --- PNG ---------------------------------------------------------------------------------------
def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(w, h, color_type, depth, palette=None, extra=b""):
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
    bits_per_row = w * channels * depth
    row_bytes = (bits_per_row + 7) // 8
    raw = bytearray()
    for y in range(h):
        raw += bytes([y % 5])  # every filter type
        raw += bytes((x * 7 + y * 3) % 256 for x in range(row_bytes)) if depth < 8 else \
            pixels(w, 1, channels, depth)
    body = png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 0))
    if palette:
        body += png_chunk(b"PLTE", palette)
    body += extra
    body += png_chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + png_chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


def png_seeds():
    palette = bytes(v for i in range(16) for v in (i * 16, 255 - i * 16, i * 8))
    return {
        "gray8.png": png(9, 7, 0, 8),
        "gray16.png": png(9, 7, 0, 16),
        "gray1.png": png(13, 5, 0, 1),
        "gray4.png": png(7, 5, 0, 4),
        "rgb8.png": png(6, 5, 2, 8),
        "rgb16.png": png(6, 5, 2, 16),
        "rgba8.png": png(5, 4, 6, 8),
        "graya16.png": png(5, 4, 4, 16),
        "palette4.png": png(8, 4, 3, 4, palette),
        "palette8_trns.png": png(6, 3, 3, 8, palette, png_chunk(b"tRNS", bytes(range(16)))),
        "text_chunk.png": png(4, 4, 0, 8, None, png_chunk(b"tEXt", b"Comment\x00gigaseg seed")),
    }


# --- TIFF --------------------------------------------------------------------------------------
def tiff(w, h, samples, bits, fmt=1, photometric=None, tile=None, compression=1, bigtiff=False,
         colormap=False, rows_per_strip=None):
    """Little-endian TIFF (or BigTIFF) with contiguous samples, strips or tiles."""
    if photometric is None:
        photometric = 2 if samples >= 3 else 1
    bps = bits // 8

    def sample_bytes(x, y, c):
        v = (x * 29 + y * 13 + c * 71) % 251
        if fmt == 3:
            return struct.pack("<f", v / 7.0)
        return (v * (1 << (bits - 8)) if bits > 8 else v).to_bytes(bps, "little")

    blocks = []
    if tile:
        tw, th = tile
        for ty in range(0, h, th):
            for tx in range(0, w, tw):
                blocks.append(b"".join(sample_bytes(tx + x, ty + y, c)
                                       for y in range(th) for x in range(tw) for c in range(samples)))
    else:
        rps = rows_per_strip or h
        for sy in range(0, h, rps):
            blocks.append(b"".join(sample_bytes(x, y, c) for y in range(sy, min(h, sy + rps))
                                   for x in range(w) for c in range(samples)))
    if compression == 8:
        blocks = [zlib.compress(b) for b in blocks]

    head = 16 if bigtiff else 8
    data = bytearray()
    offsets = []
    for b in blocks:
        offsets.append(head + len(data))
        data += b
        if len(data) % 2:
            data += b"\x00"
    extra = bytearray()  # out-of-line tag values, after the pixel data
    base = head + len(data)

    SHORT, LONG, LONG8 = 3, 4, 16
    entries = []

    def tag(code, kind, values):
        entries.append((code, kind, values))

    tag(256, LONG, [w])
    tag(257, LONG, [h])
    tag(258, SHORT, [bits] * samples)
    tag(259, SHORT, [compression])
    tag(262, SHORT, [photometric])
    tag(277, SHORT, [samples])
    tag(284, SHORT, [1])
    tag(339, SHORT, [fmt] * samples)
    if tile:
        tag(322, LONG, [tile[0]])
        tag(323, LONG, [tile[1]])
        tag(324, LONG8 if bigtiff else LONG, offsets)
        tag(325, LONG, [len(b) for b in blocks])
    else:
        tag(273, LONG8 if bigtiff else LONG, offsets)
        tag(278, LONG, [rows_per_strip or h])
        tag(279, LONG, [len(b) for b in blocks])
    if colormap:
        tag(320, SHORT, [(i * 257 * 3) % 65536 for i in range(256)] + [(i * 257) for i in range(256)] +
            [(65535 - i * 257) for i in range(256)])
    entries.sort()

    size_of = {SHORT: 2, LONG: 4, LONG8: 8}
    fmt_of = {SHORT: "<H", LONG: "<I", LONG8: "<Q"}
    inline = 8 if bigtiff else 4
    ifd = bytearray(struct.pack("<Q", len(entries)) if bigtiff else struct.pack("<H", len(entries)))
    ifd_offset = base  # the IFD follows the data; out-of-line values follow the IFD
    entry_size = 20 if bigtiff else 12
    values_base = ifd_offset + len(ifd) + entry_size * len(entries) + (8 if bigtiff else 4)
    for code, kind, values in entries:
        payload = b"".join(struct.pack(fmt_of[kind], v) for v in values)
        count = len(values)
        ifd += struct.pack("<HH", code, kind) + (struct.pack("<Q", count) if bigtiff else struct.pack("<I", count))
        if len(payload) <= inline:
            ifd += payload.ljust(inline, b"\x00")
        else:
            where = values_base + len(extra)
            ifd += struct.pack("<Q", where) if bigtiff else struct.pack("<I", where)
            extra += payload
            if len(extra) % 2:
                extra += b"\x00"
    ifd += struct.pack("<Q", 0) if bigtiff else struct.pack("<I", 0)
    header = (b"II" + struct.pack("<HHHQ", 43, 8, 0, ifd_offset)) if bigtiff else \
        (b"II" + struct.pack("<HI", 42, ifd_offset))
    return header + bytes(data) + bytes(ifd) + bytes(extra)


def tiff_seeds():
    return {
        "gray8_strips.tif": tiff(9, 7, 1, 8, rows_per_strip=3),
        "gray16.tif": tiff(7, 5, 1, 16),
        "gray32.tif": tiff(5, 4, 1, 32),
        "float32.tif": tiff(5, 4, 1, 32, fmt=3),
        "miniswhite8.tif": tiff(6, 4, 1, 8, photometric=0),
        "rgb8.tif": tiff(6, 5, 3, 8),
        "rgb16.tif": tiff(4, 3, 3, 16),
        "rgba8.tif": tiff(4, 3, 4, 8),
        "graya8.tif": tiff(4, 3, 2, 8),
        "palette8.tif": tiff(6, 4, 1, 8, photometric=3, colormap=True),
        "tiled8.tif": tiff(20, 18, 1, 8, tile=(16, 16)),
        "tiled_rgb.tif": tiff(17, 5, 3, 8, tile=(16, 16)),
        "deflate8.tif": tiff(12, 9, 1, 8, compression=8, rows_per_strip=4),
        "bigtiff8.tif": tiff(7, 5, 1, 8, bigtiff=True),
        "bigtiff_tiled16.tif": tiff(18, 3, 1, 16, tile=(16, 16), bigtiff=True),
    }


# --- PGM/PPM -----------------------------------------------------------------------------------
def pnm_seeds():
    def ascii(kind, w, h, maxval, channels):
        values = [(i * 37) % (maxval + 1) for i in range(w * h * channels)]
        return (f"{kind}\n# seed\n{w} {h}\n{maxval}\n" + " ".join(map(str, values)) + "\n").encode()

    def binary(kind, w, h, maxval, channels):
        depth = 16 if maxval > 255 else 8
        raw = bytearray()
        for i in range(w * h * channels):
            v = (i * 37) % (maxval + 1)
            raw += struct.pack(">H", v) if depth == 16 else bytes([v])
        return f"{kind}\n{w} {h}\n{maxval}\n".encode() + bytes(raw)

    return {
        "p2.pgm": ascii("P2", 5, 4, 255, 1),
        "p2_16.pgm": ascii("P2", 3, 3, 1000, 1),
        "p3.ppm": ascii("P3", 4, 3, 255, 3),
        "p5.pgm": binary("P5", 9, 7, 255, 1),
        "p5_16.pgm": binary("P5", 6, 5, 65535, 1),
        "p6.ppm": binary("P6", 5, 4, 255, 3),
        "p6_16.ppm": binary("P6", 3, 2, 4095, 3),
    }


# --- FITS --------------------------------------------------------------------------------------
def fits_seeds():
    def fits(bitpix, axes, values, keys=()):
        def card(key, value):
            return ("%-8s= %20s" % (key, value)).ljust(80).encode()
        cards = [card("SIMPLE", "T"), card("BITPIX", str(bitpix)), card("NAXIS", str(len(axes)))]
        cards += [card("NAXIS%d" % (i + 1), str(n)) for i, n in enumerate(axes)]
        cards += [card(k, v) for k, v in keys]
        header = b"".join(cards) + b"END".ljust(80)
        header += b" " * (-len(header) % 2880)
        fmt = {8: "B", 16: "h", 32: "i", -32: "f", -64: "d"}[bitpix]
        data = struct.pack(">%d%s" % (len(values), fmt), *values)
        return header + data + b"\0" * (-len(data) % 2880)

    return {
        "u8.fits": fits(8, (7, 5), [(i * 37) % 256 for i in range(35)]),
        "u16.fits": fits(16, (4, 3), [i * 5000 - 30000 for i in range(12)], [("BZERO", "32768"), ("BSCALE", "1")]),
        "scaled.fits": fits(16, (3, 3), [-1, 0, 5, 7, -1, 9, 2, 3, 4], [("BSCALE", "0.5"), ("BZERO", "10.0"), ("BLANK", "-1")]),
        "i32.fits": fits(32, (3, 2), [-5, 0, 7, 100000, -2, 3]),
        "f32.fits": fits(-32, (4, 2), [1.5, float("nan"), -2.0, 3.25, 0.0, 1e30, -1e-30, 7.0]),
        "f64.fits": fits(-64, (2, 2), [0.1, -7.0, 3.0, float("nan")]),
    }


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    for folder, seeds in (("png", png_seeds()), ("tiff", tiff_seeds()), ("pnm", pnm_seeds()), ("fits", fits_seeds())):
        os.makedirs(os.path.join(root, folder), exist_ok=True)
        for name, content in seeds.items():
            with open(os.path.join(root, folder, name), "wb") as f:
                f.write(content)
        print(f"{folder}: {len(seeds)} seeds")


if __name__ == "__main__":
    main()
