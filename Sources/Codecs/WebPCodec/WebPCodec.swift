import ImageCore

/// WebP through the system libwebp: still images (lossy, lossless, with alpha) and the first frame
/// of animations. Every entry point checks the RIFF container first, so a file cut short is refused
/// with `truncated_image` instead of being decoded from partial data.
public enum WebPCodec {
    /// Header facts: size (the canvas for animations), alpha, animation and EXIF orientation.
    public static func readInfo(_ data: [UInt8]) throws(ImageError) -> ImageInfo {
        try data.withUnsafeBufferPointer { buffer throws(ImageError) in
            try WebPHeader(buffer).info
        }
    }

    /// The metadata chunks a WebP carries (a simple VP8/VP8L file has none).
    public static func metadata(in data: [UInt8]) throws(ImageError) -> EmbeddedMetadata {
        try data.withUnsafeBufferPointer { buffer throws(ImageError) in try WebPContainer(buffer).metadata }
    }

    /// What the file says of its colours (its ICCP chunk).
    public static func embeddedColor(in data: [UInt8]) throws(ImageError) -> EmbeddedColor {
        try data.withUnsafeBufferPointer { buffer throws(ImageError) in
            try WebPContainer(buffer).iccProfile.map(EmbeddedColor.iccProfile) ?? .unspecified
        }
    }

    /// Decodes to RGBA (not premultiplied). Limits are checked from the header before any pixel
    /// memory is allocated. With `scale.minimumScale < 1`, libwebp scales while decoding to at least
    /// that fraction of each side. Animations yield their first frame composited on the canvas,
    /// at full size.
    ///
    /// `info` holds the stored (file) dimensions; `pixels` holds the decoded ones.
    public static func decode(_ data: [UInt8], limits: DecodeLimits, scale: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        try data.withUnsafeBufferPointer { buffer throws(ImageError) in
            try WebPDecoder.decode(buffer, limits: limits, scale: scale)
        }
    }

    /// `quality` nil writes lossless WebP. Alpha is written only when `image.hasAlpha`; no metadata.
    public static func encode(_ image: PixelBuffer, quality: Int?) throws(ImageError) -> [UInt8] {
        try WebPEncoder.encode(image, quality: quality)
    }
}
