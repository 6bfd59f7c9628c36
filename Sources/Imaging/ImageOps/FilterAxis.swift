import Foundation

extension Resampler {
    /// The Lanczos kernel with `a` lobes: sinc(x) * sinc(x / a) for |x| < a, else 0.
    public static func lanczosKernel(_ x: Double, lobes a: Double = 3) -> Double {
        let ax = abs(x)
        if ax < 1e-9 { return 1 }
        if ax >= a { return 0 }
        let px = Double.pi * ax
        return a * sin(px) * sin(px / a) / (px * px)
    }
}

/// The weights that resample one axis: for every output sample, a window of `count` consecutive
/// source samples starting at `starts[i]`, and their weights (normalised to sum 1).
///
/// Every window has the same length, so the inner loops need no per-output bounds. The weight rows
/// are `stride` long (a multiple of 4, zero-padded past `count`) so the horizontal pass can unroll by 4.
struct FilterAxis {
    /// Source samples each output reads (the longest window; shorter ones are zero-padded).
    let count: Int
    /// `count` rounded up to a multiple of 4: the length of each weight row.
    let stride: Int
    /// First source index of each output's window; `starts[i] + count <= sourceLength`.
    let starts: [Int]
    /// `outputs * stride` weights, row `i` for output `i`.
    let weights: [Float]
    /// Source indices the windows cover: `lowest ..< highest` (the horizontal pass may read up to
    /// `stride - count` samples past `highest`, with zero weights).
    let lowest: Int
    let highest: Int

    var outputs: Int { starts.count }

    /// Lanczos-`lobes` weights mapping `regionOrigin ..< regionOrigin + regionLength` (continuous
    /// source coordinates, pixel `p` covering `p ..< p + 1`) onto `outputLength` samples. Output `i`
    /// is centred on source coordinate `regionOrigin + (i + 0.5) * regionLength / outputLength - 0.5`
    /// (in pixel-index units). Taps past either end of the source are clamped to the edge sample.
    init(sourceLength: Int, regionOrigin: Double, regionLength: Double, outputLength: Int, lobes: Double = 3) {
        precondition(sourceLength > 0 && outputLength > 0 && regionLength > 0)
        let scale = regionLength / Double(outputLength)
        // Downscaling stretches the kernel by the scale factor so it also low-passes; upscaling
        // interpolates with the kernel at its natural width.
        let filterScale = max(scale, 1)
        let support = lobes * filterScale
        let invFilterScale = 1 / filterScale

        // Raw tap ranges first, to size the common window.
        var firsts = [Int](repeating: 0, count: outputLength)
        var lasts = [Int](repeating: 0, count: outputLength)
        var centres = [Double](repeating: 0, count: outputLength)
        var longest = 1
        for i in 0..<outputLength {
            let centre = regionOrigin + (Double(i) + 0.5) * scale - 0.5
            // Taps strictly inside the support; the kernel is zero at its edge.
            var first = Int((centre - support).rounded(.up))
            var last = Int((centre + support).rounded(.down))
            if Double(first) - centre <= -support { first += 1 }
            if Double(last) - centre >= support { last -= 1 }
            if last < first { first = Int(centre.rounded()); last = first }
            centres[i] = centre
            firsts[i] = first
            lasts[i] = last
            let clampedFirst = min(max(first, 0), sourceLength - 1)
            let clampedLast = min(max(last, 0), sourceLength - 1)
            longest = max(longest, clampedLast - clampedFirst + 1)
        }
        let count = min(longest, sourceLength)
        let stride = (count + 3) & ~3
        var starts = [Int](repeating: 0, count: outputLength)
        var weights = [Float](repeating: 0, count: outputLength * stride)
        var window = [Double](repeating: 0, count: count)
        // Consecutive taps are 1/filterScale apart in kernel coordinates, so theta = pi * x / lobes
        // steps by a constant: sin and cos follow by rotation, two trig calls per output instead of
        // two per tap. Then sin(pi * x) = sin(lobes * theta), by the triple-angle formula for 3 lobes.
        let step = Double.pi * invFilterScale / lobes
        let (sinStep, cosStep) = (sin(step), cos(step))
        let tripleAngle = lobes == 3
        for i in 0..<outputLength {
            let clampedFirst = min(max(firsts[i], 0), sourceLength - 1)
            let start = min(clampedFirst, sourceLength - count)
            for k in 0..<count { window[k] = 0 }
            var sum = 0.0
            let theta = Double.pi * (Double(firsts[i]) - centres[i]) * invFilterScale / lobes
            var (sinTheta, cosTheta) = (sin(theta), cos(theta))
            for j in firsts[i]...lasts[i] {
                let x = (Double(j) - centres[i]) * invFilterScale
                let w: Double
                if abs(x) < 1e-9 {
                    w = 1
                } else if abs(x) >= lobes {
                    w = 0
                } else if tripleAngle {
                    let sinPiX = sinTheta * (3 - 4 * sinTheta * sinTheta)
                    let px = Double.pi * x
                    w = lobes * sinPiX * sinTheta / (px * px)
                } else {
                    w = Resampler.lanczosKernel(x, lobes: lobes)
                }
                let clamped = min(max(j, 0), sourceLength - 1)
                window[clamped - start] += w
                sum += w
                (sinTheta, cosTheta) = (sinTheta * cosStep + cosTheta * sinStep, cosTheta * cosStep - sinTheta * sinStep)
            }
            // Near-zero sums cannot happen for Lanczos-3 with at least one full lobe in range, but a
            // degenerate window falls back to the nearest sample rather than dividing by ~0.
            if abs(sum) < 1e-8 {
                for k in 0..<count { window[k] = 0 }
                let nearest = min(max(Int(centres[i].rounded()), 0), sourceLength - 1)
                window[nearest - start] = 1
                sum = 1
            }
            starts[i] = start
            let inv = 1 / sum
            for k in 0..<count { weights[i * stride + k] = Float(window[k] * inv) }
        }
        self.count = count
        self.stride = stride
        self.starts = starts
        self.weights = weights
        self.lowest = starts.min() ?? 0
        self.highest = (starts.max() ?? 0) + count
    }
}
