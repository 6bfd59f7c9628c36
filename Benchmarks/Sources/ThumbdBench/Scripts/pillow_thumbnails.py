#!/usr/bin/env python3
"""Square thumbnails with Pillow, made the usual way, timed inside Python.

`thumbd-bench thumbnails` runs this as its Pillow peer. Per file: open, draft('RGB', (SIZE, SIZE))
(JPEG DCT scaling to at least SIZE x SIZE), EXIF transpose, the centred square resized to
SIZE x SIZE with LANCZOS, saved as a JPEG at QUALITY or as a PNG (compress level 1, for the SSIM
comparison). Only the loop is timed, so interpreter start-up and imports are not counted.

Usage: pillow_thumbnails.py SIZE OUT_DIR EXT ROUNDS QUALITY FILE...

  SIZE     the square's side in pixels
  OUT_DIR  folder for the outputs, named like vipsthumbnail's %s: the input's name without its
           extension, then .jpg or .png
  EXT      jpg or png
  ROUNDS   timed passes over the files, after one untimed pass that also records failures
           (0: the untimed pass only)
  QUALITY  JPEG quality

Prints one JSON object on stdout: {"pillow", "python", "round_seconds": [s per round],
"per_file_ms": [[ms per file] per round], "errors": {file index: message}}, or {"error": ...} and
exit status 3 when Pillow cannot be imported.
"""
import json
import os
import sys
import time


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    size, out_dir, ext, rounds, quality = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    files = sys.argv[6:]
    try:
        import PIL
        from PIL import Image, ImageOps
    except Exception as e:
        print(json.dumps({"error": "import PIL failed: %s" % e}))
        return 3
    lanczos = Image.Resampling.LANCZOS if hasattr(Image, "Resampling") else Image.LANCZOS

    def thumbnail(path, out):
        with Image.open(path) as im:
            im.draft("RGB", (size, size))
            if im.getexif().get(0x0112, 1) != 1:
                im = ImageOps.exif_transpose(im)
            if im.mode not in ("RGB", "RGBA", "L"):
                alpha = "A" in im.mode or "transparency" in im.info
                im = im.convert("RGBA" if alpha else "RGB")
            w, h = im.size
            side = min(w, h)
            left, top = (w - side) / 2.0, (h - side) / 2.0
            thumb = im.resize((size, size), lanczos, box=(left, top, left + side, top + side))
            if ext == "jpg":
                if thumb.mode not in ("RGB", "L"):
                    thumb = thumb.convert("RGB")
                thumb.save(out, "JPEG", quality=quality)
            else:
                thumb.save(out, "PNG", compress_level=1)

    outs = [os.path.join(out_dir, os.path.splitext(os.path.basename(f))[0] + "." + ext) for f in files]
    errors = {}

    def one_round(record_errors):
        times = []
        for i, (path, out) in enumerate(zip(files, outs)):
            start = time.perf_counter()
            try:
                thumbnail(path, out)
            except Exception as e:
                if record_errors:
                    errors[str(i)] = "%s: %s" % (type(e).__name__, e)
            times.append((time.perf_counter() - start) * 1000.0)
        return times

    one_round(True)  # warm-up, and the record of failures
    round_seconds, per_file_ms = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        times = one_round(False)
        round_seconds.append(time.perf_counter() - start)
        per_file_ms.append(times)
    print(json.dumps({"pillow": PIL.__version__, "python": sys.version.split()[0], "round_seconds": round_seconds,
                      "per_file_ms": per_file_ms, "errors": errors}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
