import ImageCore

/// How much sharp detail each cell of a small grid holds, measured on the larger decoded image:
/// there a blurred background is smooth and an in-focus product's outline is crisp, a difference
/// the small copy the saliency map is built on no longer shows.
public struct SharpDetail: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Row-major, `width * height`: the mean absolute Laplacian of the green channel (0…255 units)
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
        // The sampled columns of each cell, as a range of sample positions (x = 1 + k * strideX), so
        // a cell's row of samples is summed in a register and stored once.
        let columnRuns: [Range<Int>] = (0..<width).map { cell in
            let first = max(1, (cell * w + width - 1) / width), end = min(w - 1, ((cell + 1) * w + width - 1) / width)
            let k0 = (first - 1 + strideX - 1) / strideX, k1 = end > 1 ? (end - 1 + strideX - 1) / strideX : 0
            return k0..<max(k0, k1)
        }
        let rowBytes = w * 4
        var totals = [Int](repeating: 0, count: width * height)
        var samples = [Int](repeating: 0, count: width * height)
        image.pixels.withUnsafeBufferPointer { pixels in
            guard let px = pixels.baseAddress else { return }
            for y in stride(from: 1, to: h - 1, by: strideY) {
                let row = min(height - 1, y * height / h) * width
                let line = px + y * rowBytes + 1  // the green of pixel 0 of row y
                for (cell, run) in columnRuns.enumerated() where !run.isEmpty {
                    var sum = 0
                    for k in run {
                        let at = (1 + k * strideX) * 4
                        let centre = Int(line[at])
                        sum += abs(4 * centre - Int(line[at - 4]) - Int(line[at + 4])
                                   - Int(line[at - rowBytes]) - Int(line[at + rowBytes]))
                    }
                    totals[row + cell] += sum
                    samples[row + cell] += run.count
                }
            }
        }
        values = zip(totals, samples).map { $1 > 0 ? Float($0) / Float($1) : 0 }
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
