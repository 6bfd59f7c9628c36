#!/usr/bin/env python3
"""Records what an independent decoder (Pillow, with its own bundled libwebp) makes of our WebP
test files, for Tests/WebPCodecTests to compare against. Run once; commit the outputs.

Writes TestImages/webp-reference.tsv with one row per decodable file:
    root (corpora | testimages), file (relative to root/webp), kind (lossless | lossy | animated),
    width, height, rgba_sha256 (sha256 of the first frame as RGBA8, rows top to bottom),
    pillow_alpha (kept | dropped: Pillow opens files whose header has no alpha flag as RGB, so
    their digest has alpha 255 everywhere; the test forces alpha to 255 before hashing those).
For the lossy and animated files named in TOLERANCE_FILES it also stores Pillow's decoded RGBA as
a *lossless* WebP in TestImages/webp/reference/ (exact=True, so every byte survives): the test
decodes it (checking its sha256 first) and compares the codec's lossy decode with a tolerance.

Usage: python3 Scripts/webp_reference.py [corpora folder, default ../shared/corpora]
"""
import csv
import hashlib
import io
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
TEST_IMAGES = ROOT / "TestImages"
REFERENCE_DIR = TEST_IMAGES / "webp" / "reference"

# (root, file) pairs whose Pillow pixels are stored for the tolerance comparison.
TOLERANCE_FILES = [
    ("corpora", "lossy/test.webp"),
    ("corpora", "lossy/vp80-00-comprehensive-006.webp"),
    ("corpora", "lossy/small_31x13.webp"),
    ("corpora", "alpha/lossy_alpha4.webp"),
    ("corpora", "exif/pillow_hopper_orientation_6.webp"),
    ("corpora", "animated/iw_random_lossy.webp"),
    ("testimages", "lossy_rgb_48x32.webp"),
    ("testimages", "lossy_alpha_40x30.webp"),
]


def first_frame_rgba(path):
    with Image.open(path) as image:
        image.seek(0)
        image.load()
        return image.convert("RGBA"), getattr(image, "is_animated", False), "A" in image.mode


def reference_name(root, file):
    return f"{root}__{file.removesuffix('.webp').replace('/', '__')}"


def main():
    corpora = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "corpora"
    rows = []
    sources = []
    manifest = corpora / "webp" / "MANIFEST.tsv"
    with manifest.open() as handle:
        for entry in csv.DictReader(handle, delimiter="\t"):
            if entry["expected"] == "decode":
                sources.append(("corpora", entry["file"], corpora / "webp" / entry["file"], entry["detail"]))
    for path in sorted((TEST_IMAGES / "webp").glob("*.webp")):
        detail = "lossless" if path.name.startswith("lossless") else "lossy"
        sources.append(("testimages", path.name, path, detail))

    REFERENCE_DIR.mkdir(parents=True, exist_ok=True)
    for root, file, path, detail in sources:
        rgba, animated, has_alpha = first_frame_rgba(path)
        if animated or "animated" in detail:
            kind = "animated"
        elif detail.startswith("lossless"):
            kind = "lossless"
        else:
            kind = "lossy"
        digest = hashlib.sha256(rgba.tobytes()).hexdigest()
        rows.append((root, file, kind, rgba.width, rgba.height, digest, "kept" if has_alpha else "dropped"))
        if (root, file) in TOLERANCE_FILES:
            buffer = io.BytesIO()
            rgba.save(buffer, "WEBP", lossless=True, exact=True, quality=100, method=6)
            out = REFERENCE_DIR / (reference_name(root, file) + ".webp")
            out.write_bytes(buffer.getvalue())
            # The stored reference must decode back to exactly these pixels.
            with Image.open(out) as check:
                assert hashlib.sha256(check.convert("RGBA").tobytes()).hexdigest() == digest, out

    with (TEST_IMAGES / "webp-reference.tsv").open("w") as handle:
        handle.write("root\tfile\tkind\twidth\theight\trgba_sha256\tpillow_alpha\n")
        for row in rows:
            handle.write("\t".join(str(field) for field in row) + "\n")
    print(f"{len(rows)} rows, {len(TOLERANCE_FILES)} tolerance references")


if __name__ == "__main__":
    main()
