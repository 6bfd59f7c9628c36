import CJXL
import ImageCore

/// JPEG XL through the system libjxl (0.7.0 on Debian 12): bare codestreams (FF 0A) and the ISO-BMFF
/// container, lossy (VarDCT) and lossless (modular), grey and colour, alpha, the first displayed
/// frame of animations. Written too: lossy thumbnails, see `encode`.
///
/// The whole file is handed to libjxl at once, so libjxl asking for more input means the file was
/// cut short: `truncated_image`, never an image decoded from partial data (see LibJXLDecoder for
/// why the input is not closed). The container's boxes are checked whole first (JXLContainer). The
/// one cut that decodes is a bare codestream's animation cut after its first frame: that frame is
/// whole, and nothing reads past it. The size in the basic info is checked against `DecodeLimits`
/// (pixels, and the output plus libjxl's working memory) before libjxl sets up any frame or thumbd
/// allocates the output; a displayed frame's own size is checked again before it is decoded.
/// libjxl runs single-threaded: thumbd already decodes one image per core.
///
/// Orientation: libjxl applies the codestream's orientation while decoding (the JPEG XL rule; an
/// Exif box's Orientation tag is ignored), so the pixels come back upright, `info.orientation` is
/// always `.up`, and `info.width` and `info.height` are the displayed size. Applied exactly once,
/// by libjxl.
public enum JXLCodec {
    /// `ImageInfo.format` for JPEG XL.
    public static let imageFormat = ImageFormat.jxl

    /// True when libjxl's JxlSignatureCheck finds a codestream or container signature.
    public static func sniff(_ data: [UInt8]) -> Bool {
        data.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            let signature = JxlSignatureCheck(base, buffer.count)
            return signature == JXL_SIG_CODESTREAM || signature == JXL_SIG_CONTAINER
        }
    }

    /// libjxl's decoder as loaded at run time, "0.7.0" (JxlDecoderVersion packs it as
    /// major * 1,000,000 + minor * 1,000 + patch).
    public static var libraryVersion: String {
        let packed = Int(JxlDecoderVersion())
        return "\(packed / 1_000_000).\(packed / 1_000 % 1_000).\(packed % 1_000)"
    }

    /// Header facts (displayed size, alpha, animation; orientation `.up`, see above), with the
    /// size checked against `limits.maxPixels`. Only the basic info is read.
    public static func readInfo(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> ImageInfo {
        try JXLDecoder.readInfo(data, limits: limits)
    }

    /// Decodes the first displayed frame to 8-bit RGBA, not premultiplied, upright. Grey images
    /// come back as R = G = B; without alpha, alpha is 255 and `hasAlpha` false. `color` describes
    /// the returned samples (see `JXLOutputColor`): `.sRGB`, or an ICC profile for ColorManagement
    /// to convert. Errors: `truncated_image` for a cut file, `corrupt_image` for what libjxl
    /// rejects, `pixel_limit_exceeded` from the header, `unsupported_format` for another format.
    ///
    /// libjxl 0.7 has no reduced-size decoding: `scale` is accepted and ignored, the image is
    /// always decoded at full size (scale 1).
    public static func decode(_ data: [UInt8], limits: DecodeLimits, scale: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        try JXLDecoder.decode(data, limits: limits)
    }

    /// The colour space `decode` would report, from the headers alone (no pixels decoded).
    public static func embeddedColor(in data: [UInt8]) throws(ImageError) -> EmbeddedColor {
        try JXLDecoder.embeddedColor(data)
    }

    /// The effort to pass to `encode` unless there is a reason not to. Measured on this 2-core
    /// machine (busy: load 4 to 5) on 13 photos' 300x400 thumbnails at quality 82, median encode
    /// time, median size, median SSIM: effort 3 15 ms 11.4 kB 0.9825; 4 16 ms 11.2 kB 0.9825;
    /// 5 38 ms 9.8 kB 0.9885; 6 48 ms 10.1 kB 0.9886; 7 (cjxl's default) 55 ms 10.1 kB 0.9886.
    /// Effort 5 is where the size drops (12% under 3 and 4) and the fidelity rises; 6 and 7 cost
    /// more time for nothing at thumbnail sizes.
    public static let defaultEffort = 5

    /// Encodes 8-bit RGBA as lossy JPEG XL (VarDCT): sRGB, an alpha channel only when
    /// `image.hasAlpha` and some pixel is not opaque, a bare codestream without metadata.
    ///
    /// `quality` is thumbd's JPEG-like 1...100, turned into a butteraugli distance by cjxl's own
    /// mapping (`JXLEncoder.distance(quality:)`: 82 is 1.72, 90 is 1.0). `effort` is libjxl's 1
    /// (fastest) ... 9 (slowest, smallest); cjxl's default is 7.
    public static func encode(_ image: PixelBuffer, quality: Int, effort: Int) throws(ImageError) -> [UInt8] {
        try JXLEncoder.encode(image, quality: quality, effort: effort)
    }
}
