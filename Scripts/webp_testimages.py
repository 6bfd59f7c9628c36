#!/usr/bin/env python3
"""Writes the small WebP test images in TestImages/webp/ (run once; the outputs are committed).

Needs Pillow (pip install pillow). The pixels are synthetic patterns computed here, so the files
can be regenerated anywhere; libwebp versions may encode slightly different bytes, which is why
Scripts/webp_reference.py records the decoded pixels separately.
"""
import io
import struct
from pathlib import Path

from PIL import Image

OUT = Path(__file__).resolve().parent.parent / "TestImages" / "webp"


def pattern(width, height, alpha):
    """Smooth colour gradients under a luma-only checkerboard: hard edges in brightness, none in
    colour, so 4:2:0 chroma subsampling does not dominate lossy errors."""
    image = Image.new("RGBA", (width, height))
    pixels = image.load()
    for y in range(height):
        for x in range(width):
            luma = 30 if (x // 8 + y // 8) % 2 else -30
            r = 40 + (x * 170) // max(1, width - 1) + luma
            g = 40 + (y * 170) // max(1, height - 1) + luma
            b = 40 + ((x + y) * 170) // max(1, width + height - 2) + luma
            a = 255
            if alpha:
                # Fully transparent corner, a ramp, and opaque elsewhere.
                a = 0 if x < 6 and y < 6 else (255 if x > width // 2 else (x * 510) // width)
            pixels[x, y] = (r, g, b, a)
    return image


def tiff_orientation(value):
    """A minimal little-endian TIFF with one IFD entry: Orientation (0x0112), SHORT, 1 value."""
    return (b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1)
            + struct.pack("<HHIHH", 0x0112, 3, 1, value, 0) + struct.pack("<I", 0))


def chunk(fourcc, payload):
    pad = b"\x00" if len(payload) % 2 else b""
    return fourcc + struct.pack("<I", len(payload)) + payload + pad


def with_exif(simple_webp, exif, width, height):
    """Wraps a simple lossy WebP (RIFF + 'VP8 ') as VP8X + VP8 + EXIF, by hand."""
    assert simple_webp[:4] == b"RIFF" and simple_webp[12:16] == b"VP8 "
    vp8 = simple_webp[12:]
    flags = 0x08  # EXIF
    vp8x = chunk(b"VP8X", struct.pack("<I", flags) + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little"))
    body = b"WEBP" + vp8x + vp8 + chunk(b"EXIF", exif)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def encode(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "WEBP", **options)
    return buffer.getvalue()


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    files = {
        "lossless_rgba_32x24.webp": encode(pattern(32, 24, True), lossless=True, exact=True),
        "lossy_rgb_48x32.webp": encode(pattern(48, 32, False).convert("RGB"), quality=80),
        "lossy_alpha_40x30.webp": encode(pattern(40, 30, True), quality=80),
        # Pillow writes the EXIF chunk as raw TIFF (what the WebP spec says).
        "exif_orientation_8.webp": encode(pattern(24, 16, False).convert("RGB"), quality=80,
                                          exif=tiff_orientation(8)),
        # Some writers (older Pillow among them) prefix the chunk with "Exif\0\0"; built by hand.
        "exif_orientation_3_prefixed.webp": with_exif(
            encode(pattern(24, 16, False).convert("RGB"), quality=80),
            b"Exif\x00\x00" + tiff_orientation(3), 24, 16),
    }
    for name, data in files.items():
        (OUT / name).write_bytes(data)
        print(f"{name}\t{len(data)} bytes")


if __name__ == "__main__":
    main()
