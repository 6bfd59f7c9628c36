import ImageCore

/// TIFF through the system libtiff (4.5.0 on Debian 12): the first page (directory) of a classic
/// or BigTIFF file, in either byte order. Read only: thumbd never writes TIFF.
///
/// Read: 1-, 2-, 4-, 8- and 16-bit grey (MinIsBlack and MinIsWhite, with or without alpha) and
/// palette images; 8- and 16-bit RGB and RGBA (associated or unassociated alpha) and CMYK;
/// 8-bit YCbCr, JPEG-compressed or not, subsampled or not; strips or tiles, samples contiguous or
/// in separate planes; every compression libtiff was built with (none, LZW, Deflate, PackBits,
/// JPEG, CCITT fax, ...). Refused with `unsupported_format`: floating-point and signed samples,
/// CIE L*a*b*, LogLuv, raw camera data, separated inks other than CMYK, other depths.
///
/// Every entry point first reads the header by hand: the signature must be TIFF's and the first
/// directory must lie within the data (`truncated_image` otherwise). libtiff then reads that
/// directory, with every single allocation capped at `maxDecodeBytes`; the size is checked against
/// `DecodeLimits` before any pixel memory exists, and so is the strip or tile size. libtiff prints
/// nothing: its messages go into the `ImageError`.
///
/// Orientation: the Orientation tag (numbered as EXIF's) is reported in `info.orientation`, and the
/// pixels come back as stored, row 0 first; thumbd applies the orientation once, later.
public enum TIFFCodec {
    /// `ImageInfo.format` for TIFF.
    public static let imageFormat = ImageFormat.tiff

    /// True for data starting with a TIFF ("II*\0", "MM\0*") or BigTIFF ("II+\0", "MM\0+") signature.
    public static func sniff(_ data: [UInt8]) -> Bool {
        TIFFHeader.sniff(data)
    }

    /// libtiff as loaded at run time ("4.5.0").
    public static var libraryVersion: String { LibTIFF.version }

    /// Header facts of the first page (stored size, alpha, orientation), with the limits checked.
    public static func readInfo(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> ImageInfo {
        try TIFFDecoder.readInfo(data, limits: limits)
    }

    /// Decodes the first page to 8-bit pixels as stored, after checking `limits` (the pixel count,
    /// and the output with libtiff's strip or tile buffers against `maxDecodeBytes`).
    ///
    /// RGBA, not premultiplied (associated alpha is divided out), 16-bit samples rounded to 8 bits;
    /// CMYK comes back as its inks, `samples: .cmyk(inverted: false)`, for `ColorManagement` to
    /// convert with the file's profile (or naively without one); CMYK's alpha, if any, is flattened
    /// onto the paper. `color` is the ICC profile when the file has one, else `.unspecified`.
    /// TIFF has no reduced-size decoding: `scale` is accepted and ignored.
    public static func decode(_ data: [UInt8], limits: DecodeLimits, scale: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        try TIFFDecoder.decode(data, limits: limits)
    }

    /// What the first page says of its colours (its ICC profile), from the directory alone.
    public static func embeddedColor(in data: [UInt8]) throws(ImageError) -> EmbeddedColor {
        try TIFFDecoder.embeddedColor(data)
    }
}
