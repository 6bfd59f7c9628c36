import Foundation
import ImageCore
import ImageOps

/// A deliberately plain Lanczos-3 resampler written straight from the definition, in Double and
/// with no window sharing, padding, fixed windows, box pre-reduction or SIMD: the yardstick the
/// fast one is held to. Returns unrounded RGBA (colour not premultiplied).
enum ReferenceResampler {
    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        if abs(x) >= 3 { return 0 }
        return 3 * sin(Double.pi * x) * sin(Double.pi * x / 3) / (Double.pi * Double.pi * x * x)
    }

    /// For each output sample, (clamped source index, normalised weight) pairs.
    static func taps(sourceLength: Int, origin: Double, length: Double, outputs: Int) -> [[(Int, Double)]] {
        let scale = length / Double(outputs)
        let stretch = max(scale, 1)
        return (0..<outputs).map { i in
            let centre = origin + (Double(i) + 0.5) * scale - 0.5
            let lo = Int((centre - 3 * stretch).rounded(.down))
            let hi = Int((centre + 3 * stretch).rounded(.up))
            var list: [(Int, Double)] = []
            var sum = 0.0
            for j in lo...hi {
                let w = lanczos3((Double(j) - centre) / stretch)
                if w == 0 { continue }
                list.append((min(max(j, 0), sourceLength - 1), w))
                sum += w
            }
            return list.map { ($0.0, $0.1 / sum) }
        }
    }

    static func resize(_ image: PixelBuffer, region: SourceRegion? = nil, width: Int, height: Int) -> [SIMD4<Double>] {
        let r = region ?? SourceRegion(x: 0, y: 0, width: Double(image.width), height: Double(image.height))
        let tx = taps(sourceLength: image.width, origin: r.x, length: r.width, outputs: width)
        let ty = taps(sourceLength: image.height, origin: r.y, length: r.height, outputs: height)
        var out = [SIMD4<Double>](repeating: .zero, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var acc = SIMD4<Double>.zero
                for (sy, wy) in ty[y] {
                    for (sx, wx) in tx[x] {
                        let p = image.pixel(x: sx, y: sy)
                        var v = SIMD4<Double>(Double(p.r), Double(p.g), Double(p.b), Double(p.a))
                        if image.hasAlpha {
                            let a = v[3] / 255
                            v = SIMD4(v[0] * a, v[1] * a, v[2] * a, v[3])
                        }
                        acc += v * (wx * wy)
                    }
                }
                if image.hasAlpha {
                    let a = acc[3]
                    acc = a > 0 ? SIMD4(acc[0] * 255 / a, acc[1] * 255 / a, acc[2] * 255 / a, a) : .zero
                } else {
                    acc[3] = 255
                }
                out[y * width + x] = acc
            }
        }
        return out
    }

    /// The largest difference between `fast` and the rounded, clamped reference, over channels
    /// that matter (colour is ignored where the reference alpha is below 1.5: it is then invisible
    /// and, at alpha 0 or 1, hardly determined).
    static func maxDifference(_ fast: PixelBuffer, _ reference: [SIMD4<Double>]) -> Int {
        var worst = 0
        for y in 0..<fast.height {
            for x in 0..<fast.width {
                let p = fast.pixel(x: x, y: y)
                let got = [Int(p.r), Int(p.g), Int(p.b), Int(p.a)]
                let want = reference[y * fast.width + x]
                for c in 0..<4 {
                    if c < 3 && want[3] < 1.5 { continue }
                    let expected = Int(min(255, max(0, want[c])).rounded())
                    worst = max(worst, abs(got[c] - expected))
                }
            }
        }
        return worst
    }
}
