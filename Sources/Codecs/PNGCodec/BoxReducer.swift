/// Shrinks a stream of RGBA8 rows by an integer factor `k`, averaging each k x k block.
///
/// With alpha, colours are averaged weighted by alpha (premultiply, average, un-premultiply), so
/// fully transparent pixels, whatever colour they store, do not darken or tint the edges next to
/// them. Blocks cut short by the right or bottom edge average over the pixels they have.
/// Memory: the reduced image plus one row of 64-bit sums.
struct BoxReducer {
    let width: Int
    let height: Int
    let factor: Int
    let outputWidth: Int
    let outputHeight: Int
    let hasAlpha: Bool

    private(set) var output: [UInt8]
    private var sums: [UInt64]
    private var rowsInBlock = 0
    private var rowsSeen = 0
    private var outputRow = 0

    init(width: Int, height: Int, factor: Int, hasAlpha: Bool) {
        precondition(width > 0 && height > 0 && factor >= 1, "bad BoxReducer geometry")
        self.width = width
        self.height = height
        self.factor = factor
        self.outputWidth = (width + factor - 1) / factor
        self.outputHeight = (height + factor - 1) / factor
        self.hasAlpha = hasAlpha
        self.output = [UInt8](repeating: 0, count: outputWidth * outputHeight * 4)
        self.sums = [UInt64](repeating: 0, count: outputWidth * 4)
    }

    /// Bytes this reducer holds beside the caller's row buffer.
    static func workingBytes(width: Int, height: Int, factor: Int) -> Int {
        let outputWidth = (width + factor - 1) / factor
        let outputHeight = (height + factor - 1) / factor
        return outputWidth * outputHeight * 4 + outputWidth * 4 * MemoryLayout<UInt64>.stride
    }

    var isComplete: Bool { rowsSeen == height }

    /// Adds the next source row (width * 4 bytes, RGBA).
    mutating func add(row: UnsafeBufferPointer<UInt8>) {
        precondition(row.count >= width * 4 && rowsSeen < height, "BoxReducer fed a short row or too many rows")
        let width = self.width, factor = self.factor, outputWidth = self.outputWidth, hasAlpha = self.hasAlpha
        sums.withUnsafeMutableBufferPointer { sums in
            for ox in 0..<outputWidth {
                let x0 = ox * factor
                let x1 = min(x0 + factor, width)
                var r: UInt64 = 0, g: UInt64 = 0, b: UInt64 = 0, a: UInt64 = 0
                if hasAlpha {
                    for x in x0..<x1 {
                        let p = x &* 4
                        let alpha = UInt64(row[p &+ 3])
                        r &+= UInt64(row[p]) &* alpha
                        g &+= UInt64(row[p &+ 1]) &* alpha
                        b &+= UInt64(row[p &+ 2]) &* alpha
                        a &+= alpha
                    }
                } else {
                    for x in x0..<x1 {
                        let p = x &* 4
                        r &+= UInt64(row[p])
                        g &+= UInt64(row[p &+ 1])
                        b &+= UInt64(row[p &+ 2])
                    }
                }
                let s = ox &* 4
                sums[s] &+= r
                sums[s &+ 1] &+= g
                sums[s &+ 2] &+= b
                sums[s &+ 3] &+= a
            }
        }
        rowsSeen += 1
        rowsInBlock += 1
        if rowsInBlock == factor || rowsSeen == height {
            emitRow()
        }
    }

    private mutating func emitRow() {
        let width = self.width, factor = self.factor, outputWidth = self.outputWidth, hasAlpha = self.hasAlpha
        let blockHeight = UInt64(rowsInBlock)
        let start = outputRow * outputWidth * 4
        sums.withUnsafeMutableBufferPointer { sums in
            output.withUnsafeMutableBufferPointer { out in
                for ox in 0..<outputWidth {
                    let blockWidth = UInt64(min(factor, width - ox * factor))
                    let count = blockWidth * blockHeight
                    let s = ox * 4
                    let o = start + s
                    if hasAlpha {
                        let alphaSum = sums[s + 3]
                        if alphaSum == 0 {
                            out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 0
                        } else {
                            for c in 0..<3 {
                                out[o + c] = UInt8(min(255, (sums[s + c] + alphaSum / 2) / alphaSum))
                            }
                            out[o + 3] = UInt8(min(255, (alphaSum + count / 2) / count))
                        }
                    } else {
                        for c in 0..<3 {
                            out[o + c] = UInt8(min(255, (sums[s + c] + count / 2) / count))
                        }
                        out[o + 3] = 255
                    }
                    sums[s] = 0; sums[s + 1] = 0; sums[s + 2] = 0; sums[s + 3] = 0
                }
            }
        }
        rowsInBlock = 0
        outputRow += 1
    }
}
