import Foundation

/// One plane's low-frequency cosine coefficients, ready for quantizing.
struct Spectrum {
    /// The plane's mean.
    var dc: Double
    /// The varying coefficients divided by `scale` and mapped into 0...1, so each fits a nibble
    /// with full precision however faint the plane's detail is.
    var normalizedAC: [Double]
    /// The largest coefficient's magnitude (0 for a flat plane).
    var scale: Double

    /// A direct (not fast) DCT-II over the grid's terms: at most 100x100 pixels and 28 terms,
    /// and summing in the plain order keeps the result bit-identical to the reference encoders.
    init(plane: [Double], width: Int, height: Int, grid: CosineGrid) {
        var dc = 0.0
        var ac: [Double] = []
        var largest = 0.0
        var columnFactor = [Double](repeating: 0, count: width)
        let pixelCount = Double(width * height)

        for term in grid.terms {
            for x in 0..<width {
                columnFactor[x] = cos(Double.pi / Double(width) * Double(term.cx) * (Double(x) + 0.5))
            }
            var sum = 0.0
            for y in 0..<height {
                let rowFactor = cos(Double.pi / Double(height) * Double(term.cy) * (Double(y) + 0.5))
                let row = y * width
                for x in 0..<width {
                    sum += plane[row + x] * columnFactor[x] * rowFactor
                }
            }
            let coefficient = sum / pixelCount
            if term.cx == 0 && term.cy == 0 {
                dc = coefficient
            } else {
                ac.append(coefficient)
                largest = max(largest, abs(coefficient))
            }
        }

        if largest > 0 {
            ac = ac.map { 0.5 + 0.5 / largest * $0 }
        }
        self.dc = dc
        self.normalizedAC = ac
        self.scale = largest
    }
}
