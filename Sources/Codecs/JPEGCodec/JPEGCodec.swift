import ImageCore

/// JPEG through libjpeg-turbo: baseline, progressive, arithmetic, grayscale, CMYK/YCCK, any
/// subsampling, restart markers. 12-bit, lossless and hierarchical files are refused as unsupported.
public enum JPEGCodec {
    public static func readInfo(_ data: [UInt8]) throws(ImageError) -> ImageInfo {
        try JPEGDecoder.readInfo(data)
    }

    /// Pixels as stored (RGBA; a CMYK file is converted without its profile unless `keepingCMYK`,
    /// when its samples come back as CMYK for `ColorManagement` to convert), and the file's profile;
    /// with `blockMeans`, also the photo at one pixel per 8x8 block, the same at every scale.
    /// `window`: only that part of the scaled image (widened to whole iMCU columns); with
    /// `blockMeans`, only for a single-scan file (the whole image otherwise).
    public static func decode(_ data: [UInt8], limits: DecodeLimits, scale: DecodeScaleHint,
                              keepingCMYK: Bool = false, blockMeans: Bool = false,
                              window: DecodeWindow? = nil) throws(ImageError) -> DecodedImage {
        try JPEGDecoder.decode(data, limits: limits, scale: scale, keepingCMYK: keepingCMYK, blockMeans: blockMeans, window: window)
    }

    /// The scale `decode` delivers for `hint`: the M/8 of libjpeg's DCT scaling it picks.
    public static func decodeScale(for hint: DecodeScaleHint) -> Double {
        Double(JPEGDecoder.scaleEighths(for: hint)) / 8
    }

    /// What the file says of its colours (its ICC profile), from its markers alone.
    public static func embeddedColor(in data: [UInt8]) throws(ImageError) -> EmbeddedColor {
        try JPEGDecoder.structure(of: data).embeddedColor
    }

    public static func encode(_ image: PixelBuffer, quality: Int, progressive: Bool) throws(ImageError) -> [UInt8] {
        try JPEGEncoder.encode(image, quality: quality, progressive: progressive)
    }
}
