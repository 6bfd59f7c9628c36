#!/usr/bin/env python3
"""Prints 'FORMAT WIDTHxHEIGHT' of a JPEG, PNG or WebP file read from the path given, with nothing but
Python's standard library (the package tests run where no imaging library is installed)."""
import struct
import sys

data = open(sys.argv[1], "rb").read()
if data[:8] == b"\x89PNG\r\n\x1a\n":
    width, height = struct.unpack(">II", data[16:24])
    print(f"png {width}x{height}")
elif data[:2] == b"\xff\xd8":
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            print(f"jpeg {width}x{height}")
            break
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        i += 2 + struct.unpack(">H", data[i + 2:i + 4])[0]
    else:
        sys.exit("image-size: a JPEG without a frame header")
elif data[:4] == b"RIFF" and data[8:12] == b"WEBP" and data[12:16] == b"VP8 ":
    width, height = struct.unpack("<HH", data[26:30])
    print(f"webp {width & 0x3FFF}x{height & 0x3FFF}")
else:
    sys.exit(f"image-size: not a JPEG, PNG or lossy WebP ({data[:12]!r})")
