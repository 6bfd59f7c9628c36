#!/usr/bin/env python3
"""Reference data for the PNG codec tests, made with an independent decoder (pypng, pure Python).

    python3 Scripts/png_reference.py [reference] [--corpora DIR]
        Decodes every valid PngSuite file (MANIFEST.tsv `expected` == decode, name not starting
        with "x") to 8-bit RGBA and writes TestImages/pngsuite-rgba.sha256.tsv:
        file, width, height, sha256 of the RGBA8 bytes (rows top to bottom, no padding).

    python3 Scripts/png_reference.py make-test-images
        Writes the small synthetic PNGs in TestImages/png/ that the Swift tests check against the
        formulas below (the tests recompute the same formulas, they do not read pypng's output).

The RGBA8 semantics are thumbd's, spelled out here independently of libpng:
  * palette images: index -> palette RGB; tRNS gives per-entry alpha (missing entries opaque);
  * grey and RGB with tRNS: samples equal to the tRNS value (compared at the file's own bit
    depth, 16-bit included) get alpha 0, all others 255;
  * grey below 8 bits is scaled by bit replication: v * 255 / (2^depth - 1);
  * 16-bit samples keep their high byte (v >> 8);
  * grey is copied to R, G and B; an opaque alpha is added when the file has none;
  * no gamma, cHRM, iCCP or sRGB handling, and sBIT is ignored: values are the stored values.

Needs pypng (`pip install pypng`). Pillow is deliberately not used: it mishandles 16-bit grey.
"""

import argparse
import hashlib
import os
import struct
import sys
import zlib

import png  # pypng

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TSV = os.path.join(REPO, "TestImages", "pngsuite-rgba.sha256.tsv")
TEST_PNG_DIR = os.path.join(REPO, "TestImages", "png")


def default_corpora():
    env = os.environ.get("THUMBD_CORPORA")
    if env:
        return env
    return os.path.join(os.path.dirname(REPO), "shared", "corpora")


def to_rgba8(reader):
    """Decodes with pypng's raw reader (no sBIT, no gamma) and converts to RGBA8 bytes."""
    width, height, rows, info = reader.read()
    depth = info["bitdepth"]
    planes = info["planes"]
    greyscale = info["greyscale"]
    alpha = info["alpha"]
    out = bytearray()

    if reader.colormap:
        # Colour type 3. reader.palette(alpha="force") folds tRNS into RGBA entries.
        pal = reader.palette(alpha="force")
        for row in rows:
            for index in row:
                if index >= len(pal):
                    raise ValueError("palette index out of range")
                out.extend(pal[index])
        return width, height, bytes(out)

    trns = None
    if reader.trns is not None:
        n = 1 if greyscale else 3
        trns = struct.unpack(">%dH" % n, reader.trns[: 2 * n])
        # tRNS values live in the low bits at the file's depth.
        trns = tuple(v & ((1 << depth) - 1) for v in trns)

    maxval = (1 << depth) - 1

    def to8(v):
        if depth == 16:
            return v >> 8
        if depth == 8:
            return v
        return v * 255 // maxval  # exact: 255 is a multiple of 1, 3 and 15

    for row in rows:
        row = list(row)
        if greyscale and not alpha:
            for v in row:
                a = 0 if trns is not None and v == trns[0] else 255
                g = to8(v)
                out.extend((g, g, g, a))
        elif greyscale and alpha:
            for i in range(0, len(row), 2):
                g = to8(row[i])
                out.extend((g, g, g, to8(row[i + 1])))
        elif not alpha:
            for i in range(0, len(row), 3):
                px = tuple(row[i : i + 3])
                a = 0 if trns is not None and px == trns else 255
                out.extend((to8(px[0]), to8(px[1]), to8(px[2]), a))
        else:
            for v in row:
                out.append(to8(v))
    if len(out) != width * height * 4:
        raise ValueError("size mismatch: %d bytes for %dx%d" % (len(out), width, height))
    return width, height, bytes(out)


