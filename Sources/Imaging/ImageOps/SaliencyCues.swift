/// The four things that make a product stand out in a seller's photo, each as one value per
/// pixel (larger: stands out more; scale free, `SaliencyMap` rescales them).
enum SaliencyCues {
    /// How unlike the background a pixel is, the background being what the frame's edges show
    /// (a product seldom touches the edge; a studio sweep, a wall or a blurred room always does).
    /// The border is cut into segments around the frame, so a sweep that darkens towards the floor
    /// or a room that is light on one side is matched by its own part of the edge; each distance is
    /// divided by the segment's spread, so a busy edge predicts little and a plain one much.
    static func distanceFromBorders(_ image: OpponentColours) -> [Float] {
        let (w, h) = (image.width, image.height)
        let ring = max(1, min(w, h) / 20)
        let perSide = 4
        var segments: [(l: Float, rg: Float, yb: Float, spread: Float)] = []
        func addSegment(xs: Range<Int>, ys: Range<Int>) {
            guard !xs.isEmpty, !ys.isEmpty else { return }
            var (l, rg, yb, n) = (Float(0), Float(0), Float(0), Float(0))
            for y in ys { for x in xs { let i = y * w + x; l += image.lightness[i]; rg += image.redGreen[i]; yb += image.yellowBlue[i]; n += 1 } }
            (l, rg, yb) = (l / n, rg / n, yb / n)
            var squares = Float(0)
            for y in ys { for x in xs { let d = image.distance(y * w + x, l, rg, yb); squares += d * d } }
            segments.append((l, rg, yb, (squares / n).squareRoot()))
        }
        for s in 0..<perSide {
            let xs = (s * w / perSide)..<((s + 1) * w / perSide)
            let ys = (s * h / perSide)..<((s + 1) * h / perSide)
            addSegment(xs: xs, ys: 0..<ring)
            addSegment(xs: xs, ys: (h - ring)..<h)
            addSegment(xs: 0..<ring, ys: ys)
            addSegment(xs: (w - ring)..<w, ys: ys)
        }
        // Below a few levels of spread, differences are noise and JPEG ringing, not another object.
        let noise: Float = 0.04
        // Compared squared, one square root per pixel.
        let scales = segments.map { 1 / (($0.spread + noise) * ($0.spread + noise)) }
        var out = [Float](repeating: 0, count: image.count)
        let centres = zip(segments, scales).map { (l: $0.l, rg: $0.rg, yb: $0.yb, scale: $1) }
        centres.withUnsafeBufferPointer { centres in
            out.withUnsafeMutableBufferPointer { out in
                for i in 0..<image.count {
                    let (l, rg, yb) = (image.lightness[i], image.redGreen[i], image.yellowBlue[i])
                    var nearest = Float.greatestFiniteMagnitude
                    for s in centres {
                        let dl = l - s.l, da = rg - s.rg, db = yb - s.yb
                        nearest = min(nearest, (dl * dl + da * da + db * db) * s.scale)
                    }
                    out[i] = nearest.squareRoot()
                }
            }
        }
        return out
    }

    /// A colour step smaller than this (opponent units, 0…1) is grain, JPEG noise or a soft
    /// gradient, and costs nothing.
    static let enclosureAllowance: Float = 0.05

    /// How hard it is to reach the frame's edge from a pixel without crossing an edge: the cheapest
    /// path's sum of colour steps, each less a noise allowance. A blurred room or a soft sweep lets
    /// every background pixel out almost free; a product's sharp outline walls its whole inside in,
    /// however plain that inside is.
    static func enclosure(_ image: OpponentColours) -> [Float] {
        guard image.width >= 3, image.height >= 3 else { return [Float](repeating: 0, count: image.count) }
        let (w, h) = (image.width, image.height)
        // The price of each step, paid in every pass: from a pixel to its left and to its upper neighbour.
        var left = [Float](repeating: 0, count: w * h), up = left
        image.lightness.withUnsafeBufferPointer { l in
            image.redGreen.withUnsafeBufferPointer { a in
                image.yellowBlue.withUnsafeBufferPointer { b in
                    left.withUnsafeMutableBufferPointer { left in
                        up.withUnsafeMutableBufferPointer { up in
                            @inline(__always) func step(_ i: Int, _ j: Int) -> Float {
                                let dl = l[i] - l[j], da = a[i] - a[j], db = b[i] - b[j]
                                return max(0, (dl * dl + da * da + db * db).squareRoot() - enclosureAllowance)
                            }
                            for y in 1..<h {
                                for x in 1..<w {
                                    let i = y * w + x
                                    left[i] = step(i, i - 1)
                                    up[i] = step(i, i - w)
                                }
                            }
                        }
                    }
                }
            }
        }
        var cost = [Float](repeating: .greatestFiniteMagnitude, count: w * h)
        for x in 0..<w { cost[x] = 0; cost[(h - 1) * w + x] = 0 }
        for y in 0..<h { cost[y * w] = 0; cost[y * w + w - 1] = 0 }
        left.withUnsafeBufferPointer { left in
            up.withUnsafeBufferPointer { up in
                cost.withUnsafeMutableBufferPointer { cost in
                    // Raster passes down and up again: two pairs reach what a shortest-path search
                    // would on products (convex or nearly), at a fixed, small cost.
                    for _ in 0..<2 {
                        for y in 1..<(h - 1) {
                            for x in 1..<(w - 1) {
                                let i = y * w + x
                                cost[i] = min(cost[i], cost[i - 1] + left[i], cost[i - w] + up[i])
                            }
                        }
                        for y in stride(from: h - 2, through: 1, by: -1) {
                            for x in stride(from: w - 2, through: 1, by: -1) {
                                let i = y * w + x
                                cost[i] = min(cost[i], cost[i + 1] + left[i + 1], cost[i + w] + up[i + w])
                            }
                        }
                    }
                }
            }
        }
        return cost
    }

