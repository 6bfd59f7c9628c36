import ImageCore

/// Shrinking by area averaging: each output pixel is the mean of the source area it covers,
/// partial pixels counted by the fraction covered.
///
/// A hash only keeps the lowest frequencies, so a box average is all the filtering it needs, and
/// it never rings or overshoots. Colours are averaged premultiplied by alpha, so transparent
/// pixels (whose colour is often black or garbage) do not tint their neighbours.
enum AreaShrink {
    /// Where one source pixel falls along an axis: in cell `first`, and possibly in `first + 1`.
    /// The weights are fractions of one output pixel, so each output pixel's weights add up to 1.
    struct Footprint {
        let first: Int
        let firstWeight: Double
        let secondWeight: Double
    }

    /// Footprints of `source` pixels on `destination` cells, for `destination <= source`.
    ///
    /// Positions are kept as integers in units of 1/source, so the cells tile exactly and no
    /// rounding drift can give a source pixel a weight it does not have.
    static func footprints(source: Int, destination: Int) -> [Footprint] {
        (0..<source).map { s in
            let start = s * destination
            let end = start + destination
            let cell = start / source
            let cellEnd = (cell + 1) * source
            let inFirst = min(end, cellEnd) - start
            let inSecond = max(0, end - cellEnd)
            return Footprint(first: cell,
                             firstWeight: Double(inFirst) / Double(source),
                             secondWeight: Double(inSecond) / Double(source))
        }
    }

    /// The image averaged down to `width` x `height`, both between 1 and the source's sides.
    static func shrink(_ image: CheckedPixels, width: Int, height: Int) -> PixelBuffer {
        let across = footprints(source: image.width, destination: width)
        let down = footprints(source: image.height, destination: height)
        let rgba = image.rgba

        // One source row at a time, so memory stays at the output's size however tall the source.
        var sums = [Double](repeating: 0, count: width * height * 4)
        var row = [Double](repeating: 0, count: width * 4)
        for y in 0..<image.height {
            for i in row.indices { row[i] = 0 }
            for x in 0..<image.width {
                let i = (y * image.width + x) * 4
                let alpha = Double(rgba[i + 3])
                let opacity = alpha / 255
                let premultiplied = (Double(rgba[i]) * opacity, Double(rgba[i + 1]) * opacity, Double(rgba[i + 2]) * opacity, alpha)
                let foot = across[x]
                add(premultiplied, times: foot.firstWeight, to: &row, at: foot.first * 4)
                if foot.secondWeight > 0 {
                    add(premultiplied, times: foot.secondWeight, to: &row, at: (foot.first + 1) * 4)
                }
            }
            let foot = down[y]
            accumulate(row, times: foot.firstWeight, into: &sums, at: foot.first * width * 4)
            if foot.secondWeight > 0 {
                accumulate(row, times: foot.secondWeight, into: &sums, at: (foot.first + 1) * width * 4)
            }
        }

        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var anyTranslucent = false
        for i in stride(from: 0, to: sums.count, by: 4) {
            let alpha = sums[i + 3]
            let opacity = alpha / 255
            for c in 0..<3 {
                // A fully transparent area has no colour; zero matches what codecs write there.
                let value = opacity > 0 ? sums[i + c] / opacity : 0
                pixels[i + c] = UnitScale.byte(value / 255)
            }
            pixels[i + 3] = UnitScale.byte(alpha / 255)
            anyTranslucent = anyTranslucent || pixels[i + 3] < 255
        }
        return PixelBuffer(width: width, height: height, hasAlpha: anyTranslucent, pixels: pixels)
    }

    private static func add(_ value: (Double, Double, Double, Double), times weight: Double,
                            to row: inout [Double], at offset: Int) {
        row[offset] += value.0 * weight
        row[offset + 1] += value.1 * weight
        row[offset + 2] += value.2 * weight
        row[offset + 3] += value.3 * weight
    }

    private static func accumulate(_ row: [Double], times weight: Double, into sums: inout [Double], at offset: Int) {
        for i in row.indices { sums[offset + i] += row[i] * weight }
    }
}
