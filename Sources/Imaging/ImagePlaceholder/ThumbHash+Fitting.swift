import ImageCore

extension ThumbHash {
    /// The size an image of `width` x `height` shrinks to so that both sides fit `maxSide`:
    /// the longer side becomes `maxSide`, the shorter keeps the ratio (rounded, at least 1).
    public static func fittedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let longer = max(width, height)
        guard longer > maxSide else { return (width, height) }
        // Scaled in integers, rounding half up, so the result does not hang on floating-point
        // luck; sides too large for that (no real buffer has them) fall back to Double.
        func scaled(_ side: Int) -> Int {
            let (product, overflow) = side.multipliedReportingOverflow(by: maxSide)
            guard !overflow else { return max(1, Int((Double(side) / Double(longer) * Double(maxSide)).rounded())) }
            let (whole, remainder) = product.quotientAndRemainder(dividingBy: longer)
            return max(1, remainder >= longer - remainder ? whole + 1 : whole)
        }
        return (scaled(width), scaled(height))
    }

    /// The image shrunk by area averaging to fit `maxSide` x `maxSide`, or the image itself when
    /// it already fits. `nil` when the buffer's pixels do not match its size.
    public static func shrinkToFit(_ image: PixelBuffer) -> PixelBuffer? {
        guard let source = CheckedPixels(image) else { return nil }
        let target = fittedSize(width: image.width, height: image.height)
        if target == (image.width, image.height) { return image }
        return AreaShrink.shrink(source, width: target.width, height: target.height)
    }

    /// The hash of an image of any size: shrunk to fit first when it is larger than `maxSide`.
    /// `nil` only when the buffer's pixels do not match its size.
    public static func encode(fitting image: PixelBuffer) -> [UInt8]? {
        guard let fitted = shrinkToFit(image) else { return nil }
        return encode(fitted)
    }
}
