#!/usr/bin/env python3
"""Synthetic TIFF files for Tests/TIFFCodecTests, and Pillow's decodes of them for the tests.

    python3 Scripts/tiff_testimages.py                      writes TestImages/tiff/*.tif
    python3 Scripts/tiff_testimages.py reference FILE OUT   Pillow's first page of FILE, raw, into OUT
    python3 Scripts/tiff_testimages.py reference-srgb FILE OUT   the same through its ICC profile to sRGB
    python3 Scripts/tiff_testimages.py with-profile FILE OUT PROFILE   FILE again, with an ICC profile
    python3 Scripts/tiff_testimages.py convert-photo SRC OUTDIR [CMYK_PROFILE]
                                                            a photo as RGB LZW, 16-bit RGB and CMYK TIFFs

Every pixel comes from the formulas in `pattern` (smooth gradients under a checkerboard, an alpha
ramp): no third-party pixels. Pillow writes what it can write; the rest (tiles, separate planes,
associated alpha, MinIsWhite, 4-bit palette and grey, CMYK with alpha, 16-bit RGB, YCbCr with
subsampling, JPEG strips and tiles, BigTIFF) is assembled by `TIFFWriter` below from the TIFF 6.0
specification, with Pillow only encoding the JPEG strips. Output is deterministic for a given
Pillow and zlib.
"""
import io
import os
import struct
import sys
import zlib

from PIL import Image, ImageCms

WIDTH, HEIGHT = 45, 31  # odd on purpose: partial tiles and strips, sub-byte row padding
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "TestImages", "tiff")


# --- the synthetic pattern ----------------------------------------------------------------------

