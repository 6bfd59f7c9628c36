#!/usr/bin/env python3
"""Writes the small HEIC files in TestImages/heic/ (fuzz seeds; run once, the outputs are committed).

Needs Pillow (for the source PNG and JPEG) and libheif's heif-enc (apt-get install libheif-examples).
The pixels are a synthetic gradient computed here; the tests make their own HEIC files at run time.
"""
import subprocess
import tempfile
from pathlib import Path

from PIL import Image

OUT = Path(__file__).resolve().parent.parent / "TestImages" / "heic"


def gradient(width, height, alpha):
    image = Image.new("RGBA", (width, height))
    for y in range(height):
        for x in range(width):
            a = 255 - x * 200 // max(1, width - 1) if alpha else 255
            image.putpixel((x, y), (x * 255 // max(1, width - 1), y * 255 // max(1, height - 1), (x + y) * 4 & 0xFF, a))
    return image if alpha else image.convert("RGB")


def heif_enc(source, name, *arguments):
    subprocess.run(["heif-enc", *arguments, "-q", "50", "-o", str(OUT / name), str(source)], check=True)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        gradient(24, 16, False).save(scratch / "opaque.png")
        heif_enc(scratch / "opaque.png", "opaque_24x16.heic")
        # Odd sizes: heif-enc writes a 1x1 grid (descriptor in idat) over an even tile.
        gradient(17, 11, True).save(scratch / "alpha.png")
        heif_enc(scratch / "alpha.png", "grid_alpha_17x11.heic")
        # heif-enc copies the JPEG's Exif (Orientation 6) and writes no irot: read as stored.
        exif = Image.Exif()
        exif[0x0112] = 6
        gradient(24, 16, False).save(scratch / "exif6.jpg", exif=exif.tobytes(), quality=90)
        heif_enc(scratch / "exif6.jpg", "exif6_24x16.heic")


if __name__ == "__main__":
    main()
