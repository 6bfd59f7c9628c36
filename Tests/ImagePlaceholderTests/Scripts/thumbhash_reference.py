#!/usr/bin/env python3
"""The independent side of ImagePlaceholder's cross-check: the thumbhash-python package (PyPI
name thumbhash-python, import name thumbhash), run on the same pixels as the Swift encoder.

thumbhash-python rounds with Python's round(), which sends exact halves to the even neighbour
(2.5 -> 2), where the reference encoders (JavaScript Math.round, Rust round) and ours send them
up (2.5 -> 3). So every hash is computed twice: as the package ships it, and with its round()
replaced by round-half-up; the second is the format's reference behaviour. The number of times
the two roundings disagreed is printed too, so the Swift test knows when the stock hash may differ.

Usage:
  thumbhash_reference.py version
      the installed thumbhash-python version
  thumbhash_reference.py encode RGBA_FILE WIDTH HEIGHT
      three lines: stock hash (hex), half-up hash (hex), number of rounding disagreements
  thumbhash_reference.py decode HASH_HEX
      one line: WIDTH HEIGHT RGBA_HEX, the preview sized as the reference decoders size it

Exit status 3 means thumbhash-python is not installed.
"""

import math
import sys

try:
    import thumbhash.encode as th_encode
    import thumbhash.hash as th_hash
    import thumbhash.decode as th_decode
except ImportError as error:
    print(f"thumbhash-python is not importable ({error}); install it with: "
          "python3 -m pip install thumbhash-python", file=sys.stderr)
    sys.exit(3)


def half_up(value):
    # floor(value + 0.5) would misround 0.49999999999999994; comparing the exact remainder does not.
    whole = math.floor(value)
    return int(whole + 1 if value - whole >= 0.5 else whole)


class RoundingSwap:
    """Replaces the package's round() for the duration, counting where the result changes."""

    def __init__(self):
        self.disagreements = 0

    def _round(self, value, *digits):
        if digits:
            return round(value, *digits)
        ours = half_up(value)
        if ours != round(value):
            self.disagreements += 1
        return ours

    def __enter__(self):
        for module in (th_encode, th_hash, th_decode):
            module.round = self._round
        return self

    def __exit__(self, *exc):
        for module in (th_encode, th_hash, th_decode):
            del module.round
        return False


def encode(path, width, height):
    with open(path, "rb") as file:
        rgba = list(file.read())
    stock = th_encode.rgba_to_thumbhash(width, height, rgba)
    with RoundingSwap() as swap:
        reference = th_encode.rgba_to_thumbhash(width, height, rgba)
    print(stock.hex())
    print(reference.hex())
    print(swap.disagreements)


def reference_size(self, base_size):
    # The package sizes its preview from the luma counts after widening them to 3, so 100x13
    # comes back 32x14; the reference decoders use the counts as stored (7:1, so 32x5).
    limit = 5 if self.has_alpha else 7
    lx = limit if self.is_landscape else self.l_count
    ly = self.l_count if self.is_landscape else limit
    ratio = lx / ly
    if ratio > 1.0:
        return (base_size, half_up(base_size / ratio))
    return (half_up(base_size * ratio), base_size)


def decode(hash_hex):
    th_hash.Hash.size = reference_size
    width, height, rgba = th_decode.thumbhash_to_rgba(bytes.fromhex(hash_hex))
    print(width, height, bytes(rgba).hex())


def main(argv):
    if len(argv) >= 2 and argv[1] == "version":
        from importlib.metadata import version
        print(version("thumbhash-python"))
    elif len(argv) == 5 and argv[1] == "encode":
        encode(argv[2], int(argv[3]), int(argv[4]))
    elif len(argv) == 3 and argv[1] == "decode":
        decode(argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