def valid_pngsuite_files(suite):
    manifest = os.path.join(suite, "MANIFEST.tsv")
    with open(manifest, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    header = lines[0].split("\t")
    files = []
    for line in lines[1:]:
        row = dict(zip(header, line.split("\t")))
        name = row["file"]
        if row["expected"] == "decode" and not name.startswith("x") and name.endswith(".png"):
            files.append(name)
    return sorted(files)


def reference(corpora):
    suite = os.path.join(corpora, "pngsuite")
    files = valid_pngsuite_files(suite)
    lines = ["file\twidth\theight\tsha256_rgba8"]
    failures = []
    for name in files:
        try:
            reader = png.Reader(filename=os.path.join(suite, name))
            width, height, rgba = to_rgba8(reader)
        except Exception as error:  # noqa: BLE001 - report every file that cannot be referenced
            failures.append((name, str(error)))
            continue
        lines.append("%s\t%d\t%d\t%s" % (name, width, height, hashlib.sha256(rgba).hexdigest()))
    with open(TSV, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    print("wrote %s: %d files" % (os.path.relpath(TSV, REPO), len(lines) - 1))
    for name, error in failures:
        print("NOT REFERENCED %s: %s" % (name, error), file=sys.stderr)
    return 1 if failures else 0


# --- synthetic test images -------------------------------------------------------------------
# The Swift tests recompute these formulas; keep them in step with Tests/PNGCodecTests.

def gradient_rgba(x, y):
    """gradient-rgba8.png, 101x67, RGBA8: smooth colour, alpha varying including 0 and 255."""
    r = (x * 255) // 100
    g = (y * 255) // 66
    b = (x * 7 + y * 13) % 256
    a = 0 if (x // 10 + y // 10) % 5 == 0 else min(255, 40 + (x + y) * 2)
    return (r, g, b, a)


def grey16(x, y):
    """grey16.png, 37x23, 16-bit grey: high and low bytes both vary."""
    return (x * 1777 + y * 2851 + 5) & 0xFFFF


def rgba16(x, y):
    """rgba16.png, 19x13, 16-bit RGBA."""
    return ((x * 3433) & 0xFFFF, (y * 4999) & 0xFFFF, ((x + y) * 2039) & 0xFFFF, (65535 - x * 911 - y * 577) & 0xFFFF)


PALETTE = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (10, 20, 30), (200, 100, 50)]
PALETTE_ALPHA = [255, 0, 128, 64]  # entries 4 and 5 have no tRNS entry: opaque


def palette_index(x, y):
    """palette-trns.png, 23x17, 4-bit palette with a 4-entry tRNS."""
    return (x + 2 * y) % len(PALETTE)


def interlaced_rgb(x, y):
    """interlaced-rgb.png, 45x31, Adam7, RGB8."""
    return ((x * 5 + y) % 256, (y * 9) % 256, (x * y) % 256)


def write_png(path, width, height, rows, **kwargs):
    with open(path, "wb") as fh:
        png.Writer(width, height, **kwargs).write(fh, rows)


def add_chunk_before_idat(path, chunk_type, payload):
    chunks = list(png.Reader(filename=path).chunks())
    out = []
    for ctype, data in chunks:
        if ctype == b"IDAT" and chunk_type is not None:
            out.append((chunk_type, payload))
            chunk_type = None
        out.append((ctype, data))
    with open(path, "wb") as fh:
        png.write_chunks(fh, out)


def exif_orientation(value):
    """A minimal big-endian TIFF structure with one IFD0 entry: Orientation (0x0112), SHORT."""
    return b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1) + \
        struct.pack(">HHIHH", 0x0112, 3, 1, value, 0) + struct.pack(">I", 0)


def make_test_images():
    os.makedirs(TEST_PNG_DIR, exist_ok=True)
    p = lambda name: os.path.join(TEST_PNG_DIR, name)  # noqa: E731

    w, h = 101, 67
    write_png(p("gradient-rgba8.png"), w, h,
              [[c for x in range(w) for c in gradient_rgba(x, y)] for y in range(h)],
              greyscale=False, alpha=True, bitdepth=8)

    w, h = 37, 23
    write_png(p("grey16.png"), w, h, [[grey16(x, y) for x in range(w)] for y in range(h)],
              greyscale=True, bitdepth=16)

    w, h = 19, 13
    write_png(p("rgba16.png"), w, h, [[c for x in range(w) for c in rgba16(x, y)] for y in range(h)],
              greyscale=False, alpha=True, bitdepth=16)

    w, h = 23, 17
    palette = [PALETTE[i] + (PALETTE_ALPHA[i],) if i < len(PALETTE_ALPHA) else PALETTE[i] for i in range(len(PALETTE))]
    write_png(p("palette-trns.png"), w, h, [[palette_index(x, y) for x in range(w)] for y in range(h)],
              palette=palette, bitdepth=4)

    w, h = 45, 31
    write_png(p("interlaced-rgb.png"), w, h, [[c for x in range(w) for c in interlaced_rgb(x, y)] for y in range(h)],
              greyscale=False, alpha=False, bitdepth=8, interlace=True)

    # A 16x8 RGB image (the interlaced_rgb formula, not interlaced) with an eXIf chunk saying
    # "rotate 90 degrees clockwise" (orientation 6).
    w, h = 16, 8
    write_png(p("exif-orientation6.png"), w, h,
              [[c for x in range(w) for c in interlaced_rgb(x, y)] for y in range(h)],
              greyscale=False, alpha=False, bitdepth=8)
    add_chunk_before_idat(p("exif-orientation6.png"), b"eXIf", exif_orientation(6))

    # Sixteen zTXt chunks, each inflating to 7.5 MiB of "A" (120 MiB in all), ahead of a 4x4
    # image: each stays under libpng's default per-chunk limit, so a decoder that keeps text
    # chunks would hold all of it. thumbd's must not.
    w, h = 4, 4
    write_png(p("ztxt-bomb.png"), w, h, [[c for x in range(w) for c in interlaced_rgb(x, y)] for y in range(h)],
              greyscale=False, alpha=False, bitdepth=8)
    bomb = zlib.compress(b"A" * (15 << 19), 9)
    chunks = list(png.Reader(filename=p("ztxt-bomb.png")).chunks())
    idat = [i for i, (ctype, _) in enumerate(chunks) if ctype == b"IDAT"][0]
    texts = [(b"zTXt", b"Comment%d\0\0" % i + bomb) for i in range(16)]
    with open(p("ztxt-bomb.png"), "wb") as fh:
        png.write_chunks(fh, chunks[:idat] + texts + chunks[idat:])
    print("wrote", ", ".join(sorted(os.listdir(TEST_PNG_DIR))))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", default="reference", choices=["reference", "make-test-images"])
    parser.add_argument("--corpora", default=default_corpora())
    args = parser.parse_args()
    if args.command == "make-test-images":
        return make_test_images()
    return reference(args.corpora)


if __name__ == "__main__":
    sys.exit(main())
