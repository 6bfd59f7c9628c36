import ImageCore

/// PNG through libpng (see CPNGBridge). Placeholder until the PNG decoder lands.
public enum PNGCodec {
    public static func readInfo(_ data: [UInt8]) throws(ImageError) -> ImageInfo {
        throw .unsupported("PNG decoding is not built yet")
    }

    public static func decode(_ data: [UInt8], limits: DecodeLimits, scale: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        throw .unsupported("PNG decoding is not built yet")
    }

    public static func encode(_ image: PixelBuffer) throws(ImageError) -> [UInt8] {
        throw ImageError(.encodeFailed, "PNG encoding is not built yet")
    }
}
