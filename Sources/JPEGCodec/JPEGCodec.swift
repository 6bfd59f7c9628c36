import ImageCore

/// JPEG through libjpeg-turbo: baseline, progressive, arithmetic, grayscale, CMYK/YCCK, any
/// subsampling, restart markers. 12-bit, lossless and hierarchical files are refused as unsupported.
public enum JPEGCodec {
    public static func readInfo(_ data: [UInt8]) throws(ImageError) -> ImageInfo {
        try JPEGDecoder.readInfo(data)
    }

    public static func decode(_ data: [UInt8], limits: DecodeLimits, scale: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        try JPEGDecoder.decode(data, limits: limits, scale: scale)
    }

    public static func encode(_ image: PixelBuffer, quality: Int, progressive: Bool) throws(ImageError) -> [UInt8] {
        try JPEGEncoder.encode(image, quality: quality, progressive: progressive)
    }
}
