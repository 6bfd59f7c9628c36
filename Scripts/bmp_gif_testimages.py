#!/usr/bin/env python3
"""Writes the small BMP and GIF test images in TestImages/bmp/ and TestImages/gif/ (run once; the
outputs are committed).

Needs Pillow (pip install pillow). Every pixel is a synthetic pattern computed here. Pillow writes
the kinds it can (24-bit, 32-bit BI_RGB, 8-bit palette and grey, 1-bit BMP; still, interlaced,
transparent and animated GIF); the others are assembled byte by byte below: BMP headers of every
size (OS/2 1.x core, V2, V3, OS/2 2.x, V4, V5), 4-bit and short palettes, 16-bit 5-5-5 and
BI_BITFIELDS masks, BI_ALPHABITFIELDS, top-down rows, RLE8 and RLE4 streams, an embedded ICC
profile (Little CMS's built-in sRGB, through Pillow's ImageCms); GIFs with a local colour table,
frame offsets, interlacing, out-of-range indices, and none of the colour tables, whose LZW data is
written uncompressed (a clear code often enough that the code width never grows).

Run: python3 Scripts/bmp_gif_testimages.py  (deterministic for a given Pillow and Little CMS).
"""
import io
import struct
from pathlib import Path

from PIL import Image, ImageCms

ROOT = Path(__file__).resolve().parent.parent / "TestImages"
BMP_DIR = ROOT / "bmp"
GIF_DIR = ROOT / "gif"


# ----------------------------------------------------------------------------------------- patterns

