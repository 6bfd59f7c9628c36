#!/usr/bin/env python3
"""A photo origin on 127.0.0.1 for the package tests, with nothing but Python's standard library.

    test-origin.py PORT_FILE       serves /photo.png (1600x1200, opaque) until killed; writes its port

The photo is drawn here (a gradient with a dark block off-centre), so the tests need no image file
and no imaging library on a clean machine."""
import http.server
import struct
import sys
import zlib

WIDTH, HEIGHT = 1600, 1200


def photo_png() -> bytes:
    rows = []
    for y in range(HEIGHT):
        row = bytearray([0])  # filter: none
        for x in range(WIDTH):
            inside = 1000 <= x < 1300 and 300 <= y < 800
            row += bytes((40, 40, 60)) if inside else bytes((x * 255 // WIDTH, y * 255 // HEIGHT, 160))
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b"")


PHOTO = photo_png()


class Origin(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.split("?")[0] != "/photo.png":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(PHOTO)))
        self.end_headers()
        self.wfile.write(PHOTO)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Origin)
with open(sys.argv[1], "w") as port_file:
    port_file.write(str(server.server_address[1]))
server.serve_forever()
