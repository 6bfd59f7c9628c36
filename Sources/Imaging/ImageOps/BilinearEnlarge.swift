import ImageCore

/// Bilinear enlargement of an opaque image that is already smooth (the blurred pad backdrop): two
/// taps per axis where Lanczos takes six. On a copy blurred over several of its pixels the straight
/// lines between samples cannot be told from Lanczos's curves, and the band of a large pad is
/// hundreds of thousands of pixels, so the cheaper filter is the one worth paying for.
enum BilinearEnlarge {
    /// Fixed-point weights in 1/256: two passes of two taps keep 8-bit samples under 2^24.
    static let unit: UInt32 = 256

    /// The `part` of `small` enlarged to a `width` x `height` canvas, written into `canvas` at
    /// `part`'s place. Each canvas pixel samples `small` where the whole enlargement would
    /// (centre to centre, edges repeated), so parts written one by one meet without a seam.
    static func enlarge(_ small: PixelBuffer, part: PixelBox, width: Int, height: Int, into canvas: inout PixelBuffer) {
        precondition(!small.hasAlpha, "the enlargement is of an opaque copy")
        precondition(canvas.width == width && canvas.height == height && part.x >= 0 && part.y >= 0
                     && part.x + part.width <= width && part.y + part.height <= height, "the part lies outside the canvas")
        guard part.width > 0, part.height > 0 else { return }
        let columns = taps(count: part.width, first: part.x, outputLength: width, sourceLength: small.width)
        let rows = taps(count: part.height, first: part.y, outputLength: height, sourceLength: small.height)

        // The small rows the part reads, each filtered horizontally once, in 1/256 units. All
        // four channels are carried (alpha is 255 throughout), so the vertical pass is one straight
        // loop over the row's values that the compiler can vectorise.
        let firstRow = rows.map(\.low).min()!, lastRow = rows.map(\.high).max()!
        let rowValues = part.width * PixelBuffer.bytesPerPixel
        let filtered = UnsafeMutablePointer<UInt32>.allocate(capacity: (lastRow - firstRow + 1) * rowValues)
        defer { filtered.deallocate() }
        small.pixels.withUnsafeBufferPointer { source in
            let base = source.baseAddress!
            for row in firstRow...lastRow {
                let sourceRow = base + row * small.rowBytes
                var out = filtered + (row - firstRow) * rowValues
                for tap in columns {
                    let low = sourceRow + tap.low * PixelBuffer.bytesPerPixel, high = sourceRow + tap.high * PixelBuffer.bytesPerPixel
                    let highWeight = tap.weight, lowWeight = unit - tap.weight
                    for c in 0..<PixelBuffer.bytesPerPixel {
                        out[c] = UInt32(low[c]) &* lowWeight &+ UInt32(high[c]) &* highWeight
                    }
                    out += PixelBuffer.bytesPerPixel
                }
            }
        }
        canvas.pixels.withUnsafeMutableBufferPointer { target in
            for (y, tap) in rows.enumerated() {
                let upper = filtered + (tap.low - firstRow) * rowValues, lower = filtered + (tap.high - firstRow) * rowValues
                let out = target.baseAddress! + ((part.y + y) * width + part.x) * PixelBuffer.bytesPerPixel
                let highWeight = tap.weight, lowWeight = unit - tap.weight
                for i in 0..<rowValues {
                    // Two 1/256 weights: the sum is in 1/65536, rounded to the nearest level.
                    out[i] = UInt8(truncatingIfNeeded: (upper[i] &* lowWeight &+ lower[i] &* highWeight &+ 32768) >> 16)
                }
            }
        }
    }

    /// For `count` outputs from index `first` of an axis `outputLength` long: the two source samples
    /// each lies between and the weight of the second, in 1/`unit`.
    static func taps(count: Int, first: Int, outputLength: Int, sourceLength: Int) -> [(low: Int, high: Int, weight: UInt32)] {
        let scale = Double(sourceLength) / Double(outputLength)
        return (first..<(first + count)).map { index in
            let position = min(max((Double(index) + 0.5) * scale - 0.5, 0), Double(sourceLength - 1))
            let low = Int(position), high = min(low + 1, sourceLength - 1)
            return (low, high, UInt32(((position - Double(low)) * Double(unit)).rounded()))
        }
    }
}
