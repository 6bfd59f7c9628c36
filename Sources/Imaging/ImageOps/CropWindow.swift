/// Where a crop window of a fixed size should sit in a picture, given its saliency map.
public enum CropWindow {
    /// Windows that score less than the best by at most this share of the most saliency any
    /// window holds count as equally good.
    static let tolerance: Float = 0.03
    /// Only windows holding at least this share of the most saliency any window holds are weighed
    /// for where their edges run (`cutWeight`): the edges choose among windows that hold nearly
    /// as much, they never send the window away from the product.
    static let candidateShare: Float = 0.9
    /// How much the saliency just outside a window's inner edges counts against it, per map pixel,
    /// against the saliency inside. A window that cuts through an object (the bright outline of a
    /// plain product) loses to one whose edges run through background, though it holds a little
    /// more of a large, dimmer thing beside (a blurred lamp, a shelf). Tuned on a 64 px map over 672
    /// generated scenes (`CropScenes`, seven seeds): 92.7 -> 96.3 % of products kept whole, the
    /// mean kept share 0.987 -> 0.989; 4 to 6 did best.
    static let cutWeight: Float = 4

    /// The top-left corner, in map pixels, of the `width` x `height` window (map pixels, at most the
    /// map's size) that holds the most saliency without cutting through it.
    ///
    /// Each window's score is the saliency inside it less `cutWeight` times the saliency in the
    /// line of map pixels just outside each edge that is not the picture's own. Several windows
    /// usually hold the whole product; the one chosen is the middle of that run of near-best windows
    /// (the connected ones around the best), so the product sits centred where the frame allows
    /// rather than pressed against the window's edge. A map with nothing salient keeps the centre.
    public static func best(in map: SaliencyMap, width: Double, height: Double) -> (x: Double, y: Double) {
        let (w, h) = (map.width, map.height)
        let width = min(width, Double(w)), height = min(height, Double(h))
        let centre = ((Double(w) - width) / 2, (Double(h) - height) / 2)
        let ww = max(1, min(w, Int(width.rounded()))), wh = max(1, min(h, Int(height.rounded())))
        let (columns, rows) = (w - ww + 1, h - wh + 1)
        guard columns * rows > 1 else { return centre }

        let sums = SummedArea(map)
        var masses = [Float](repeating: 0, count: columns * rows)
        for y in 0..<rows {
            for x in 0..<columns { masses[y * columns + x] = sums.sum(x: x, y: y, width: ww, height: wh) }
        }
        let bestMass = masses.max() ?? 0
        guard bestMass > 0 else { return centre }
        /// The saliency in the lines just outside the window's edges that are not the map's own.
        func cut(_ x: Int, _ y: Int) -> Float {
            var cut = Float(0)
            if x > 0 { cut += sums.sum(x: x - 1, y: y, width: 1, height: wh) }
            if x + ww < w { cut += sums.sum(x: x + ww, y: y, width: 1, height: wh) }
            if y > 0 { cut += sums.sum(x: x, y: y - 1, width: ww, height: 1) }
            if y + wh < h { cut += sums.sum(x: x, y: y + wh, width: ww, height: 1) }
            return cut
        }
        var scores = [Float](repeating: -.greatestFiniteMagnitude, count: masses.count)
        var bestIndex = 0
        for i in masses.indices where masses[i] >= bestMass * candidateShare {
            scores[i] = masses[i] - cutWeight * cut(i % columns, i / columns)
            if scores[i] > scores[bestIndex] { bestIndex = i }
        }

        // The near-best windows connected to the best one, found by a flood fill over positions.
        let threshold = scores[bestIndex] - bestMass * tolerance
        var seen = [Bool](repeating: false, count: masses.count)
        var stack = [bestIndex]
        seen[bestIndex] = true
        var (sumX, sumY, count) = (0, 0, 0)
        while let index = stack.popLast() {
            let (x, y) = (index % columns, index / columns)
            sumX += x; sumY += y; count += 1
            for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && ny >= 0 && nx < columns && ny < rows {
                let next = ny * columns + nx
                if !seen[next] && scores[next] >= threshold {
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
