import ImageCore

/// WebP through libwebp. Placeholder until the WebP codec lands.
public enum WebPCodec {
    public static func readInfo(_ data: [UInt8]) throws(ImageError) -> ImageInfo {
        throw .unsupported("WebP decoding is not built yet")
    }

    public static func decode(_ data: [UInt8], limits: DecodeLimits, scale: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        throw .unsupported("WebP decoding is not built yet")
    }

    /// `quality` nil writes lossless WebP.
    public static func encode(_ image: PixelBuffer, quality: Int?) throws(ImageError) -> [UInt8] {
        throw ImageError(.encodeFailed, "WebP encoding is not built yet")
    }
}
