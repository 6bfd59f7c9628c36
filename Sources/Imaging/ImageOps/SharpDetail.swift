import ImageCore

/// How much sharp detail each cell of a small grid holds, measured on the larger decoded image:
/// there a blurred background is smooth and an in-focus product's outline is crisp, a difference
/// the small copy the saliency map is built on no longer shows.
public struct SharpDetail: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Row-major, `width * height`: the mean absolute Laplacian of the green channel (0…1,020 units)
    /// over the decoded pixels the cell covers.
    public var values: [Float]

    /// The grid of `width` x `height` cells over `image` (the decoded photo, as stored).
    ///
    /// A step edge gives a Laplacian on the two pixels either side of it, so where the decoded
    /// photo has at least two pixels per cell along an axis every second pixel along it is enough:
    /// a quarter of the work on a large decode, and no edge missed. The green channel stands for
    /// the lightness (it carries most of it): enough to tell crisp from soft, at a third of the reads.
    public init(of image: PixelBuffer, width: Int, height: Int) {
        self.width = width
        self.height = height
        let (w, h) = (image.width, image.height)
        guard w >= 3, h >= 3, width > 0, height > 0 else { values = [Float](repeating: 0, count: max(0, width * height)); return }
        let strideX = w >= 2 * width ? 2 : 1, strideY = h >= 2 * height ? 2 : 1
        // The sampled columns of each cell, as a range of sample positions (x = 1 + k * strideX).
        let columnRuns: [Range<Int>] = (0..<width).map { cell in
            let first = max(1, (cell * w + width - 1) / width), end = min(w - 1, ((cell + 1) * w + width - 1) / width)
            let k0 = (first - 1 + strideX - 1) / strideX, k1 = end > 1 ? (end - 1 + strideX - 1) / strideX : 0
            return k0..<max(k0, k1)
        }
        var totals = [Int](repeating: 0, count: width * height)
        // A cell's sample count is its run's length times its band's sampled rows.
        var rowsSampled = [Int](repeating: 0, count: height)
        // Each sampled column's sum over the rows of one band of cells, so the pass over a row is one
        // long loop the compiler vectorises (a cell's own run is only a few samples long).
        var columnSums = [Int32](repeating: 0, count: columnRuns.last?.upperBound ?? 0)
        func addBand(_ band: Int, rows: Int) {
            for (cell, run) in columnRuns.enumerated() where !run.isEmpty {
                var sum = 0
                for k in run { sum += Int(columnSums[k]) }
                totals[band * width + cell] += sum
            }
            rowsSampled[band] += rows
            for k in columnSums.indices { columnSums[k] = 0 }
        }
        var band = -1, rowsInBand = 0
        image.pixels.withUnsafeBytes { bytes in
            // Whole RGBA pixels as one 32-bit word each: green is bits 8...15 of the little-endian word.
            bytes.withMemoryRebound(to: UInt32.self) { pixels in
                guard let px = pixels.baseAddress else { return }
                for y in stride(from: 1, to: h - 1, by: strideY) {
                    let rowBand = min(height - 1, y * height / h)
                    // A column's sum grows by 1,020 a row at most: flushed by 2^19 rows, it stays within Int32.
                    if rowBand != band || rowsInBand == 1 << 19 {
                        if rowsInBand > 0 { addBand(band, rows: rowsInBand) }
                        (band, rowsInBand) = (rowBand, 0)
                    }
                    rowsInBand += 1
                    // Two copies with a constant step, so each is vectorised for its stride.
                    if strideX == 2 {
                        Self.addLaplacians(row: px + y * w, width: w, step: 2, into: &columnSums)
                    } else {
                        Self.addLaplacians(row: px + y * w, width: w, step: 1, into: &columnSums)
                    }
                }
            }
        }
        if rowsInBand > 0 { addBand(band, rows: rowsInBand) }
        values = totals.indices.map { index in
            let samples = columnRuns[index % width].count * rowsSampled[index / width]
            return samples > 0 ? Float(totals[index]) / Float(samples) : 0
        }
    }

    /// Adds |4c - left - right - up - down| of the green channel at x = 1 + k * step of `row`
    /// (an interior row) to `sums[k]`, for every k of `sums` (whose samples stay inside the row).
    @inline(__always)
    private static func addLaplacians(row mid: UnsafePointer<UInt32>, width: Int, step: Int, into sums: inout [Int32]) {
        let up = mid - width, down = mid + width
        @inline(__always) func green(_ pixel: UInt32) -> Int32 { Int32(truncatingIfNeeded: (UInt32(littleEndian: pixel) >> 8) & 0xFF) }
        sums.withUnsafeMutableBufferPointer { sums in
            for k in sums.indices {
                let x = 1 + k &* step
                let laplacian = 4 &* green(mid[x]) &- green(mid[x - 1]) &- green(mid[x + 1]) &- green(up[x]) &- green(down[x])
                sums[k] &+= abs(laplacian)
            }
        }
    }

    init(width: Int, height: Int, values: [Float]) {
        self.width = width
        self.height = height
        self.values = values
    }

    /// The grid turned as the photo is (see `PixelBuffer.oriented`): each value travels as one
    /// four-byte pixel, so it arrives exact.
    public func oriented(_ orientation: Orientation) -> SharpDetail {
        if orientation == .up { return self }
        var bytes = [UInt8](repeating: 0, count: values.count * 4)
        values.withUnsafeBytes { raw in bytes.withUnsafeMutableBytes { $0.copyMemory(from: raw) } }
        let turned = PixelBuffer(width: width, height: height, hasAlpha: true, pixels: bytes).oriented(orientation)
        var out = [Float](repeating: 0, count: values.count)
        turned.pixels.withUnsafeBytes { raw in out.withUnsafeMutableBytes { $0.copyMemory(from: raw) } }
        return SharpDetail(width: turned.width, height: turned.height, values: out)
    }
}
