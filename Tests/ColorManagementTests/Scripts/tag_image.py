"""Makes a colour-managed test image and its reference, with Pillow's ImageCms (Little CMS) as the
independent implementation.

usage: tag_image.py SOURCE PROFILE FORMAT TAGGED REFERENCE
  SOURCE     an sRGB image file, or "chart" for a synthetic one (saturated hues, ramps, noise)
  PROFILE    the ICC profile to tag with (RGB or CMYK)
  FORMAT     jpeg, png or webp
  TAGGED     written: SOURCE converted from sRGB into PROFILE's space, with PROFILE embedded
  REFERENCE  written: TAGGED as Pillow decodes it, converted back to sRGB (untagged PNG)
Both conversions: relative colorimetric with black-point compensation, as thumbd converts.
Prints one JSON line: the tagged file's mode, size and whether Pillow read the profile back.
"""
import io
import json
import random
import sys

from PIL import Image, ImageCms


def chart():
    width, height = 240, 180
    image = Image.new("RGB", (width, height))
    pixels = image.load()
    rng = random.Random(7)
    import colorsys
    for y in range(height):
        for x in range(width):
            hue = x / width
            band = y * 6 // height
            saturation = [1.0, 0.85, 0.6, 0.35, 1.0, 0.0][band]
            value = [1.0, 0.9, 0.8, 0.95, 0.55, (x / (width - 1))][band]
            r, g, b = colorsys.hsv_to_rgb(hue, saturation, value)
            noise = rng.randint(-3, 3)
            pixels[x, y] = tuple(max(0, min(255, int(round(c * 255)) + noise)) for c in (r, g, b))
    return image


def main():
    source, profile_path, fmt, tagged_path, reference_path = sys.argv[1:6]
    image = chart() if source == "chart" else Image.open(source).convert("RGB")
    with open(profile_path, "rb") as f:
        icc = f.read()
    target = ImageCms.ImageCmsProfile(io.BytesIO(icc))
    srgb = ImageCms.createProfile("sRGB")
    space = target.profile.xcolor_space.strip()
    mode = "CMYK" if space == "CMYK" else "RGB"
    intent = ImageCms.Intent.RELATIVE_COLORIMETRIC
    flags = ImageCms.Flags.BLACKPOINTCOMPENSATION
    tagged = ImageCms.profileToProfile(image, srgb, target, renderingIntent=intent, outputMode=mode, flags=flags)
    if fmt == "jpeg":
        tagged.save(tagged_path, "JPEG", quality=95, subsampling=0, icc_profile=icc)
    elif fmt == "png":
        tagged.save(tagged_path, "PNG", icc_profile=icc)
    elif fmt == "webp":
        tagged.save(tagged_path, "WEBP", lossless=True, icc_profile=icc)
    else:
        raise SystemExit("unknown format " + fmt)

    reread = Image.open(tagged_path)
    reread.load()
    embedded = reread.info.get("icc_profile")
    reference = ImageCms.profileToProfile(reread, ImageCms.ImageCmsProfile(io.BytesIO(embedded)), srgb,
                                          renderingIntent=intent, outputMode="RGB", flags=flags)
    reference.save(reference_path, "PNG")
    print(json.dumps({"mode": reread.mode, "size": list(reread.size), "profileReadBack": embedded == icc}))


if __name__ == "__main__":
    main()
