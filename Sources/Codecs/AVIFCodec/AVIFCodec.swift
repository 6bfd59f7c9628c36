import ImageCore

/// AVIF through the system libavif (0.11.1 on Debian 12; dav1d decodes, aom encodes): still images
/// 8, 10 and 12 bits deep, with or without alpha, grids, and the first frame of image sequences.
///
/// Every entry point checks the ISO-BMFF boxes first (AVIFContainer), so a file cut short is
/// refused with `truncated_image` instead of being decoded from partial data, and checks the size
/// libavif parsed from the container against `DecodeLimits` before any AV1 data is decoded.
/// libavif and its AV1 codecs run single-threaded: thumbd runs one image per core on its own pool.
public enum AVIFCodec {
    /// `ImageInfo.format` for AVIF.
    public static let imageFormat = ImageFormat.avif

    /// True when the first bytes are an ISO-BMFF `ftyp` box whose major or compatible brands include
    /// `avif` or `avis`. A HEIC (`heic`, `mif1` without `avif`) is not AVIF.
    public static func sniff(_ data: [UInt8]) -> Bool {
        SniffedFormat.isAVIF(data)
    }

    /// Header facts: stored size (before irot/imir), alpha, orientation from irot/imir, whether it
    /// is an image sequence. The size is checked against `limits.maxPixels`.
    public static func readInfo(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> ImageInfo {
        try data.withUnsafeBufferPointer { buffer throws(ImageError) in
            try AVIFDecoder.readInfo(buffer, limits: limits)
        }
    }

    /// Decodes to 8-bit RGBA, not premultiplied (10- and 12-bit sources are reduced to 8 bits),
    /// after checking `limits` from the header: `maxPixels` against the stored size, and
    /// `maxDecodeBytes` against the RGBA output plus twice the YUV and alpha planes (the AV1
    /// decoder's frame and libavif's copy). Pixels come back in stored orientation, with
    /// `info.orientation` the EXIF orientation that irot/imir describe. `color` is the ICC profile
    /// when the file has one, `.sRGB` for nclx BT.709 primaries with the sRGB transfer, else
    /// `.unspecified` (other CICP colour spaces are not described yet, and read as sRGB).
    ///
    /// Image sequences (`avis`) yield their first frame, with `info.isAnimated` set when there are
    /// more. AV1 has no reduced-size decoding, so `scale` is accepted and ignored: the image is
    /// always decoded at full size (scale 1). A clean-aperture (`clap`) crop is not applied.
    public static func decode(_ data: [UInt8], limits: DecodeLimits, scale: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        try data.withUnsafeBufferPointer { buffer throws(ImageError) in
            try AVIFDecoder.decode(buffer, limits: limits)
        }
    }

    /// The embedded ICC profile bytes (a `colr` box of type `prof` or `rICC`), or nil when there is
    /// none or the file cannot be parsed.
    public static func iccProfile(in data: [UInt8]) -> [UInt8]? {
        data.withUnsafeBufferPointer { AVIFDecoder.iccProfile($0) }
    }

    /// Encodes 8-bit RGBA as a still AVIF: 4:2:0 YUV, with an alpha item only when `image.hasAlpha`
    /// (and some pixel is not opaque), no metadata.
    ///
    /// `quality` 1...100 maps to one AV1 quantizer for colour and alpha, `((100 - quality) * 63 + 50)
    /// / 100` (libavif 1.x's mapping for its `quality` setting): 82 -> 11, 50 -> 32, 1 -> 62.
    /// `speed` is libavif's 0 (slowest, smallest) ... 10 (fastest), AVIF_SPEED_*; with aom, libavif
    /// turns it into cpu-used and related settings.
    public static func encode(_ image: PixelBuffer, quality: Int, speed: Int) throws(ImageError) -> [UInt8] {
        try AVIFEncoder.encode(image, quality: quality, speed: speed)
    }
}
