#!/usr/bin/env python3
"""Times thumbor's smart crop (its OpenCV feature detector) against its centre crop.

`thumbd-bench crop` runs this as its thumbor peer, with the interpreter of `make crop-deps`'s
virtual environment (thumbor, opencv-python-headless, Pillow). Each file is made with thumbor's own
Transformer and PIL engine: thumbor crops to the box's shape (centred, or around the detected
features with smart), then scales to exactly WIDTH x HEIGHT, and saves a JPEG at quality 82.

Usage: thumbor_crop.py WIDTH HEIGHT OUT_DIR ROUNDS FILE...

  WIDTH, HEIGHT  the thumbnail's size in pixels
  OUT_DIR        folder for the first round's outputs, named STEM.center.jpg and STEM.smart.jpg
  ROUNDS         timed passes over the files (each pass: every file centred, then every file smart)
  FILE...        the JPEGs to crop

Prints one line per file, mode and round: `mode<TAB>round<TAB>milliseconds<TAB>output`. One untimed
call comes first, so imports and OpenCV's first call are not counted.
"""
import asyncio
import os
import sys
import time

from thumbor.config import Config
from thumbor.context import Context, RequestParameters, ServerParameters
from thumbor.importer import Importer
from thumbor.transformer import Transformer


def context_for(smart, width, height):
    config = Config()
    config.ENGINE = "thumbor.engines.pil"
    config.DETECTORS = ["thumbor.detectors.feature_detector"] if smart else []
    config.STORAGE = "thumbor.storages.no_storage"
    importer = Importer(config)
    importer.import_modules()
    server = ServerParameters(8888, "127.0.0.1", "thumbor.conf", None, "error", None)
    context = Context(server=server, config=config, importer=importer)
    context.request = RequestParameters(width=width, height=height, smart=smart, quality=82)
    return context


async def thumbnail(data, smart, width, height):
    context = context_for(smart, width, height)
    started = time.perf_counter()
    engine = context.modules.engine
    engine.load(data, ".jpg")
    context.request.engine = engine
    await Transformer(context).transform()
    result = engine.read(".jpg", 82)
    return time.perf_counter() - started, result


async def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    width, height, out_dir, rounds = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    files = sys.argv[5:]
    inputs = [(path, open(path, "rb").read()) for path in files]
    await thumbnail(inputs[0][1], True, width, height)  # imports and OpenCV's first call, untimed
    for round_index in range(rounds):
        for mode in ("center", "smart"):
            for path, data in inputs:
                seconds, result = await thumbnail(data, mode == "smart", width, height)
                name = os.path.splitext(os.path.basename(path))[0]
                out = os.path.join(out_dir, f"{name}.{mode}.jpg")
                if round_index == 0:
                    with open(out, "wb") as f:
                        f.write(result)
                print(f"{mode}\t{round_index}\t{seconds * 1000:.3f}\t{out}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
