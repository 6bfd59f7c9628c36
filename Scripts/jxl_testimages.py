#!/usr/bin/env python3
"""Writes the small JPEG XL files in TestImages/jxl/ (run once by hand; the outputs are committed).

Needs Pillow (for the source PNGs, APNG and JPEG) and libjxl's cjxl (apt-get install libjxl-tools;
made with cjxl 0.7.0). Every pixel is computed here from formulas (gradients under a checkerboard,
flat quadrants for the orientation files); the one ICC profile is a matrix/curve profile built
here byte by byte from the Adobe RGB (1998) primaries and a tabulated curve. No third-party pixels.

    python3 Scripts/jxl_testimages.py

The tests compare every file with djxl's decode at test time, so regenerating needs no reference
data; a different cjxl may write different bytes, which the tests do not pin.
"""
import math
import struct
import subprocess
import tempfile
from pathlib import Path

from PIL import Image

OUT = Path(__file__).resolve().parent.parent / "TestImages" / "jxl"


def gradient(width, height, mode="RGB", alpha=False, seed=0):
    """Smooth colour ramps with a faint luma checkerboard (8 px), so lossy coding has edges to keep."""
    image = Image.new("RGBA", (width, height))
    for y in range(height):
        for x in range(width):
            check = 24 if ((x // 8) + (y // 8)) % 2 else 0
            r = min(255, x * 255 // max(1, width - 1) * 3 // 4 + check)
            g = min(255, y * 255 // max(1, height - 1) * 3 // 4 + check)
            b = min(255, ((x + y + seed) * 5) % 200 + check)
            if alpha:
                # A transparent top-left corner, then a ramp from opaque (left) to faint (right).
                a = 0 if x < width // 4 and y < height // 4 else 255 - x * 200 // max(1, width - 1)
            else:
                a = 255
            image.putpixel((x, y), (r, g, b, a))
    if mode == "L":
        return image.convert("L")
    if mode == "LA":
        return image.convert("LA")
    return image if alpha else image.convert("RGB")


def quadrants(width, height):
    """Four flat, different quadrants and a bar along the top: every turn and mirror looks different."""
    image = Image.new("RGB", (width, height))
    colours = [(230, 40, 40), (40, 200, 60), (40, 60, 220), (240, 220, 40)]
    for y in range(height):
        for x in range(width):
            quadrant = (1 if x >= width // 2 else 0) + (2 if y >= height // 2 else 0)
            colour = (250, 250, 250) if y < 2 and x < width * 3 // 4 else colours[quadrant]
            image.putpixel((x, y), colour)
    return image


# Pillow's transposes that undo EXIF orientation n (as ImageOps.exif_transpose applies them) ...
UPRIGHT_FROM_STORED = {
    2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
# ... and their inverses, which turn the upright picture into what is stored.
STORED_FROM_UPRIGHT = {**UPRIGHT_FROM_STORED, 6: Image.Transpose.ROTATE_90, 8: Image.Transpose.ROTATE_270}


def s15(value):
    return struct.pack(">i", round(value * 65536))


def xyz_tag(x, y, z):
    return b"XYZ " + b"\0" * 4 + s15(x) + s15(y) + s15(z)


def primaries_to_d50_xyz(red, green, blue, white):
    """Colorants of an RGB space (xy primaries, xy white) as ICC wants them: XYZ, adapted to D50 (Bradford)."""
    def xyz(xy):
        x, y = xy
        return [x / y, 1.0, (1 - x - y) / y]

    columns = [xyz(p) for p in (red, green, blue)]
    w = xyz(white)
    # Scale the primaries so that R = G = B = 1 is the white point: solve P s = W (Cramer's rule).
    p = [[columns[c][r] for c in range(3)] for r in range(3)]

    def det(m):
        return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))

    d = det(p)
    scale = []
    for c in range(3):
        m = [row[:] for row in p]
        for r in range(3):
            m[r][c] = w[r]
        scale.append(det(m) / d)
    colorants = [[columns[c][r] * scale[c] for r in range(3)] for c in range(3)]
    bradford = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
    inverse = [[0.9869929, -0.1470543, 0.1599627], [0.4323053, 0.5183603, 0.0492912], [-0.0085287, 0.0400428, 0.9684867]]
    d50 = [0.9642, 1.0, 0.8249]

    def apply(m, v):
        return [sum(m[r][k] * v[k] for k in range(3)) for r in range(3)]

    cone_source, cone_target = apply(bradford, w), apply(bradford, d50)
    adapted = []
    for colorant in colorants:
        cone = apply(bradford, colorant)
        cone = [cone[i] * cone_target[i] / cone_source[i] for i in range(3)]
        adapted.append(apply(inverse, cone))
    return adapted


def icc_profile():
    """An ICC v2 RGB display profile: Adobe RGB (1998) primaries, D65, and a 1024-entry curve that
    is gamma 2.2 with a linear toe (no single gamma or named curve matches it, so cjxl has to keep
    the profile itself instead of a structured encoding)."""
    red, green, blue = primaries_to_d50_xyz((0.64, 0.33), (0.21, 0.71), (0.15, 0.06), (0.3127, 0.3290))
    entries = 1024
    curve = []
    for i in range(entries):
        v = i / (entries - 1)
        linear = v / 20 if v < 0.05 else ((v + 0.04) / 1.04) ** 2.2 * (1 - 0.0025) + 0.0025
        curve.append(max(0, min(65535, round(linear * 65535))))
    trc = b"curv" + b"\0" * 4 + struct.pack(">I", entries) + b"".join(struct.pack(">H", c) for c in curve)
    name = b"thumbd synthetic Adobe-RGB-like\0"
    desc = b"desc" + b"\0" * 4 + struct.pack(">I", len(name)) + name + b"\0" * 8 + b"\0" * 3 + b"\0" * 67
    text = b"text" + b"\0" * 4 + b"No copyright, made by Scripts/jxl_testimages.py\0"
    tags = [
        (b"desc", desc), (b"cprt", text), (b"wtpt", xyz_tag(0.9642, 1.0, 0.8249)),
        (b"rXYZ", xyz_tag(*red)), (b"gXYZ", xyz_tag(*green)), (b"bXYZ", xyz_tag(*blue)),
        (b"rTRC", trc), (b"gTRC", trc), (b"bTRC", trc),
    ]
    table_size = 4 + 12 * len(tags)
    offset = 128 + table_size
    table, data = b"", b""
    for signature, body in tags:
        table += signature + struct.pack(">II", offset + len(data), len(body))
        data += body + b"\0" * (-len(body) % 4)
    size = 128 + table_size + len(data)
    header = (struct.pack(">I", size) + b"\0" * 4 + bytes([2, 0x10, 0, 0]) + b"mntrRGB XYZ " + b"\0" * 12 + b"acsp"
              + b"\0" * 24 + struct.pack(">I", 0) + s15(0.9642) + s15(1.0) + s15(0.8249) + b"\0" * 4 + b"\0" * 16 + b"\0" * 28)
    assert len(header) == 128
    return header + struct.pack(">I", len(tags)) + table + data


def cjxl(source, name, *arguments):
    # cjxl 0.7 prints "assuming sRGB" for every untagged input, --quiet or not: shown only on failure.
    result = subprocess.run(["cjxl", str(source), str(OUT / name), "--quiet", *arguments], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"cjxl {name} failed ({result.returncode}): {result.stderr}")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)

        def png(image, name, **options):
            path = scratch / name
            image.save(path, **options)
            return path

        rgb = png(gradient(48, 32), "rgb.png")
        cjxl(rgb, "lossy_rgb_48x32.jxl", "-d", "1", "-e", "7")
        cjxl(rgb, "lossless_rgb_48x32.jxl", "-d", "0")
        # The same pixels in the ISO-BMFF container (signature box, ftyp, jxlc).
        cjxl(rgb, "container_lossy_rgb_48x32.jxl", "-d", "1", "--container=1")

        rgba = png(gradient(32, 24, alpha=True), "rgba.png")
        cjxl(rgba, "lossless_rgba_32x24.jxl", "-d", "0")
        cjxl(rgba, "lossy_rgba_32x24.jxl", "-d", "1")

        grey = png(gradient(32, 24, mode="L"), "grey.png")
        cjxl(grey, "lossless_grey_32x24.jxl", "-d", "0")
        cjxl(grey, "lossy_grey_32x24.jxl", "-d", "1")
        cjxl(png(gradient(32, 24, mode="LA", alpha=True), "grey_alpha.png"), "lossless_grey_alpha_32x24.jxl", "-d", "0")

        # 16 bits a sample, lossless: decoded to 8.
        deep = Image.new("I;16", (32, 24))
        for y in range(24):
            for x in range(32):
                deep.putpixel((x, y), (x * 2047 + y * 731) % 65536)
        cjxl(png(deep, "grey16.png"), "lossless_grey16_32x24.jxl", "-d", "0")

        # Animation: three 24x16 frames of 100 ms, each a different flat colour with a gradient row.
        frames = []
        for colour in [(200, 30, 30), (30, 200, 30), (30, 30, 200)]:
            frame = Image.new("RGB", (24, 16), colour)
            for x in range(24):
                frame.putpixel((x, 0), (x * 10, x * 10, x * 10))
            frames.append(frame)
        apng = scratch / "animated.png"
        frames[0].save(apng, save_all=True, append_images=frames[1:], duration=100, loop=0)
        cjxl(apng, "animated_3frames_24x16.jxl", "-d", "0")

        # Display P3 as a structured colour encoding (the samples are the gradient's numbers, read
        # as P3): lossless keeps P3 samples; lossy (XYB) is rendered back into P3 by libjxl.
        cjxl(rgb, "p3_lossless_48x32.jxl", "-d", "0", "-x", "color_space=RGB_D65_DCI_Rel_SRG")
        cjxl(rgb, "p3_lossy_48x32.jxl", "-d", "1", "-x", "color_space=RGB_D65_DCI_Rel_SRG")
        # Linear sRGB, lossy: libjxl would render 8-bit linear samples; thumbd asks for sRGB's curve.
        cjxl(rgb, "linear_lossy_48x32.jxl", "-d", "1", "-x", "color_space=RGB_D65_SRG_Rel_Lin")
        # An ICC profile of our own: kept as ICC. Lossless keeps samples in it; lossy (XYB) has no
        # colour space of its own and libjxl renders it (thumbd asks for sRGB).
        tagged = png(gradient(48, 32), "icc.png", icc_profile=icc_profile())
        cjxl(tagged, "icc_lossless_48x32.jxl", "-d", "0")
        cjxl(tagged, "icc_lossy_48x32.jxl", "-d", "1")

        # A JPEG recompressed losslessly (cjxl's default for JPEG input): VarDCT with the JPEG's own
        # coefficients, in the container with its reconstruction data.
        jpeg = scratch / "photo.jpg"
        gradient(48, 32).save(jpeg, quality=90)
        cjxl(jpeg, "jpeg_recompressed_48x32.jxl", "--lossless_jpeg=1")

        # All eight orientations, lossless: cjxl takes the orientation from the PNG's eXIf chunk into
        # the codestream header. The stored pixels are turned so that each file shows `quadrants`
        # upright; the upright picture itself is orientation_1.
        upright = quadrants(24, 16)
        for orientation in range(1, 9):
            stored = upright if orientation == 1 else upright.transpose(STORED_FROM_UPRIGHT[orientation])
            exif = Image.Exif()
            exif[0x0112] = orientation
            cjxl(png(stored, f"o{orientation}.png", exif=exif.tobytes()), f"orientation_{orientation}.jxl", "-d", "0")


if __name__ == "__main__":
    main()
