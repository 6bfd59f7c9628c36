import ImageCore

/// HEIC (HEVC in HEIF: iPhone photos) through the system libheif (1.15.1 on Debian 12, with libde265
/// decoding HEVC): still images, grids of tiles, alpha, 8 to 12 bits. Read only: thumbd never writes HEIC.
///
/// Every entry point first checks the file itself: the top-level ISO-BMFF boxes are whole
/// (`truncated_image` otherwise), the brands are HEIC's, and every grid or overlay canvas that the
/// item data declares is within `DecodeLimits` (libheif allocates that canvas, whatever the ispe says).
/// Then libheif parses the boxes, with its side limit lowered to the pixel limit, and the coded and
/// displayed sizes are checked before any HEVC data is decoded.
///
/// Orientation: libheif applies irot, imir and clap while decoding, as HEIF requires; an Exif item's
/// Orientation tag is ignored (iPhones write both, saying the same; HEIF makes irot/imir the truth).
/// So the pixels come back upright, `info.orientation` is always `.up`, and `info.width` and
/// `info.height` are the displayed size. Orientation is applied exactly once, by libheif.
public enum HEIFCodec {
    /// `ImageInfo.format` for HEIC.
    public static let imageFormat = ImageFormat.heic

    /// True for an ISO-BMFF `ftyp` with a HEIC brand, or only mif1/msf1, and no AVIF brand
    /// (`SniffedFormat.isHEIC`): AVIF brands go to libavif.
    public static func sniff(_ data: [UInt8]) -> Bool {
        SniffedFormat.isHEIC(data)
    }

    /// libheif as loaded at run time.
    public static var libraryVersion: String { LibHEIF.version }

    /// Header facts (displayed size, alpha; orientation `.up`, see above), with the limits checked.
    public static func readInfo(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> ImageInfo {
        try HEIFDecoder.readInfo(data, limits: limits)
    }

    /// Decodes to 8-bit RGBA, upright, after checking `limits` from the header (`maxDecodeBytes`
    /// against `HEIFHeader.decodeBytes`). `color` is the ICC profile when the file has one, `.sRGB`
    /// for nclx BT.709 primaries with the sRGB transfer, else `.unspecified`. HEVC has no
    /// reduced-size decoding: `scale` is accepted and ignored, the image is decoded at full size.
    public static func decode(_ data: [UInt8], limits: DecodeLimits, scale: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        try HEIFDecoder.decode(data, limits: limits)
    }

    /// What the file says of its colours, from the headers (no pixels decoded).
    public static func embeddedColor(in data: [UInt8]) throws(ImageError) -> EmbeddedColor {
        try HEIFDecoder.embeddedColor(data)
    }
}
