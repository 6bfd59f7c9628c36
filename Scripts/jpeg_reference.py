#!/usr/bin/env python3
"""Writes TestImages/jpeg-reference.tsv: for every JPEG of ../shared/corpora/jpeg that should decode,
an 8x8 grid of exact-area RGB means from Pillow's full decode (an independent decoder), in stored
orientation. The JPEG tests compare thumbd's full decode against these signatures, which catches
wrong colour conversion (CMYK, YCCK, Adobe inversion, RGB JPEGs), wrong sizes and garbled data,
while tolerating the last-bit IDCT differences between libjpeg builds.

Run: python3 Scripts/jpeg_reference.py ../shared/corpora/jpeg > TestImages/jpeg-reference.tsv
"""
import csv
import sys

from PIL import Image

GRID = 8


def signature(image):
    image = image.convert("RGB")
    width, height = image.size
    pixels = image.load()
    values = []
    for gy in range(GRID):
        y0, y1 = gy * height // GRID, max(gy * height // GRID + 1, (gy + 1) * height // GRID)
        for gx in range(GRID):
            x0, x1 = gx * width // GRID, max(gx * width // GRID + 1, (gx + 1) * width // GRID)
            sums = [0, 0, 0]
            for y in range(y0, min(y1, height)):
                for x in range(x0, min(x1, width)):
                    for c, v in enumerate(pixels[x, y]):
                        sums[c] += v
            count = max(1, (min(y1, height) - y0) * (min(x1, width) - x0))
            values.extend(round(s / count) for s in sums)
    return "".join(f"{v:02x}" for v in values)


def main(folder):
    with open(f"{folder}/MANIFEST.tsv") as manifest:
        rows = list(csv.DictReader(manifest, delimiter="\t"))
    print("file\twidth\theight\tsignature")
    for row in rows:
        if not row["expected"].startswith("decode"):
            continue
        try:
            with Image.open(f"{folder}/{row['file']}") as image:
                image.load()
                print(f"{row['file']}\t{image.width}\t{image.height}\t{signature(image)}")
        except Exception as error:  # noqa: BLE001 - a reference we cannot make is reported, not faked
            print(f"# {row['file']}: Pillow cannot decode: {error}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/corpora/jpeg")
