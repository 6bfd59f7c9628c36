import ImageCore

/// ThumbHash (Evan Wallace's image placeholder): a hash of about 25 bytes that carries a blurred
/// preview of an image, its average colour and its rough aspect ratio.
///
/// The bytes follow the published format, so a hash made here decodes with the reference decoders
/// (JavaScript, Rust, Swift) that browsers and apps use, and theirs decode here.
///
/// Nothing here traps on bad input: an image that cannot be hashed gives `nil`, and so does a hash
/// that is too short or names an impossible layout. Decoding never reads past the hash's end.
public enum ThumbHash {
    /// The largest side ThumbHash accepts; callers shrink first.
    ///
    /// The hash holds at most 7 cosine terms per axis, so more pixels add time but no detail.
    public static let maxSide = 100

    /// The hash of an RGBA image (8-bit, not premultiplied, rows top to bottom).
    ///
    /// Returns `nil`, never trapping, when a side is larger than `maxSide` or when the buffer's
    /// `pixels` (a `var`) no longer match its size. Whether the image has alpha is read from the
    /// pixels, not from `hasAlpha`, so that the hash matches every other encoder's.
    public static func encode(_ image: PixelBuffer) -> [UInt8]? {
        guard image.width <= maxSide, image.height <= maxSide,
              let source = CheckedPixels(image) else { return nil }
        return HashEncoder.encode(source)
    }

    /// A small RGBA preview, 32 pixels on its longer side, stretched to the ratio the hash carries.
    ///
    /// Returns `nil` for a hash that is too short for the layout its header announces, or whose
    /// header is impossible. Bytes after the last coefficient are ignored, as the reference does.
    public static func decode(_ hash: [UInt8]) -> PixelBuffer? {
        guard let contents = HashContents(hash) else { return nil }
        return PreviewRenderer.render(contents)
    }

    /// The preview at a ratio known better than the hash carries it (a placeholder also gives
    /// the photo's width and height): the cosine terms are sampled on that grid instead, so a 3:2
    /// photo's preview is 3:2, not the 7:5 its hash can say. `aspectRatio` is clamped to 1/7...7.
    public static func decode(_ hash: [UInt8], aspectRatio: Double) -> PixelBuffer? {
        guard let contents = HashContents(hash), aspectRatio.isFinite, aspectRatio > 0 else { return nil }
        return PreviewRenderer.render(contents, aspectRatio: min(7, max(1.0 / 7, aspectRatio)))
    }

    /// The average colour the hash carries (RGBA, 0...255, not premultiplied).
    ///
    /// `nil` exactly when `decode` would refuse the hash, so callers never see a colour for a hash
    /// that has no preview.
    public static func averageColor(_ hash: [UInt8]) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8)? {
        guard let header = HashContents(hash)?.header else { return nil }
        let colour = ColourSpace.rgb(l: header.lumaAverage, p: header.yellowBlueAverage, q: header.redGreenAverage)
        return (UnitScale.byte(colour.r), UnitScale.byte(colour.g), UnitScale.byte(colour.b),
                UnitScale.byte(header.alphaAverage))
    }

    /// The approximate width/height ratio the hash carries.
    ///
    /// The hash keeps the shorter side only in sevenths of the longer (fifths with alpha), so an
    /// image of 100x13 comes back as 7.0, and `nil` comes back when `decode` would refuse the hash.
    public static func aspectRatio(_ hash: [UInt8]) -> Double? {
        guard let header = HashContents(hash)?.header else { return nil }
        return header.carriedAspectRatio
    }
}
