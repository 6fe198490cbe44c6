#!/usr/bin/env python3
"""The reader matrix: every output type of gigaseg, written with every --compression, read back by
the readers our users have, outside this project, and compared with the values gigaseg wrote.

    test_readers.py GIGASEG [--docs docs/formats.md] [--update-docs] [--work DIR]

Readers (Debian 12's packages): tifffile 2023.2 without imagecodecs (what napari brings), Pillow
9.4, GDAL 3.6 (python3-gdal; its Zarr driver for the OME-Zarr outputs' full-resolution array),
libvips 8.14 (`vips copy`), ImageJ 1.53t (libij-java, IJ.openImage in a headless JVM:
tests/readers/ImageJRead.java), python3-zarr 2.13 for the OME-Zarr outputs (whose NGFF 0.4
metadata is checked too: multiscales version, axes, a dataset a level with its scale, each level
half the one before, image-label on labels); the GeoJSON outlines through shapely/GEOS (every
geometry valid) and GDAL's ogrinfo (the features and their fields). A cell of the matrix says what
the reader did: "yes" (the values gigaseg wrote), "WRONG VALUES" (it opened the file and showed other
values, with or without a warning), or "refused" (an error: the user knows). The reference for each
output type is its uncompressed strip TIFF read by tifffile, checked against GDAL.

Fails (exit 1) when a reader shows wrong values for a default output (--compression deflate, PNG,
GeoJSON), when a GeoJSON geometry is invalid, or when the matrix in docs/formats.md (between its
reader-matrix markers) is not the one found here; --update-docs rewrites that block instead.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import tifffile
import zarr
from osgeo import gdal
from PIL import Image
from shapely.geometry import shape

gdal.UseExceptions()
Image.MAX_IMAGE_PIXELS = None

HERE = os.path.dirname(os.path.abspath(__file__))
READERS = ["tifffile", "Pillow", "GDAL", "libvips", "ImageJ 1.53t", "zarr"]
COMPRESSIONS = ["none", "deflate", "deflate-predictor", "zstd"]
DEFAULT = "deflate"
BEGIN, END = "<!-- reader-matrix:begin -->", "<!-- reader-matrix:end -->"


def write_pnm(path, array):
    magic = b"P6" if array.ndim == 3 else b"P5"
    top = 65535 if array.dtype == np.uint16 else 255
    data = array.astype(">u2").tobytes() if array.dtype == np.uint16 else array.tobytes()
    with open(path, "wb") as f:
        f.write(b"%s\n%d %d\n%d\n" % (magic, array.shape[1], array.shape[0], top) + data)


def make_inputs(work):
    """A 600 x 400 field of bright disks on a noisy background (8-bit gray, 16-bit gray, RGB) and its mask."""
    rng = np.random.default_rng(5)
    h, w = 400, 600
    yy, xx = np.mgrid[0:h, 0:w]
    field = np.full((h, w), 40.0)
    for _ in range(60):
        cy, cx, r = rng.uniform(0, h), rng.uniform(0, w), rng.uniform(5, 18)
        field[(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = 200
    field += rng.normal(0, 12, (h, w))
    gray = np.clip(field, 0, 255).astype(np.uint8)
    inputs = {
        "gray": gray,
        "gray16": (gray.astype(np.uint32) * 257 + rng.integers(0, 200, (h, w))).clip(0, 65535).astype(np.uint16),
        "rgb": np.stack([gray, 255 - gray, (gray // 2 + 60).astype(np.uint8)], axis=2),
        "mask": np.where(gray > 120, 255, 0).astype(np.uint8),
    }
    paths = {}
    for name, array in inputs.items():
        paths[name] = os.path.join(work, name + (".ppm" if array.ndim == 3 else ".pgm"))
        write_pnm(paths[name], array)
    return paths


# (output type, layout, extension, command with IN/OUT placeholders)
OUTPUTS = [
    ("8-bit mask", "strips", ".tif", ["threshold", "gray", "OUT", "--method", "otsu"]),
    ("16-bit gray", "strips", ".tif", ["convert", "gray16", "OUT"]),
    ("32-bit labels", "strips", ".tif", ["label", "mask", "OUT"]),
    ("float distances", "strips", ".tif", ["edt", "mask", "OUT"]),
    ("float Sobel", "strips", ".tif", ["sobel", "gray", "OUT"]),
    ("RGB", "strips", ".tif", ["convert", "rgb", "OUT"]),
    ("32-bit labels", "tiles", ".tif", ["label", "mask", "OUT", "--tile", "256x256"]),
    ("float distances", "tiles", ".tif", ["edt", "mask", "OUT", "--tile", "256x256"]),
    ("8-bit mask", "OME-TIFF", ".ome.tif", ["threshold", "gray", "OUT", "--method", "otsu"]),
    ("32-bit labels", "OME-TIFF", ".ome.tif", ["label", "mask", "OUT"]),
    ("float distances", "OME-TIFF", ".ome.tif", ["edt", "mask", "OUT"]),
    ("RGB", "OME-TIFF", ".ome.tif", ["convert", "rgb", "OUT"]),
]
ZARR_OUTPUTS = [
    ("8-bit mask", "OME-Zarr", ".ome.zarr", ["threshold", "gray", "OUT", "--method", "otsu"]),
    ("16-bit gray", "OME-Zarr", ".ome.zarr", ["convert", "gray16", "OUT"]),
    ("32-bit labels", "OME-Zarr", ".ome.zarr", ["label", "mask", "OUT"]),
    ("float distances", "OME-Zarr", ".ome.zarr", ["edt", "mask", "OUT"]),
    ("RGB", "OME-Zarr", ".ome.zarr", ["convert", "rgb", "OUT"]),
]
PNG_OUTPUTS = [
    ("8-bit mask", "PNG", ".png", ["threshold", "gray", "OUT", "--method", "otsu"]),
    ("32-bit labels", "PNG (16-bit)", ".png", ["label", "mask", "OUT"]),
]


def run(gigaseg, argv):
    done = subprocess.run([gigaseg, "--quiet"] + argv, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("test_readers: gigaseg %s failed: %s" % (" ".join(argv), done.stderr.strip()))


def first_line(error):
    text = str(error).strip().splitlines()
    return text[0][:160] if text else type(error).__name__


def read_tifffile(path):
    return tifffile.imread(path)


def read_pillow(path):
    with Image.open(path) as image:
        return np.array(image)


def read_gdal(path):
    data = gdal.Open(path).ReadAsArray()
    return np.moveaxis(data, 0, 2) if data.ndim == 3 else data


def read_vips(path, work):
    copy = os.path.join(work, "vips-copy.tif")
    done = subprocess.run(["vips", "copy", path, copy], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip() or "vips failed")
    try:
        return tifffile.imread(copy)
    finally:
        os.remove(copy)


def read_zarr(path):
    """The full-resolution array of an OME-Zarr output, colour (c, y, x) as (y, x, c), after its
    NGFF 0.4 metadata is checked: an error says what is wrong."""
    group = zarr.open(path, mode="r")
    multiscales = group.attrs["multiscales"]
    image = multiscales[0]
    if image["version"] != "0.4":
        raise ValueError("multiscales version %r" % image["version"])
    axes = [a["name"] for a in image["axes"]]
    if axes not in (["y", "x"], ["c", "y", "x"]):
        raise ValueError("axes %r" % axes)
    shape = None
    for k, dataset in enumerate(image["datasets"]):
        if dataset["path"] != str(k):
            raise ValueError("dataset %d at path %r" % (k, dataset["path"]))
        scale = dataset["coordinateTransformations"][0]["scale"]
        if scale[-2:] != [2.0 ** k * scale_0 for scale_0 in image["datasets"][0]["coordinateTransformations"][0]["scale"][-2:]]:
            raise ValueError("level %d scale %r" % (k, scale))
        level = group[dataset["path"]].shape
        if shape is not None and list(level[-2:]) != [(shape[-2] + 1) // 2, (shape[-1] + 1) // 2]:
            raise ValueError("level %d of %r after %r" % (k, level, shape))
        shape = level
    if max(shape[-2:]) > 512:
        raise ValueError("the smallest level is %r" % (shape,))
    if (group["0"].dtype == np.uint32) != ("image-label" in group.attrs):
        raise ValueError("image-label on a %s image" % group["0"].dtype)
    data = group["0"][:]
    return np.moveaxis(data, 0, 2) if data.ndim == 3 else data


def read_imagej_all(paths, work):
    """Every file through one headless JVM: {path: array or the error text}."""
    dumps = {p: os.path.join(work, "ij-%d.dump" % i) for i, p in enumerate(paths)}
    args = [a for p in paths for a in (p, dumps[p])]
    done = subprocess.run(["java", "-Djava.awt.headless=true", "-cp", "/usr/share/java/ij.jar",
                           os.path.join(HERE, "ImageJRead.java")] + args, capture_output=True, text=True)
    messages = done.stderr.splitlines()
    results = {}
    for path, dump in dumps.items():
        if not os.path.exists(dump):
            said = [m for m in messages if m.startswith(path)] or messages[-1:] or ["ImageJ did not open it"]
            results[path] = RuntimeError(said[0].replace(path + ": ", ""))
            continue
        data = open(dump, "rb").read()
        end = data.index(b"\n")
        w, h, depth = (int(v) for v in data[:end].split())
        kind = {8: ">u1", 16: ">u2", 32: ">f4", 24: ">u4"}[depth]
        pixels = np.frombuffer(data[end + 1:], dtype=kind).reshape(h, w)
        if depth == 24:
            pixels = np.stack([(pixels >> 16) & 255, (pixels >> 8) & 255, pixels & 255], axis=2)
        results[path] = pixels
        os.remove(dump)
    return results


def verdict(result, reference):
    if isinstance(result, Exception):
        return "refused", first_line(result)
    result = np.asarray(result)
    if result.shape != reference.shape:
        return "WRONG VALUES", "shape %s, not %s" % (result.shape, reference.shape)
    same = np.array_equal(result.astype(np.float64), reference.astype(np.float64), equal_nan=True)
    if same:
        return "yes", ""
    differ = np.count_nonzero(result.astype(np.float64) != reference.astype(np.float64))
    return "WRONG VALUES", "%d of %d values differ" % (differ, reference.size)


def attempt(read, *args):
    try:
        return read(*args)
    except Exception as error:  # a reader's refusal, whatever its kind
        return error


def check_geojson(gigaseg, paths, work):
    """The outlines of the mask's regions (QuPath's layout and the flat one): valid, read by ogrinfo."""
    rows, failures = [], []
    for layout in ("qupath", "flat"):
        out = os.path.join(work, "outlines-%s.geojson" % layout)
        run(gigaseg, ["label", paths["mask"], os.path.join(work, "outlines-%s.tif" % layout), "--geojson", out,
                      "--geojson-properties", layout])
        features = json.load(open(out))["features"]
        invalid = [f["properties"]["label"] for f in features if not shape(f["geometry"]).is_valid]
        shapely_cell = "yes, %d of %d valid" % (len(features) - len(invalid), len(features))
        if invalid:
            failures.append("GeoJSON (%s): labels %s invalid for GEOS" % (layout, invalid[:10]))
            shapely_cell = "**%d INVALID**" % len(invalid)
        info = subprocess.run(["ogrinfo", "-ro", "-al", "-so", out], capture_output=True, text=True).stdout
        count = [l for l in info.splitlines() if l.startswith("Feature Count:")]
        fields = [l.split(":")[0] for l in info.splitlines() if re.match(r"^\w+: (Integer|Real|String)", l)]
        if not count or int(count[0].split(":")[1]) != len(features):
            failures.append("GeoJSON (%s): ogrinfo read %s for %d features" % (layout, count, len(features)))
        if layout == "flat" and "area" not in fields:
            failures.append("GeoJSON (flat): ogrinfo shows no area column: %s" % fields)
        columns = "area, perimeter... as columns" if "area" in fields else "measurements as one JSON string"
        rows.append(("GeoJSON, `--geojson-properties %s`" % layout, shapely_cell,
                     "yes, %d features, %s" % (len(features), columns)))
    return rows, failures


def matrix_markdown(cells, geojson_rows):
    lines = ["| output | layout | `--compression` | " + " | ".join(READERS) + " |",
             "|---|---|---|" + "---|" * len(READERS)]
    for (kind, layout, compression), row in cells.items():
        shown = [("**%s**" % v if v == "WRONG VALUES" else v) for v in (row[r][0] for r in READERS)]
        mark = " (default)" if compression == DEFAULT or compression == "png" else ""
        if compression == "default":
            compression, mark = "any other", " (default: Blosc-Zstd)"
        lines.append("| %s | %s | %s%s | %s |" % (kind, layout, compression, mark, " | ".join(shown)))
    lines += ["", "| outlines | shapely (GEOS `is_valid`) | ogrinfo (GDAL) |", "|---|---|---|"]
    lines += ["| %s | %s | %s |" % row for row in geojson_rows]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gigaseg")
    parser.add_argument("--docs", default=os.path.join(HERE, "..", "..", "docs", "formats.md"))
    parser.add_argument("--update-docs", action="store_true")
    parser.add_argument("--work")
    a = parser.parse_args()
    try:
        import imagecodecs  # noqa: F401
        sys.exit("test_readers: imagecodecs is installed; the matrix is of tifffile without it")
    except ImportError:
        pass
    work = a.work or tempfile.mkdtemp(prefix="gigaseg-readers-")
    os.makedirs(work, exist_ok=True)
    paths = make_inputs(work)
    files = {}  # (kind, layout, compression) -> path
    for kind, layout, ext, command in OUTPUTS + ZARR_OUTPUTS + PNG_OUTPUTS:
        for compression in (COMPRESSIONS if ext.endswith(".tif") else ["none", "default"] if ext == ".ome.zarr" else ["png"]):
            out = os.path.join(work, "%s-%s-%s%s" % (kind.replace(" ", "_"), layout.split()[0], compression, ext))
            argv = [paths.get(v, out if v == "OUT" else v) for v in command]
            run(a.gigaseg, (["--compression", compression] if compression not in ("png", "default") else []) + argv)
            files[(kind, layout, compression)] = out
    references = {}
    for kind, layout, _, _ in OUTPUTS:
        if layout == "strips":
            path = files[(kind, layout, "none")]
            references[kind] = tifffile.imread(path)
            if not np.array_equal(references[kind], read_gdal(path)):
                sys.exit("test_readers: tifffile and GDAL disagree on the uncompressed %s" % path)
    imagej = read_imagej_all([p for p in files.values() if not p.endswith(".zarr")], work)
    cells, failures, details = {}, [], {}
    for key, path in files.items():
        reference = references[key[0]]
        if path.endswith(".ome.zarr"):  # a folder: GDAL opens its full-resolution array, zarr the image
            results = {r: None for r in READERS}
            results["GDAL"] = attempt(read_gdal, path + "/0")
            results["zarr"] = attempt(read_zarr, path)
        else:
            results = {
                "tifffile": attempt(read_tifffile, path) if not path.endswith(".png") else None,
                "Pillow": attempt(read_pillow, path),
                "GDAL": attempt(read_gdal, path),
                "libvips": attempt(read_vips, path, work),
                "ImageJ 1.53t": imagej[path],
                "zarr": None,
            }
        row = {}
        for reader, result in results.items():
            row[reader] = ("-", "not a reader of this format") if result is None else verdict(result, reference)
            details["%s | %s | %s | %s" % (key + (reader,))] = row[reader]
            if row[reader][0] == "WRONG VALUES" and key[2] in (DEFAULT, "png", "default"):
                failures.append("%s %s %s: %s shows wrong values (%s)" % (key + (reader, row[reader][1])))
        cells[key] = row
    geojson_rows, geojson_failures = check_geojson(a.gigaseg, paths, work)
    failures += geojson_failures
    with open(os.path.join(work, "details.json"), "w") as f:
        json.dump(details, f, indent=1)
    table = matrix_markdown(cells, geojson_rows)
    docs = open(a.docs).read()
    if BEGIN not in docs or END not in docs:
        sys.exit("test_readers: %s has no reader-matrix markers" % a.docs)
    start, stop = docs.index(BEGIN) + len(BEGIN), docs.index(END)
    if a.update_docs:
        open(a.docs, "w").write(docs[:start] + "\n" + table + docs[stop:])
    elif docs[start:stop].strip() != table.strip():
        failures.append("the matrix in %s is not the one found (details in %s); rerun with --update-docs and read "
                        "the change:\n%s" % (a.docs, work, table))
    outputs = len(files)
    for failure in failures:
        print("test_readers: " + failure)
    print("readers: %d outputs x %d readers and %d GeoJSON layouts checked, %d failures" %
          (outputs, len(READERS), len(geojson_rows), len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
