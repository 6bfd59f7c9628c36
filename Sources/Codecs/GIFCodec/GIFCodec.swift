import ImageCore

/// GIF through the system giflib (5.2 on Debian 12): the first frame only, composited on its canvas.
/// Read only: thumbd never writes GIF.
///
/// giflib reads the file from memory (DGifOpen with an input function over the caller's bytes) and
/// is walked record by record: extensions up to the first image descriptor (its Graphics Control
/// Extension gives the transparent index), the first frame decoded a row at a time (interlaced rows
/// put in place), then only a scan of record types for a second image descriptor (`isAnimated`).
/// Later frames are never decoded.
///
/// The canvas is the logical screen, grown when the first frame reaches past it (see `GIFFirstFrame`).
/// Pixels outside the frame, and pixels of the transparent index, are transparent; the background
/// colour is ignored, as browsers do. The local colour table wins over the global one; a frame with
/// neither is corrupt. The screen is checked against `DecodeLimits` from the file's first 13 bytes
/// before giflib opens it, then the frame and the canvas before any pixel memory exists.
///
/// Orientation is always `.up`; GIF carries no colour information browsers use, so colours are
/// `.unspecified` (sRGB).
public enum GIFCodec {
    /// `ImageInfo.format` for GIF.
    public static let imageFormat = ImageFormat.gif

    /// True for a file that starts with `GIF87a` or `GIF89a`.
    public static func sniff(_ data: [UInt8]) -> Bool {
        GIFScreen.signatures.contains(Array(data.prefix(6)))
    }

    /// giflib's version (GIFLIB_MAJOR.MINOR.RELEASE of the headers thumbd was built with: giflib has no
    /// run-time version call).
    public static var libraryVersion: String { GIFLibFile.version }

    /// Header facts: the canvas size, whether it can hold transparency (a transparent index, or canvas
    /// the first frame leaves uncovered), and whether a second frame follows. No pixel is decoded; the
    /// first frame's LZW data is skipped block by block.
    public static func readInfo(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> ImageInfo {
        try GIFDecoder.readInfo(data, limits: limits)
    }

    /// The first frame as 8-bit RGBA (not premultiplied) on the canvas, after the limits are checked.
    /// `hasAlpha` says whether any pixel is transparent. GIF has no reduced-size decoding: `scale` is
    /// accepted and ignored.
    public static func decode(_ data: [UInt8], limits: DecodeLimits, scale: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        try GIFDecoder.decode(data, limits: limits)
    }

    /// Always `.unspecified` for a file whose header is a GIF's: GIF has no colour space of its own,
    /// and the rare ICCRGBG1 application extension (an ICC profile) is ignored, as browsers ignore it.
    public static func embeddedColor(in data: [UInt8]) throws(ImageError) -> EmbeddedColor {
        _ = try GIFScreen(data, limits: DecodeLimits(maxPixels: Int.max, maxDecodeBytes: Int.max))
        return .unspecified
    }
}
