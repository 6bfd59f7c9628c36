import ImageCore

/// Finds the content inside a uniform border: a product shot on a white sweep, a logo on a flat
/// colour, a scan with a margin. The border's colour is read from the four corners; a pixel is
/// content when any channel (alpha too) differs from it by more than the threshold, which must be
/// wide enough for JPEG's ringing and block noise on a flat background to count as border.
public enum BorderTrim {
    /// Largest difference, per 8-bit channel, a border pixel may have from the border colour. JPEG
    /// at quality 75 left a white background within 3 levels more than a block (8 px) from the
    /// product (`FocusAndTrimTests`); ringing within that block reached 31 and widens the box by a
    /// pixel or two, which is harmless.
    public static let defaultThreshold = 24
    public static let thresholdRange = 1...254
    /// Side of the square read at each corner: an average over a few pixels, not one noisy pixel.
    static let cornerPatch = 3

    /// The content's bounding box in `image`'s pixels, or nil when there is nothing to trim: the
    /// corners disagree (no uniform border), every pixel is border (an empty frame stays as it
    /// is), or the content already touches all four edges.
    ///
    /// A row or column counts as content only when enough of its pixels differ (`minimumCount`),
    /// so a speck of dust or a JPEG artefact in the margin does not hold the border in place.
    public static func contentBox(of image: PixelBuffer, threshold: Int = defaultThreshold) -> PixelBox? {
        let (w, h) = (image.width, image.height)
        guard w >= 2 * cornerPatch, h >= 2 * cornerPatch, let border = borderColour(image, threshold: threshold) else { return nil }

        // One pass: how many content pixels each row and each column holds. A pixel is border when
        // every channel is within the threshold: |v - b| <= t, tested as v in (b - t)...(b + t).
        var rowCounts = [Int](repeating: 0, count: h)
        var columnCounts = [Int](repeating: 0, count: w)
        let low = border.map { UInt8(clamping: $0 - threshold) }, high = border.map { UInt8(clamping: $0 + threshold) }
        let (r0, g0, b0, a0) = (low[0], low[1], low[2], low[3]), (r1, g1, b1, a1) = (high[0], high[1], high[2], high[3])
        let pixels = image.pixels
        for y in 0..<h {
            var i = y * image.rowBytes
            var count = 0
            for x in 0..<w {
                let (r, g, b, a) = (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
                if r < r0 || r > r1 || g < g0 || g > g1 || b < b0 || b > b1 || a < a0 || a > a1 {
                    count += 1
                    columnCounts[x] += 1
                }
                i += PixelBuffer.bytesPerPixel
            }
            rowCounts[y] = count
        }
        guard let rows = span(rowCounts, minimum: minimumCount(across: w)),
              let columns = span(columnCounts, minimum: minimumCount(across: h)) else { return nil }
        let box = PixelBox(x: columns.lowerBound, y: rows.lowerBound, width: columns.count, height: rows.count)
        return box.width == w && box.height == h ? nil : box
    }

    /// How many differing pixels make a line content: 1 in 400 of it, at least 2, so an isolated
    /// speck is ignored but a thin product edge is not.
    static func minimumCount(across length: Int) -> Int { max(2, length / 400) }

    /// The first through the last index whose count reaches `minimum`; nil when none does.
    static func span(_ counts: [Int], minimum: Int) -> Range<Int>? {
        guard let first = counts.firstIndex(where: { $0 >= minimum }),
              let last = counts.lastIndex(where: { $0 >= minimum }) else { return nil }
        return first..<(last + 1)
    }

    /// The mean of the four corner patches, or nil when one of them is further than `threshold`
    /// from it: a photo whose corners differ has no border to take off.
    static func borderColour(_ image: PixelBuffer, threshold: Int) -> [Int]? {
        let n = cornerPatch
        let corners = [(0, 0), (image.width - n, 0), (0, image.height - n), (image.width - n, image.height - n)]
        let means = corners.map { corner in patchMean(image, x: corner.0, y: corner.1) }
        let border = (0..<4).map { channel in means.map { $0[channel] }.reduce(0, +) / 4 }
        for mean in means where (0..<4).contains(where: { abs(mean[$0] - border[$0]) > threshold }) { return nil }
        return border
    }

    private static func patchMean(_ image: PixelBuffer, x: Int, y: Int) -> [Int] {
        var sums = [0, 0, 0, 0]
        for py in y..<(y + cornerPatch) {
            for px in x..<(x + cornerPatch) {
                let i = (py * image.width + px) * PixelBuffer.bytesPerPixel
                for channel in 0..<4 { sums[channel] += Int(image.pixels[i + channel]) }
            }
        }
        return sums.map { $0 / (cornerPatch * cornerPatch) }
    }
}

/// A rectangle of whole pixels.
public struct PixelBox: Sendable, Hashable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
}