def pattern(x, y, w=WIDTH, h=HEIGHT):
    """RGB 0..255: a horizontal red ramp, a vertical green ramp, blue from both, and a checkerboard
    of 8-pixel squares that lifts or lowers every channel a little (edges for lossy codecs)."""
    check = 24 if ((x // 8) + (y // 8)) % 2 == 0 else -24
    r = 20 + (200 * x) // max(1, w - 1)
    g = 230 - (190 * y) // max(1, h - 1)
    b = (90 + 3 * x + 5 * y) % 256
    return tuple(max(0, min(255, c + check)) for c in (r, g, b))


def alpha(x, y, w=WIDTH, h=HEIGHT):
    """0 in the left column, 255 in the right one, a ramp between; a fully transparent square too."""
    if 4 <= x < 10 and 4 <= y < 10:
        return 0
    return (255 * x) // max(1, w - 1)


def grey(x, y):
    r, g, b = pattern(x, y)
    return (r * 299 + g * 587 + b * 114) // 1000


def grey16(x, y, w=WIDTH, h=HEIGHT):
    """Both bytes vary: the high byte follows the grey pattern, the low one a fine ramp."""
    return min(65535, grey(x, y) * 256 + (x * 37 + y * 11) % 256)


def cmyk(x, y):
    """Inks from the pattern's complement, three quarters strength, and a black ramp of its own."""
    r, g, b = pattern(x, y)
    return ((255 - r) * 3 // 4, (255 - g) * 3 // 4, (255 - b) * 3 // 4, (x * 5 + y * 3) % 200)


def cmyk_alpha(x, y, w=WIDTH):
    """CMYK with alpha: opaque on the left half, 128 in the third quarter, transparent in the last."""
    if x < w // 2:
        return 255
    return 128 if x < (3 * w) // 4 else 0


# --- a TIFF writer for what Pillow does not write --------------------------------------------------

SHORT, LONG, RATIONAL, UNDEFINED, LONG8 = 3, 4, 5, 7, 16


def pack_samples(values, bits, big_endian):
    """One row of samples, MSB first for sub-byte depths, padded to a whole byte."""
    if bits == 8:
        return bytes(values)
    if bits == 16:
        return struct.pack((">" if big_endian else "<") + "%dH" % len(values), *values)
    out = bytearray()
    acc, used = 0, 0
    for v in values:
        acc = (acc << bits) | v
        used += bits
        if used == 8:
            out.append(acc)
            acc, used = 0, 0
    if used:
        out.append(acc << (8 - used))
    return bytes(out)


def packbits(data):
    """PackBits with literal runs and repeat runs of three or more (TIFF 6.0, section 9)."""
    out = bytearray()
    i = 0
    while i < len(data):
        run = 1
        while i + run < len(data) and run < 128 and data[i + run] == data[i]:
            run += 1
        if run >= 3:
            out += bytes([(257 - run) & 0xFF, data[i]])
            i += run
            continue
        start = i
        while i < len(data) and i - start < 128:
            if i + 2 < len(data) and data[i] == data[i + 1] == data[i + 2]:
                break
            i += 1
        out.append(i - start - 1)
        out += data[start:i]
    return bytes(out)


def horizontal_difference(row, samples_per_pixel, bits):
    """Predictor 2 for 8- and 16-bit samples (each sample minus the same sample of the pixel before)."""
    out = list(row)
    modulo = 1 << bits
    for i in range(len(row) - 1, samples_per_pixel - 1, -1):
        out[i] = (row[i] - row[i - samples_per_pixel]) % modulo
    return out


class TIFFWriter:
    """A single-page TIFF (or BigTIFF) with strips or tiles, contiguous or separate planes.

    `sample_rows(x0, y0, w, h, plane)` returns h rows of samples (ints) for that region: every
    sample of each pixel when planes are contiguous (plane is None), else the samples of one plane.
    """

    def __init__(self, width, height, samples_per_pixel, bits, photometric, *, compression=1,
                 big_endian=False, bigtiff=False):
        self.width, self.height = width, height
        self.spp, self.bits, self.photometric = samples_per_pixel, bits, photometric
        self.compression = compression
        self.big_endian, self.bigtiff = big_endian, bigtiff
        self.tags = {}
        self.predictor = 1

    def tag(self, number, kind, values):
        self.tags[number] = (kind, values)

    def encode(self, raw):
        if self.compression == 1:
            return raw
        if self.compression == 8:
            return zlib.compress(raw, 9)
        if self.compression == 32773:
            return packbits(raw)
        raise ValueError("compression %d" % self.compression)

    def chunk_bytes(self, rows, samples_per_pixel):
        data = bytearray()
        for row in rows:
            if self.predictor == 2:
                row = horizontal_difference(row, samples_per_pixel, self.bits)
            data += pack_samples(row, self.bits, self.big_endian)
        return self.encode(bytes(data))

    def write(self, path, sample_rows, *, rows_per_strip=None, tile=None, separate=False, chunks=None):
        """`chunks`, when given, replaces the encoding: a list of already-compressed chunk bytes."""
        planes = [None] if not separate else list(range(self.spp))
        per_pixel = 1 if separate else self.spp
        regions = []
        if tile:
            tw, th = tile
            for plane in planes:
                for ty in range(0, self.height, th):
                    for tx in range(0, self.width, tw):
                        regions.append((tx, ty, tw, th, plane))
        else:
            rps = rows_per_strip or self.height
            for plane in planes:
                for y0 in range(0, self.height, rps):
                    regions.append((0, y0, self.width, min(rps, self.height - y0), plane))
        if chunks is None:
            chunks = []
            for (x0, y0, w, h, plane) in regions:
                rows = sample_rows(x0, y0, w, h, plane)
                chunks.append(self.chunk_bytes(rows, per_pixel))

        self.tag(256, LONG, [self.width])
        self.tag(257, LONG, [self.height])
        self.tag(258, SHORT, [self.bits] * self.spp)
        self.tag(259, SHORT, [self.compression])
        self.tag(262, SHORT, [self.photometric])
        self.tag(277, SHORT, [self.spp])
        self.tag(284, SHORT, [2 if separate else 1])
        if self.predictor != 1:
            self.tag(317, SHORT, [self.predictor])
        offset_kind = LONG8 if self.bigtiff else LONG
        if tile:
            self.tag(322, LONG, [tile[0]])
            self.tag(323, LONG, [tile[1]])
        else:
            self.tag(278, LONG, [rows_per_strip or self.height])

        e = ">" if self.big_endian else "<"
        header = 16 if self.bigtiff else 8
        body = bytearray()
        offsets = []
        for chunk in chunks:
            offsets.append(header + len(body))
            body += chunk
            if len(body) % 2:
                body.append(0)
        counts = [len(c) for c in chunks]
        self.tag(324 if tile else 273, offset_kind, offsets)
        self.tag(325 if tile else 279, offset_kind, counts)

        # Out-of-line values after the image data, then the directory (as libtiff lays files out).
        entry_size, count_format, inline = (20, "Q", 8) if self.bigtiff else (12, "I", 4)
        value_formats = {SHORT: "H", LONG: "I", LONG8: "Q", 1: "B", UNDEFINED: "B"}
        entries = []
        for number in sorted(self.tags):
            kind, values = self.tags[number]
            if kind == RATIONAL:
                payload = b"".join(struct.pack(e + "II", n, d) for (n, d) in values)
                count = len(values)
            elif kind == UNDEFINED:
                payload = bytes(values)
                count = len(payload)
            else:
                payload = struct.pack(e + "%d%s" % (len(values), value_formats[kind]), *values)
                count = len(values)
            if len(payload) <= inline:
                field = payload + bytes(inline - len(payload))
            else:
                where = header + len(body)
                body += payload
                if len(body) % 2:
                    body.append(0)
                field = struct.pack(e + count_format, where)
            entries.append(struct.pack(e + "HH" + count_format, number, kind, count) + field)
        ifd_offset = header + len(body)
        if self.bigtiff:
            head = struct.pack(e + "2sHHHQ", b"MM" if self.big_endian else b"II", 43, 8, 0, ifd_offset)
            ifd = struct.pack(e + "Q", len(entries)) + b"".join(entries) + struct.pack(e + "Q", 0)
        else:
            head = struct.pack(e + "2sHI", b"MM" if self.big_endian else b"II", 42, ifd_offset)
            ifd = struct.pack(e + "H", len(entries)) + b"".join(entries) + struct.pack(e + "I", 0)
        with open(path, "wb") as f:
            f.write(head + bytes(body) + ifd)


def region_rows(pixel, x0, y0, w, h, plane, width=WIDTH, height=HEIGHT):
    """Rows of samples for a region (tiles past the image edge are padded with zeros)."""
    rows = []
    for y in range(y0, y0 + h):
        row = []
        for x in range(x0, x0 + w):
            samples = pixel(x, y) if x < width and y < height else (0,) * len(pixel(0, 0))
            row.extend(samples if plane is None else (samples[plane],))
        rows.append(row)
    return rows


# --- Pillow-written files -------------------------------------------------------------------------

def pillow_image(mode_maker):
    img = Image.new("RGB", (WIDTH, HEIGHT))
    img.putdata([pattern(x, y) for y in range(HEIGHT) for x in range(WIDTH)])
    return mode_maker(img)


def rgba_image():
    img = Image.new("RGBA", (WIDTH, HEIGHT))
    img.putdata([pattern(x, y) + (alpha(x, y),) for y in range(HEIGHT) for x in range(WIDTH)])
    return img


def grey16_image():
    img = Image.new("I;16", (WIDTH, HEIGHT))
    img.putdata([grey16(x, y) for y in range(HEIGHT) for x in range(WIDTH)])
    return img


def palette_image():
    # 16 colours from the pattern's corners, indexed by a coarse position: an exact palette image.
    colours = [pattern((i % 4) * 14, (i // 4) * 10) for i in range(16)]
    img = Image.new("P", (WIDTH, HEIGHT))
    img.putpalette([c for colour in colours for c in colour])
    img.putdata([palette_index(x, y) for y in range(HEIGHT) for x in range(WIDTH)])
    return img, colours


def palette_index(x, y):
    return ((x // 6) + 3 * (y // 5)) % 16


def bilevel_image():
    img = Image.new("1", (WIDTH, HEIGHT))
    img.putdata([255 if grey(x, y) > 128 else 0 for y in range(HEIGHT) for x in range(WIDTH)])
    return img


def cmyk_image():
    img = Image.new("CMYK", (WIDTH, HEIGHT))
    img.putdata([cmyk(x, y) for y in range(HEIGHT) for x in range(WIDTH)])
    return img


def make_pillow_files():
    rgb = pillow_image(lambda i: i)
    rgb.save(os.path.join(OUT, "rgb8-none.tif"), compression=None)
    rgb.save(os.path.join(OUT, "rgb8-lzw.tif"), compression="tiff_lzw")
    rgb.save(os.path.join(OUT, "rgb8-deflate.tif"), compression="tiff_adobe_deflate")
    rgb.save(os.path.join(OUT, "rgb8-packbits.tif"), compression="packbits")
    rgb.save(os.path.join(OUT, "rgb8-jpeg.tif"), compression="jpeg", quality=90)
    # YCbCr (Pillow writes photometric 6, no subsampling, libjpeg converting).
    rgb.convert("YCbCr").save(os.path.join(OUT, "ycbcr-jpeg444.tif"), compression="jpeg", quality=90)
    rgba_image().save(os.path.join(OUT, "rgba8-unassociated.tif"), compression="tiff_lzw")
    pillow_image(lambda i: i.convert("L")).save(os.path.join(OUT, "grey8.tif"), compression="tiff_adobe_deflate")
    grey16_image().save(os.path.join(OUT, "grey16.tif"), compression="tiff_lzw")
    la = Image.merge("LA", (pillow_image(lambda i: i.convert("L")), rgba_image().getchannel("A")))
    la.save(os.path.join(OUT, "grey-alpha8.tif"), compression="tiff_lzw")
    bilevel_image().save(os.path.join(OUT, "bilevel-group4.tif"), compression="group4")
    palette_image()[0].save(os.path.join(OUT, "palette8.tif"), compression="tiff_lzw")
    cmyk_image().save(os.path.join(OUT, "cmyk8.tif"), compression="tiff_lzw")
    # An sRGB profile built by Little CMS from scratch (no third-party bytes), its creation date
    # (header bytes 24-35) fixed so the file is the same every time; Little CMS leaves the profile
    # ID (which would cover the date) zero, meaning "not computed".
    srgb = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    srgb[24:36] = struct.pack(">6H", 2000, 1, 1, 0, 0, 0)
    srgb = bytes(srgb)
    rgb.save(os.path.join(OUT, "rgb8-icc.tif"), compression="tiff_lzw", icc_profile=srgb)
    for orientation in range(1, 9):
        rgb.save(os.path.join(OUT, "orientation-%d.tif" % orientation), compression="tiff_lzw",
                 tiffinfo={274: orientation})
    # Three pages; the second and third are other images of other sizes.
    second = pillow_image(lambda i: i.transpose(Image.Transpose.ROTATE_90))
    third = Image.new("RGB", (7, 5), (255, 0, 0))
    rgb.save(os.path.join(OUT, "multipage.tif"), compression="tiff_lzw", save_all=True, append_images=[second, third])
    # A refused kind: float samples (CIELab, the other, is written in make_written_files).
    pillow_image(lambda i: i.convert("F")).save(os.path.join(OUT, "float32-grey.tif"))


# --- hand-assembled files -------------------------------------------------------------------------

def make_written_files():
    def rgb_rows(*a):
        return region_rows(pattern, *a)

    def path(name):
        return os.path.join(OUT, name)

    w = TIFFWriter(WIDTH, HEIGHT, 3, 8, 2, compression=8)
    w.write(path("tiled-rgb8.tif"), rgb_rows, tile=(16, 16))
    w = TIFFWriter(WIDTH, HEIGHT, 3, 8, 2, compression=8)
    w.write(path("separate-rgb8.tif"), rgb_rows, rows_per_strip=8, separate=True)
    w = TIFFWriter(WIDTH, HEIGHT, 4, 8, 2, compression=32773)
    w.tag(338, SHORT, [2])
    w.write(path("separate-tiled-rgba8.tif"), lambda *a: region_rows(lambda x, y: pattern(x, y) + (alpha(x, y),), *a),
            tile=(16, 16), separate=True)

    def premultiplied(x, y):
        a = alpha(x, y)
        return tuple((c * a + 127) // 255 for c in pattern(x, y)) + (a,)
    w = TIFFWriter(WIDTH, HEIGHT, 4, 8, 2, compression=8)
    w.tag(338, SHORT, [1])
    w.write(path("rgba8-associated.tif"), lambda *a: region_rows(premultiplied, *a), rows_per_strip=10)

    def rgb16(x, y):
        r, g, b = pattern(x, y)
        return (min(65535, r * 256 + x * 5), min(65535, g * 257), min(65535, b * 256 + y * 7))
    w = TIFFWriter(WIDTH, HEIGHT, 3, 16, 2, compression=8, big_endian=True)
    w.predictor = 2
    w.write(path("rgb16-deflate-predictor-bigendian.tif"), lambda *a: region_rows(rgb16, *a), rows_per_strip=7)
    w = TIFFWriter(WIDTH, HEIGHT, 4, 16, 2, compression=1)
    w.tag(338, SHORT, [2])
    w.write(path("rgba16.tif"), lambda *a: region_rows(lambda x, y: rgb16(x, y) + (alpha(x, y) * 257,), *a))

    # MinIsWhite grey, 4 bits: 0 is white.
    w = TIFFWriter(WIDTH, HEIGHT, 1, 4, 0, compression=32773)
    w.write(path("grey4-miniswhite.tif"), lambda *a: region_rows(lambda x, y: (15 - grey(x, y) // 17,), *a), rows_per_strip=5)
    # Bilevel, MinIsWhite, PackBits, big-endian.
    w = TIFFWriter(WIDTH, HEIGHT, 1, 1, 0, compression=32773, big_endian=True)
    w.write(path("bilevel-miniswhite.tif"), lambda *a: region_rows(lambda x, y: (0 if grey(x, y) > 128 else 1,), *a))
    # 4-bit palette with palette8.tif's colours and indices; then the same with a colour map of
    # 8-bit values, as some old writers store it (libtiff's RGBA reader takes such a map as 8-bit).
    colours = palette_image()[1]
    for name, scale in (("palette4.tif", 257), ("palette4-8bit-colormap.tif", 1)):
        w = TIFFWriter(WIDTH, HEIGHT, 1, 4, 3, compression=1)
        w.tag(320, SHORT, [c[i] * scale for i in range(3) for c in colours])
        w.write(path(name), lambda *a: region_rows(lambda x, y: (palette_index(x, y),), *a))
    # CMYK with unassociated alpha.
    w = TIFFWriter(WIDTH, HEIGHT, 5, 8, 5, compression=8)
    w.tag(338, SHORT, [2])
    w.write(path("cmyk-alpha8.tif"), lambda *a: region_rows(lambda x, y: cmyk(x, y) + (cmyk_alpha(x, y),), *a))
    # CIE L*a*b* (photometric 8), which thumbd refuses: L from the grey pattern, a and b from
    # the colour ramps (Pillow's own RGB-to-LAB conversion is not byte-for-byte repeatable).
    w = TIFFWriter(WIDTH, HEIGHT, 3, 8, 8)
    w.write(path("lab8.tif"), lambda *a: region_rows(lambda x, y: (grey(x, y), (pattern(x, y)[0] - 128) % 256,
                                                                  (pattern(x, y)[2] - 128) % 256), *a))
    # BigTIFF, tiled RGB.
    w = TIFFWriter(WIDTH, HEIGHT, 3, 8, 2, compression=8, bigtiff=True)
    w.write(path("bigtiff-rgb8.tif"), rgb_rows, tile=(32, 16))

    make_ycbcr_files(path)


def ycbcr(r, g, b):
    """Full-range YCbCr (ITU-R BT.601 coefficients, ReferenceBlackWhite 0 255 128 255 128 255)."""
    y = 0.299 * r + 0.587 * g + 0.114 * b
    cb = 128 + (b - y) / 1.772
    cr = 128 + (r - y) / 1.402
    return tuple(max(0, min(255, int(round(v)))) for v in (y, cb, cr))


def make_ycbcr_files(path):
    # Uncompressed YCbCr 4:2:0: each 2x2 block is Y00 Y01 Y10 Y11 Cb Cr (TIFF 6.0, section 21).
    w, h = 44, 30  # whole blocks
    data = bytearray()
    for by in range(0, h, 2):
        for bx in range(0, w, 2):
            block = [ycbcr(*pattern(bx + dx, by + dy, w, h)) for dy in (0, 1) for dx in (0, 1)]
            data += bytes(p[0] for p in block)
            data += bytes([sum(p[1] for p in block) // 4, sum(p[2] for p in block) // 4])
    # The Orientation tag on otherwise identical files: libtiff's RGBA reader, which thumbd uses
    # for this kind, would turn some orientations itself.
    variants = [("ycbcr420-none.tif", 1, None), ("ycbcr420-deflate.tif", 8, None)]
    variants += [("ycbcr420-orientation-%d.tif" % o, 8, o) for o in range(1, 9)]
    for name, compression, orientation in variants:
        writer = TIFFWriter(w, h, 3, 8, 6, compression=compression)
        writer.tag(530, SHORT, [2, 2])
        writer.tag(532, RATIONAL, [(0, 1), (255, 1), (128, 1), (255, 1), (128, 1), (255, 1)])
        if orientation:
            writer.tag(274, SHORT, [orientation])
        writer.write(path(name), None, chunks=[writer.encode(bytes(data))])

    # JPEG strips and tiles, each a whole JPEG (Pillow's), 4:2:0 (TIFF Technical Note 2 allows this).
    def jpeg_of(x0, y0, cw, ch, width, height):
        img = Image.new("RGB", (cw, ch))
        img.putdata([pattern(x, y, width, height) if x < width and y < height else (0, 0, 0)
                     for y in range(y0, y0 + ch) for x in range(x0, x0 + cw)])
        out = io.BytesIO()
        img.save(out, "JPEG", quality=92, subsampling="4:2:0")
        return out.getvalue()

    width, height = 45, 40
    strips = [jpeg_of(0, y0, width, min(16, height - y0), width, height) for y0 in range(0, height, 16)]
    writer = TIFFWriter(width, height, 3, 8, 6, compression=7)
    writer.tag(530, SHORT, [2, 2])
    writer.write(path("ycbcr-jpeg420-strips.tif"), None, rows_per_strip=16, chunks=strips)
    tiles = [jpeg_of(x0, y0, 32, 16, width, height) for y0 in range(0, height, 16) for x0 in range(0, width, 32)]
    writer = TIFFWriter(width, height, 3, 8, 6, compression=7)
    writer.tag(530, SHORT, [2, 2])
    writer.write(path("ycbcr-jpeg420-tiled.tif"), None, tile=(32, 16), chunks=tiles)


# --- reference decodes and photo conversion ------------------------------------------------------

def reference(source, out):
    """Pillow's decode of the first page, as stored (no orientation applied), written raw to `out`;
    prints "width height kind" where kind is rgba (4 bytes a pixel) or cmyk (C, M, Y, K)."""
    img = Image.open(source)
    img.seek(0)
    img.load()
    kind = "rgba"
    if img.mode == "CMYK":
        kind = "cmyk"
        data = img.tobytes()
    elif img.mode in ("I;16", "I;16B", "I;16L", "I"):
        # 16-bit grey rounded to 8 bits (Pillow's own conversions clip instead of scaling).
        values = list(img.getdata())
        grey8 = bytes(min(255, (v + 128) // 257) for v in values)
        data = Image.frombytes("L", img.size, grey8).convert("RGBA").tobytes()
    else:
        data = img.convert("RGBA").tobytes()
    with open(out, "wb") as f:
        f.write(data)
    print(img.size[0], img.size[1], kind, img.mode)


def reference_srgb(source, out):
    """Pillow's first page converted to sRGB with Little CMS through the file's own ICC profile,
    as thumbd's ColorManagement converts (relative colorimetric, black-point compensation), RGBA."""
    img = Image.open(source)
    img.load()
    profile = ImageCms.ImageCmsProfile(io.BytesIO(img.info["icc_profile"]))
    srgb = ImageCms.createProfile("sRGB")
    converted = ImageCms.profileToProfile(img, profile, srgb, renderingIntent=1, outputMode="RGB", flags=0x2000)
    with open(out, "wb") as f:
        f.write(converted.convert("RGBA").tobytes())
    print(img.size[0], img.size[1], "rgba", converted.mode)


def with_profile(source, out, profile_path):
    """`source`'s first page saved again (LZW) with the ICC profile at `profile_path` embedded."""
    with open(profile_path, "rb") as f:
        profile = f.read()
    Image.open(source).save(out, compression="tiff_lzw", icc_profile=profile)


def convert_photo(source, outdir, cmyk_profile=None):
    """A photo as the TIFFs the photo tests decode; prints one line per file written."""
    img = Image.open(source).convert("RGB")
    base = os.path.join(outdir, os.path.splitext(os.path.basename(source))[0])
    img.save(base + "-rgb-lzw.tif", compression="tiff_lzw")
    print(base + "-rgb-lzw.tif")
    if cmyk_profile:
        with open(cmyk_profile, "rb") as f:
            profile = f.read()
        img.convert("CMYK").save(base + "-cmyk-icc.tif", compression="tiff_lzw", icc_profile=profile)
        print(base + "-cmyk-icc.tif")
    else:
        img.convert("CMYK").save(base + "-cmyk.tif", compression="tiff_lzw")
        print(base + "-cmyk.tif")
    try:
        import numpy
    except ImportError:
        return
    # 16-bit RGB: each 8-bit value v becomes v * 257 plus a little noise below the high byte's
    # rounding step, so the low byte carries something and rounding to 8 bits gives v again.
    pixels = numpy.asarray(img, dtype=numpy.uint16)
    noise = (numpy.arange(pixels.size, dtype=numpy.uint32).reshape(pixels.shape) * 2654435761 % 97).astype(numpy.int32) - 48
    wide = numpy.clip(pixels.astype(numpy.int32) * 257 + noise, 0, 65535).astype(numpy.uint16)
    height, width, _ = wide.shape
    writer = TIFFWriter(width, height, 3, 16, 2, compression=8)
    rows_per_strip = 64
    chunks = []
    for y0 in range(0, height, rows_per_strip):
        chunks.append(zlib.compress(wide[y0:y0 + rows_per_strip].astype("<u2").tobytes(), 6))
    writer.write(base + "-rgb16-deflate.tif", None, rows_per_strip=rows_per_strip, chunks=chunks)
    print(base + "-rgb16-deflate.tif")


def main(args):
    if args and args[0] == "reference":
        reference(args[1], args[2])
    elif args and args[0] == "reference-srgb":
        reference_srgb(args[1], args[2])
    elif args and args[0] == "with-profile":
        with_profile(args[1], args[2], args[3])
    elif args and args[0] == "convert-photo":
        convert_photo(args[1], args[2], args[3] if len(args) > 3 else None)
    else:
        os.makedirs(OUT, exist_ok=True)
        make_pillow_files()
        make_written_files()
        for name in sorted(os.listdir(OUT)):
            print("%-44s %6d bytes" % (name, os.path.getsize(os.path.join(OUT, name))))


if __name__ == "__main__":
    main(sys.argv[1:])
