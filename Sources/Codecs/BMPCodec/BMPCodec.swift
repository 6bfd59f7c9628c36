import ImageCore

/// Windows and OS/2 bitmaps, read by a strict reader of thumbd's own: no Debian library decodes BMP
/// by itself (the ones that do are whole toolkits). Read only: thumbd never writes BMP.
///
/// Headers: BITMAPCOREHEADER (OS/2 1.x, 12 bytes), BITMAPINFOHEADER (40), V2 and V3 (52, 56),
/// OS/2 2.x (64), V4 (108) and V5 (124). Pixels: 1, 4 and 8 bits through a palette; 16 bits (5-5-5,
/// or any masks with BI_BITFIELDS); 24 bits; 32 bits (B G R and a fourth byte that is padding, unless
/// an alpha mask says otherwise: BI_BITFIELDS / BI_ALPHABITFIELDS masks, or a V3/V4/V5 header's alpha
/// mask, which Chromium honours for BI_RGB too. Alpha is real unless every pixel's is 0, which
/// browsers take for a writer that left the byte empty and show opaque); RLE8 and RLE4, whose
/// pixels the stream never paints stay transparent, as browsers show them. BI_JPEG and BI_PNG (printer
/// formats no browser shows) and the OS/2 Huffman and RLE24 compressions are `unsupported_format`.
///
/// Sizes are checked as strictly as the PNG path: the dimensions against `DecodeLimits` before any
/// pixel memory exists, the pixel data offset inside the file, and the whole pixel array (rows padded
/// to 4 bytes) inside the file, so a file cut short is `truncated_image`, never a partial image.
///
/// Orientation is always `.up` (bottom-up and top-down rows are both stored upright).
public enum BMPCodec {
    /// `ImageInfo.format` for BMP.
    public static let imageFormat = ImageFormat.bmp

    /// True for a file that starts with the Windows bitmap signature `BM`.
    public static func sniff(_ data: [UInt8]) -> Bool {
        data.count >= 2 && data[0] == 0x42 && data[1] == 0x4D
    }

    /// Header facts with the limits checked. `hasAlpha` says the file *can* hold transparency (an alpha
    /// mask, or RLE, whose unpainted pixels are transparent); `decode` says whether it does.
    public static func readInfo(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> ImageInfo {
        try BMPHeader(data, limits: limits).info
    }

    /// Decodes to 8-bit RGBA (not premultiplied), rows top to bottom. `limits` are checked from the
    /// header (`maxDecodeBytes` against the RGBA output, the only buffer the decode allocates) before
    /// any pixel memory exists. BMP has no reduced-size decoding: `scale` is accepted and ignored.
    public static func decode(_ data: [UInt8], limits: DecodeLimits, scale: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        let header = try BMPHeader(data, limits: limits)
        try limits.check(decodeBytes: header.decodeBytes, what: "a \(header.width)x\(header.height) BMP")
        let pixels = try BMPDecoder.decode(data, header)
        var info = header.info
        info.hasAlpha = pixels.hasAlpha
        return DecodedImage(info: info, pixels: pixels, color: header.color)
    }

    /// What the file says of its colours: a V4/V5 header's colour space `sRGB` or `Win ` is `.sRGB`; a
    /// V5 header's embedded profile is `.iccProfile` (`.unusableProfile` when its offset or size points
    /// outside the file); anything else (calibrated endpoints, a linked profile's file name, older
    /// headers) is `.unspecified`.
    public static func embeddedColor(in data: [UInt8]) throws(ImageError) -> EmbeddedColor {
        // Nothing is decoded here: the pixel limit does not apply, the header checks do.
        try BMPHeader(data, limits: DecodeLimits(maxPixels: Int.max, maxDecodeBytes: Int.max)).color
    }
}
