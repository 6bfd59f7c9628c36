/// Where a crop window of a fixed size should sit in a picture, given its saliency map.
public enum CropWindow {
    /// Windows holding at least this share of the best window's saliency count as equally good.
    static let tolerance: Float = 0.03

    /// The top-left corner, in map pixels, of the `width` x `height` window (map pixels, at most the
    /// map's size) that holds the most saliency.
    ///
    /// Several windows usually hold the whole product; the one chosen is the middle of that run of
    /// near-best windows (the connected ones around the best), so the product sits centred where
    /// the frame allows rather than pressed against the window's edge. A map with nothing salient
    /// keeps the centre.
    public static func best(in map: SaliencyMap, width: Double, height: Double) -> (x: Double, y: Double) {
        let (w, h) = (map.width, map.height)
        let width = min(width, Double(w)), height = min(height, Double(h))
        let centre = ((Double(w) - width) / 2, (Double(h) - height) / 2)
        let ww = max(1, min(w, Int(width.rounded()))), wh = max(1, min(h, Int(height.rounded())))
        let (columns, rows) = (w - ww + 1, h - wh + 1)
        guard columns * rows > 1 else { return centre }

        let sums = SummedArea(map)
        var masses = [Float](repeating: 0, count: columns * rows)
        var bestIndex = 0
        for y in 0..<rows {
            for x in 0..<columns {
                let mass = sums.sum(x: x, y: y, width: ww, height: wh)
                masses[y * columns + x] = mass
                if mass > masses[bestIndex] { bestIndex = y * columns + x }
            }
        }
        let best = masses[bestIndex]
        guard best > 0 else { return centre }

        // The near-best windows connected to the best one, found by a flood fill over positions.
        let threshold = best * (1 - tolerance)
        var seen = [Bool](repeating: false, count: masses.count)
        var stack = [bestIndex]
        seen[bestIndex] = true
        var (sumX, sumY, count) = (0, 0, 0)
        while let index = stack.popLast() {
            let (x, y) = (index % columns, index / columns)
            sumX += x; sumY += y; count += 1
            for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && ny >= 0 && nx < columns && ny < rows {
                let next = ny * columns + nx
                if !seen[next] && masses[next] >= threshold {
                    seen[next] = true
                    stack.append(next)
                }
            }
        }
        // Back from whole-pixel windows to the exact size: the same centre, kept inside the map.
        let x = Double(sumX) / Double(count) + (Double(ww) - width) / 2
        let y = Double(sumY) / Double(count) + (Double(wh) - height) / 2
        return (min(max(0, x), Double(w) - width), min(max(0, y), Double(h) - height))
    }
}

/// A summed-area table: any rectangle's total in four look-ups.
struct SummedArea {
    let width: Int
    private var table: [Float]

    init(_ map: SaliencyMap) {
        width = map.width + 1
        table = [Float](repeating: 0, count: (map.width + 1) * (map.height + 1))
        for y in 0..<map.height {
            var row = Float(0)
            for x in 0..<map.width {
                row += map.values[y * map.width + x]
                table[(y + 1) * width + x + 1] = table[y * width + x + 1] + row
            }
        }
    }

    func sum(x: Int, y: Int, width w: Int, height h: Int) -> Float {
        table[(y + h) * width + x + w] - table[y * width + x + w] - table[(y + h) * width + x] + table[y * width + x]
    }
}