def rgb_at(x, y, width, height):
    """Gradients in red and green, a blue checkerboard: every row and column differs."""
    r = (x * 255) // max(1, width - 1)
    g = (y * 255) // max(1, height - 1)
    b = 40 + 160 * ((x // 4 + y // 3) % 2) + (x * 7 + y * 3) % 16
    return r, g, b


def alpha_at(x, y, width, height):
    """Transparent top-left corner, opaque right third, a ramp between."""
    if x < 4 and y < 4:
        return 0
    if x >= (2 * width) // 3:
        return 255
    return (x * 383) // width


def rgb_image(width, height):
    image = Image.new("RGB", (width, height))
    image.putdata([rgb_at(x, y, width, height) for y in range(height) for x in range(width)])
    return image


def rgba_image(width, height):
    image = Image.new("RGBA", (width, height))
    image.putdata([rgb_at(x, y, width, height) + (alpha_at(x, y, width, height),)
                   for y in range(height) for x in range(width)])
    return image


def palette_colors(count):
    """`count` distinct colours; entry i is (i*20 % 256, 255 - i*20 % 256, i*37 % 256) (the RLE tests
    recompute this formula)."""
    return [((i * 20) % 256, 255 - (i * 20) % 256, (i * 37) % 256) for i in range(count)]


def index_at(x, y, colors):
    return (x // 2 + y * 3) % colors


# -------------------------------------------------------------------------------------------- BMP

def info_header(size, width, height, bits, compression=0, image_size=0, colors_used=0,
                masks=(0, 0, 0, 0), cs_type=0, profile=(0, 0)):
    """A Windows info header of `size` bytes (40, 52, 56, 108, 124) or OS/2 2.x (64)."""
    header = struct.pack("<IiiHHIIiiII", size, width, height, 1, bits, compression, image_size,
                         2835, 2835, colors_used, 0)
    if size == 64:
        # OS/2 2.x: units, reserved, recording, rendering, size1, size2, colour encoding, identifier.
        return header + bytes(24)
    if size >= 52:
        header += struct.pack("<III", *masks[:3])
    if size >= 56:
        header += struct.pack("<I", masks[3])
    if size >= 108:
        header += struct.pack("<I", cs_type) + bytes(36) + bytes(12)  # endpoints, gammas
    if size >= 124:
        header += struct.pack("<IIII", 4, profile[0], profile[1], 0)  # LCS_GM_IMAGES, profile, reserved
    assert len(header) == size, (len(header), size)
    return header


def core_header(width, height, bits):
    return struct.pack("<IHHHH", 12, width, height, 1, bits)


def bmp_file(header, pixel_data, palette=b"", after_header=b"", trailer=b""):
    """File header + info header + masks + palette + pixels (+ anything after the pixels)."""
    offset = 14 + len(header) + len(after_header) + len(palette)
    size = offset + len(pixel_data) + len(trailer)
    return (b"BM" + struct.pack("<IHHI", size, 0, 0, offset) + header + after_header + palette
            + pixel_data + trailer)


def bgr_palette(colors, entry_size=4):
    return b"".join(bytes([b, g, r]) + bytes(entry_size - 3) for r, g, b in colors)


def padded(row):
    return row + bytes(-len(row) % 4)


def pack_indices(indices, bits):
    """Palette indices packed MSB first, `bits` each."""
    out = bytearray()
    per_byte = 8 // bits
    for i in range(0, len(indices), per_byte):
        byte = 0
        for j, index in enumerate(indices[i:i + per_byte]):
            byte |= index << (8 - bits * (j + 1))
        out.append(byte)
    return bytes(out)


def rows_data(rows, top_down=False):
    """Rows given top to bottom, stored bottom-up unless `top_down`, each padded to 4 bytes."""
    ordered = rows if top_down else list(reversed(rows))
    return b"".join(padded(row) for row in ordered)


def indexed_rows(width, height, bits, colors):
    return [pack_indices([index_at(x, y, colors) for x in range(width)], bits) for y in range(height)]


def masked_rows(width, height, bytes_per_pixel, value_at):
    return [b"".join(value_at(x, y).to_bytes(bytes_per_pixel, "little") for x in range(width))
            for y in range(height)]


def channel(value8, mask):
    """An 8-bit value stored in `mask`'s bits (top bits kept)."""
    if mask == 0:
        return 0
    shift = (mask & -mask).bit_length() - 1
    width = bin(mask).count("1")
    return ((value8 >> (8 - width)) if width <= 8 else (value8 << (width - 8))) << shift


def masked_value(x, y, width, height, masks, alpha=None):
    r, g, b = rgb_at(x, y, width, height)
    a = alpha_at(x, y, width, height) if alpha is None else alpha
    return channel(r, masks[0]) | channel(g, masks[1]) | channel(b, masks[2]) | channel(a, masks[3])


def pillow_bmp(image):
    buffer = io.BytesIO()
    image.save(buffer, "BMP")
    return buffer.getvalue()


def rle8_full(width, height):
    """RLE8 painting every pixel: per row an encoded run, an odd absolute run (padded), an encoded run
    to the row's end, then end of line; end of bitmap after the top row."""
    stream = bytearray()
    for stored in range(height):
        y = height - 1 - stored
        indices = [index_at(x, y, 40) for x in range(width)]
        stream += bytes([5, indices[0]])                     # 5 of one colour
        literal = indices[5:12]                              # 7 literal pixels (odd: padded)
        stream += bytes([0, len(literal)]) + bytes(literal) + b"\x00"
        stream += bytes([width - 12, indices[12]])           # the rest in one colour
        stream += b"\x00\x00"
    return bytes(stream + b"\x00\x01")


def rle8_expected_indices(width, height):
    rows = []
    for y in range(height):
        indices = [index_at(x, y, 40) for x in range(width)]
        rows.append([indices[0]] * 5 + indices[5:12] + [indices[12]] * (width - 12))
    return rows


def rle4_full(width, height):
    """RLE4 painting every pixel: an encoded run of two alternating nibbles (odd count), an even
    absolute run (6 nibbles, 3 bytes, padded), an encoded run to the end, end of line."""
    stream = bytearray()
    for stored in range(height):
        y = height - 1 - stored
        a, b = (y % 15) + 1, ((y * 3) % 15) + 1
        stream += bytes([5, a << 4 | b])                     # a b a b a
        literal = [(y + k) % 16 for k in range(6)]
        stream += bytes([0, 6]) + pack_indices(literal, 4) + b"\x00"
        stream += bytes([width - 11, (b << 4) | a])          # b a b a ...
        stream += b"\x00\x00"
    return bytes(stream + b"\x00\x01")


def rle8_with_skips():
    """16x8 RLE8 with a delta, early ends of line and an early end of bitmap (Tests/BMPCodecTests
    spells out the expected image)."""
    return bytes([
        16, 1, 0, 0,                                  # stored row 0 (bottom): 16 x index 1, EOL
        4, 2, 0, 2, 4, 1, 8, 3, 0, 0,                 # row 1: 4 x 2; delta right 4, up 1; row 2: 8 x 3; EOL
        0, 5, 4, 5, 6, 7, 8, 0, 20, 9, 0, 0,          # row 3: absolute 4..8 (padded); 20 x 9 cut at the row end; EOL
        3, 10, 0, 0,                                  # row 4: 3 x 10; EOL
        0, 1,                                         # end of bitmap: rows 5-7 never painted
    ])


def rle4_with_skips():
    """12x6 RLE4 with odd absolute runs, a delta and an early end of bitmap."""
    return bytes([
        0, 5, 0x12, 0x34, 0x50, 0, 7, 0x67, 0, 0,     # row 0: absolute 1 2 3 4 5 (3 bytes, padded); 7 x 6 7 alternating; EOL
        0, 2, 3, 0, 0, 3, 0x89, 0xA0, 0, 0,           # row 1: delta right 3; absolute 8 9 10; EOL
        12, 0xBC, 0, 0,                               # row 2: 12 x B C alternating; EOL
        0, 1,                                         # end of bitmap: rows 3-5 never painted
    ])


def srgb_profile():
    """Little CMS's built-in sRGB profile, its creation date (bytes 24-35) set to 2024-01-01 so the
    file is the same at every run (the profile has no MD5 ID that would cover the date)."""
    profile = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    assert profile[84:100] == bytes(16), "the profile carries an MD5 ID: the date cannot be changed"
    profile[24:36] = struct.pack(">6H", 2024, 1, 1, 0, 0, 0)
    return bytes(profile)


def bmp_files():
    files = {}
    w, h = 37, 21

    # Pillow's own writer.
    files["pillow_rgb24.bmp"] = pillow_bmp(rgb_image(w, h))
    files["pillow_bgrx32.bmp"] = pillow_bmp(rgba_image(w, h))  # 32-bit BI_RGB: the alpha bytes are padding
    files["pillow_pal8.bmp"] = pillow_bmp(rgb_image(w, h).quantize(60))
    files["pillow_gray8.bmp"] = pillow_bmp(rgb_image(w, h).convert("L"))
    files["pillow_1bit.bmp"] = pillow_bmp(rgb_image(w, h).convert("1"))

    # Palettes by hand.
    colors16 = palette_colors(16)
    files["pal4.bmp"] = bmp_file(info_header(40, w, h, 4, colors_used=16),
                                 rows_data(indexed_rows(w, h, 4, 16)), bgr_palette(colors16))
    files["pal1_colors.bmp"] = bmp_file(info_header(40, 29, 11, 1, colors_used=2),
                                        rows_data(indexed_rows(29, 11, 1, 2)),
                                        bgr_palette([(200, 30, 60), (20, 120, 240)]))
    files["pal8_short_palette.bmp"] = bmp_file(info_header(40, w, h, 8, colors_used=12),
                                               rows_data(indexed_rows(w, h, 8, 12)),
                                               bgr_palette(palette_colors(12)))
    # Indices 0-9 with a 6-entry palette: 6-9 read opaque black (Pillow and browsers agree).
    files["pal8_index_past_palette.bmp"] = bmp_file(info_header(40, 20, 6, 8, colors_used=6),
                                                    rows_data(indexed_rows(20, 6, 8, 10)),
                                                    bgr_palette(palette_colors(6)))

    # 16 bits.
    m555 = (0x7C00, 0x03E0, 0x001F, 0)
    files["rgb16_555.bmp"] = bmp_file(info_header(40, w, h, 16),
                                      rows_data(masked_rows(w, h, 2, lambda x, y: masked_value(x, y, w, h, m555))))
    m565 = (0xF800, 0x07E0, 0x001F, 0)
    files["rgb16_565_bitfields.bmp"] = bmp_file(
        info_header(40, w, h, 16, compression=3),
        rows_data(masked_rows(w, h, 2, lambda x, y: masked_value(x, y, w, h, m565))),
        after_header=struct.pack("<III", *m565[:3]))
    files["rgb16_565_v2.bmp"] = bmp_file(
        info_header(52, w, h, 16, compression=3, masks=m565),
        rows_data(masked_rows(w, h, 2, lambda x, y: masked_value(x, y, w, h, m565))))
    # 4-4-4-4 with alpha (V3 header): Pillow has no unpacker for it; a 4-bit value v reads 17 v.
    m4444 = (0x0F00, 0x00F0, 0x000F, 0xF000)
    files["argb16_4444_v3.bmp"] = bmp_file(
        info_header(56, 16, 16, 16, compression=3, masks=m4444),
        rows_data(masked_rows(16, 16, 2, lambda x, y: (15 - x) << 12 | x << 8 | y << 4 | (x + y) % 16)))

    # 32 bits with masks.
    bgra = (0xFF0000, 0xFF00, 0xFF, 0xFF000000)
    files["bgra32_v4_bitfields.bmp"] = bmp_file(
        info_header(108, w, h, 32, compression=3, masks=bgra, cs_type=0x57696E20),  # 'Win '
        rows_data(masked_rows(w, h, 4, lambda x, y: masked_value(x, y, w, h, bgra))))
    rgba = (0xFF, 0xFF00, 0xFF0000, 0xFF000000)
    rgba_rows = rows_data(masked_rows(w, h, 4, lambda x, y: masked_value(x, y, w, h, rgba)))
    files["rgba32_v5_bitfields.bmp"] = bmp_file(info_header(124, w, h, 32, compression=3, masks=rgba), rgba_rows)
    # The same pixels as BI_ALPHABITFIELDS after a 40-byte header (four masks follow it).
    files["rgba32_alphabitfields.bmp"] = bmp_file(info_header(40, w, h, 32, compression=6), rgba_rows,
                                                  after_header=struct.pack("<IIII", *rgba))
    # BI_RGB in a V5 header whose alpha mask is set: the alpha applies (as in Chromium; Pillow ignores
    # it). The same bytes as bgra32_v4_bitfields.bmp's pixels.
    files["bgra32_v5_bi_rgb_alpha_mask.bmp"] = bmp_file(
        info_header(124, w, h, 32, compression=0, masks=bgra),
        rows_data(masked_rows(w, h, 4, lambda x, y: masked_value(x, y, w, h, bgra))))
    # 5-6-5 in a V4 header that also declares an alpha mask over bits 16 bits do not have: dropped.
    files["rgb16_565_v4_alpha_past_pixel.bmp"] = bmp_file(
        info_header(108, w, h, 16, compression=3, masks=m565[:3] + (0xFF000000,)),
        rows_data(masked_rows(w, h, 2, lambda x, y: masked_value(x, y, w, h, m565))))
    # An alpha mask whose every value is 0: shown opaque, as browsers do.
    files["bgra32_all_alpha_zero.bmp"] = bmp_file(
        info_header(56, w, h, 32, compression=3, masks=bgra),
        rows_data(masked_rows(w, h, 4, lambda x, y: masked_value(x, y, w, h, bgra, alpha=0))))

    # Row order and old headers.
    files["topdown_rgb24.bmp"] = bmp_file(
        info_header(40, w, -h, 24),
        rows_data([b"".join(bytes(reversed(rgb_at(x, y, w, h))) for x in range(w)) for y in range(h)], top_down=True))
    files["topdown_bgra32_v5.bmp"] = bmp_file(
        info_header(124, w, -h, 32, compression=3, masks=bgra),
        rows_data(masked_rows(w, h, 4, lambda x, y: masked_value(x, y, w, h, bgra)), top_down=True))
    files["os2_core_rgb24.bmp"] = bmp_file(
        core_header(w, h, 24),
        rows_data([b"".join(bytes(reversed(rgb_at(x, y, w, h))) for x in range(w)) for y in range(h)]))
    # OS/2 1.x: 3-byte palette entries; 40 of them, the 256 the header implies bounded by the offset.
    files["os2_core_pal8.bmp"] = bmp_file(core_header(w, h, 8), rows_data(indexed_rows(w, h, 8, 40)),
                                          bgr_palette(palette_colors(40), entry_size=3))
    files["os2v2_pal4.bmp"] = bmp_file(info_header(64, w, h, 4, colors_used=16),
                                       rows_data(indexed_rows(w, h, 4, 16)), bgr_palette(colors16))

    # RLE.
    rle8 = rle8_full(23, 9)
    files["rle8.bmp"] = bmp_file(info_header(40, 23, 9, 8, compression=1, image_size=len(rle8), colors_used=40),
                                 rle8, bgr_palette(palette_colors(40)))
    rle4 = rle4_full(22, 7)
    files["rle4.bmp"] = bmp_file(info_header(40, 22, 7, 4, compression=2, image_size=len(rle4), colors_used=16),
                                 rle4, bgr_palette(colors16))
    skips8 = rle8_with_skips()
    files["rle8_delta_skips.bmp"] = bmp_file(
        info_header(40, 16, 8, 8, compression=1, image_size=len(skips8), colors_used=12),
        skips8, bgr_palette(palette_colors(12)))
    skips4 = rle4_with_skips()
    files["rle4_odd_runs_skips.bmp"] = bmp_file(
        info_header(40, 12, 6, 4, compression=2, image_size=len(skips4), colors_used=16),
        skips4, bgr_palette(colors16))

    # Colour spaces.
    rgb24_rows = rows_data([b"".join(bytes(reversed(rgb_at(x, y, 19, 13))) for x in range(19)) for y in range(13)])
    files["v5_srgb.bmp"] = bmp_file(info_header(124, 19, 13, 24, cs_type=0x73524742), rgb24_rows)  # 'sRGB'
    profile = srgb_profile()
    # The profile after the pixel data, as the V5 documentation places it; offset from the info header.
    profile_offset = 124 + len(rgb24_rows)
    files["v5_embedded_profile.bmp"] = bmp_file(
        info_header(124, 19, 13, 24, cs_type=0x4D424544, profile=(profile_offset, len(profile))),  # 'MBED'
        rgb24_rows, trailer=profile)
    return files


# -------------------------------------------------------------------------------------------- GIF

def lzw_uncompressed(indices, min_code_size):
    """GIF LZW data that never compresses: each pixel its own code, a clear code before the table
    would need wider codes (so the width stays min_code_size + 1), then the end code."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    width = min_code_size + 1
    per_chunk = (1 << min_code_size) - 2  # the codes a clear leaves room for at this width, less one
    codes = []
    for start in range(0, len(indices), per_chunk):
        codes.append(clear)
        codes.extend(indices[start:start + per_chunk])
    codes.append(end)
    bits, count, out = 0, 0, bytearray()
    for code in codes:
        bits |= code << count
        count += width
        while count >= 8:
            out.append(bits & 0xFF)
            bits >>= 8
            count -= 8
    if count:
        out.append(bits & 0xFF)
    blocks = bytearray([min_code_size])
    for start in range(0, len(out), 255):
        chunk = out[start:start + 255]
        blocks += bytes([len(chunk)]) + chunk
    return bytes(blocks + b"\x00")


def color_table(colors, size_bits):
    table = b"".join(bytes(c) for c in colors)
    return table + bytes(3 * (1 << size_bits) - len(table))


def gif_file(screen, global_colors=None, global_bits=0, frames=(), loop=False):
    """`frames`: dicts with left, top, width, height, indices (rows top to bottom), and optionally
    local_colors + local_bits, interlace, transparent, code_size."""
    flags = 0x80 | 0x70 | (global_bits - 1) if global_colors is not None else 0x70
    out = bytearray(b"GIF89a" + struct.pack("<HHBBB", screen[0], screen[1], flags, 0, 0))
    if global_colors is not None:
        out += color_table(global_colors, global_bits)
    if loop:
        out += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"
    for frame in frames:
        transparent = frame.get("transparent")
        out += b"\x21\xF9\x04" + bytes([1 if transparent is not None else 0, 10, 0, transparent or 0, 0])
        local = frame.get("local_colors")
        descriptor_flags = (0x80 | (frame["local_bits"] - 1) if local is not None else 0) | (0x40 if frame.get("interlace") else 0)
        out += b"\x2C" + struct.pack("<HHHHB", frame["left"], frame["top"], frame["width"], frame["height"], descriptor_flags)
        if local is not None:
            out += color_table(local, frame["local_bits"])
        rows = frame["indices"]
        if frame.get("interlace"):
            order = [r for start, step in ((0, 8), (4, 8), (2, 4), (1, 2)) for r in range(start, len(rows), step)]
            rows = [rows[r] for r in order]
        table_bits = frame["local_bits"] if local is not None else global_bits
        out += lzw_uncompressed([i for row in rows for i in row], frame.get("code_size", max(2, table_bits)))
    return bytes(out + b"\x3B")


def frame_indices(width, height, colors, seed=0):
    return [[(x // 2 + y * 3 + seed) % colors for x in range(width)] for y in range(height)]


def pillow_gif(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "GIF", **options)
    return buffer.getvalue()


def gif_files():
    files = {}
    files["still.gif"] = pillow_gif(rgb_image(48, 32).quantize(50), interlace=False)
    files["interlaced.gif"] = pillow_gif(rgb_image(40, 37).quantize(64), interlace=True)
    # Index 0 of the quantized image made transparent (the corner and some checker squares use it).
    files["transparent.gif"] = pillow_gif(rgb_image(30, 20).quantize(16), transparency=0, interlace=False)
    frames = [rgb_image(36, 24).quantize(32), Image.new("RGB", (36, 24), (250, 20, 20)).quantize(4),
              Image.new("RGB", (36, 24), (20, 20, 250)).quantize(4)]
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0, interlace=False)
    files["animated.gif"] = buffer.getvalue()

    colors8 = palette_colors(8)
    wrong = [(255, 255, 255), (255, 0, 255), (0, 255, 255), (128, 128, 128)]
    # A local colour table (8 entries) beside a global one of other colours: the local one applies.
    files["local_color_table.gif"] = gif_file(
        (20, 12), global_colors=wrong, global_bits=2,
        frames=[dict(left=0, top=0, width=20, height=12, indices=frame_indices(20, 12, 8),
                     local_colors=colors8, local_bits=3)])
    # A 16x10 frame at (7, 5) on a 40x30 screen; index 3 transparent.
    files["offset_transparent.gif"] = gif_file(
        (40, 30), global_colors=colors8, global_bits=3,
        frames=[dict(left=7, top=5, width=16, height=10, indices=frame_indices(16, 10, 8), transparent=3)])
    # The same without a transparent index: Pillow paints the uncovered screen with index 0, browsers
    # (and thumbd) leave it transparent.
    files["offset_opaque.gif"] = gif_file(
        (40, 30), global_colors=colors8, global_bits=3,
        frames=[dict(left=7, top=5, width=16, height=10, indices=frame_indices(16, 10, 8))])
    # A 16x12 frame at (10, 4) on a 20x10 screen: the canvas grows to 26x16.
    files["frame_past_screen.gif"] = gif_file(
        (20, 10), global_colors=colors8, global_bits=3,
        frames=[dict(left=10, top=4, width=16, height=12, indices=frame_indices(16, 12, 8), transparent=5)])
    # Interlaced, with a local table, at an offset, with a transparent index, then a second frame.
    files["interlaced_local_offset_animated.gif"] = gif_file(
        (30, 28), global_colors=wrong, global_bits=2, loop=True,
        frames=[dict(left=3, top=2, width=21, height=23, indices=frame_indices(21, 23, 16), interlace=True,
                     local_colors=palette_colors(16), local_bits=4, transparent=7),
                dict(left=0, top=0, width=30, height=28, indices=frame_indices(30, 28, 4, seed=1))])
    # A 4-entry global table and 3-bit LZW codes using indices 0-7: 4-7 read opaque black.
    files["index_past_table.gif"] = gif_file(
        (16, 8), global_colors=palette_colors(4), global_bits=2,
        frames=[dict(left=0, top=0, width=16, height=8, indices=frame_indices(16, 8, 8), code_size=3)])
    # Neither a global nor a local colour table: corrupt (Pillow reads the indices as grey).
    files["no_color_table.gif"] = gif_file(
        (8, 8), frames=[dict(left=0, top=0, width=8, height=8, indices=frame_indices(8, 8, 4), code_size=2)])
    # A logical screen of 0x0: the frame sets the canvas.
    files["zero_screen.gif"] = gif_file(
        (0, 0), global_colors=colors8, global_bits=3,
        frames=[dict(left=0, top=0, width=12, height=9, indices=frame_indices(12, 9, 8))])
    return files


def main():
    for folder, files in ((BMP_DIR, bmp_files()), (GIF_DIR, gif_files())):
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in sorted(files.items()):
            (folder / name).write_bytes(data)
            print(f"{folder.name}/{name}\t{len(data)} bytes")


if __name__ == "__main__":
    main()