    /// How far a pixel's local fine detail (`fineDetail`, one value per pixel) is from the picture's
    /// typical detail: a sharp product before a blurred room or a plain sweep has more, a plain
    /// product on a busy photo has less.
    static func detailContrast(_ fineDetail: [Float], width: Int, height: Int) -> [Float] {
        let energy = BoxBlur.blurred(fineDetail, width: width, height: height, radius: max(1, min(width, height) / 30))
        let typical = ValueQuantile.of(energy, 0.5)
        return energy.map { abs($0 - typical) }
    }

    /// What a 3x3 mean takes away from the lightness (a second difference): the fine detail of the
    /// small copy itself, for when no `SharpDetail` of the decoded photo is at hand.
    static func fineDetail(_ image: OpponentColours) -> [Float] {
        let local = BoxBlur.blurred(image.lightness, width: image.width, height: image.height, radius: 1)
        return zip(image.lightness, local).map { abs($0 - $1) }
    }

    /// How rare a pixel's colour is in the whole picture (global contrast): the sum of its distances
    /// to every other pixel's colour, computed over a coarse palette so it costs little.
    static func colourRarity(_ image: OpponentColours) -> [Float] {
        let levels = 6
        func level(_ v: Float, _ low: Float, _ high: Float) -> Int {
            min(levels - 1, max(0, Int((v - low) / (high - low) * Float(levels))))
        }
        var binOf = [Int](repeating: 0, count: image.count)
        var sums = [(l: Float, rg: Float, yb: Float, n: Float)](repeating: (0, 0, 0, 0), count: levels * levels * levels)
        for i in 0..<image.count {
            let bin = (level(image.lightness[i], 0, 1) * levels + level(image.redGreen[i], -1, 1)) * levels
                + level(image.yellowBlue[i], -1, 1)
            binOf[i] = bin
            sums[bin].l += image.lightness[i]; sums[bin].rg += image.redGreen[i]; sums[bin].yb += image.yellowBlue[i]; sums[bin].n += 1
        }
        let used = sums.indices.filter { sums[$0].n > 0 }
        let means = used.map { (sums[$0].l / sums[$0].n, sums[$0].rg / sums[$0].n, sums[$0].yb / sums[$0].n, sums[$0].n / Float(image.count)) }
        var rarityOfBin = [Float](repeating: 0, count: sums.count)
        for (a, bin) in used.enumerated() {
            var total = Float(0)
            for b in means {
                let dl = means[a].0 - b.0, da = means[a].1 - b.1, db = means[a].2 - b.2
                total += b.3 * (dl * dl + da * da + db * db).squareRoot()
            }
            rarityOfBin[bin] = total
        }
        return binOf.map { rarityOfBin[$0] }
    }
}

/// A box filter run as a horizontal then a vertical pass of running sums.
enum BoxBlur {
    static func blurred(_ values: [Float], width w: Int, height h: Int, radius: Int) -> [Float] {
        let rows = pass(values, lines: h, length: w, lineStep: w, step: 1, radius: radius)
        return pass(rows, lines: w, length: h, lineStep: 1, step: w, radius: radius)
    }

    /// The running mean along each of `lines` lines of `length` values, `step` apart, the lines
    /// starting `lineStep` apart; near the ends the mean is over the values that exist.
    private static func pass(_ values: [Float], lines: Int, length: Int, lineStep: Int, step: Int, radius: Int) -> [Float] {
        var out = [Float](repeating: 0, count: values.count)
        for line in 0..<lines {
            let start = line * lineStep
            var sum = Float(0)
            for k in 0..<min(length, radius + 1) { sum += values[start + k * step] }
            for k in 0..<length {
                if k > 0 {
                    if k + radius < length { sum += values[start + (k + radius) * step] }
                    if k - radius - 1 >= 0 { sum -= values[start + (k - radius - 1) * step] }
                }
                out[start + k * step] = sum / Float(min(length - 1, k + radius) - max(0, k - radius) + 1)
            }
        }
        return out
    }
}
