import ImageCore

/// Placeholder until the JPEG codec lands.
public enum JPEGCodec {
    public static func readInfo(_ data: [UInt8]) throws(ImageError) -> ImageInfo {
        throw .unsupported("JPEG decoding is not built yet")
    }
    public static func decode(_ data: [UInt8], limits: DecodeLimits, scale: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        throw .unsupported("JPEG decoding is not built yet")
    }
    public static func encode(_ image: PixelBuffer, quality: Int, progressive: Bool) throws(ImageError) -> [UInt8] {
        throw ImageError(.encodeFailed, "JPEG encoding is not built yet")
    }
}
