import Foundation
import ImageCore

/// Structural similarity (Wang, Bovik, Sheikh & Simoncelli, 2004), as commonly computed:
/// an 11x11 Gaussian window with sigma 1.5 (applied separably), K1 = 0.01, K2 = 0.03, L = 255, and
/// the mean of the SSIM map over the positions whose window lies wholly inside the image.
///
/// Pixels are first composited over white (so transparent areas compare as white, whatever colour
/// they hide), then reduced to Rec.601 luma Y = 0.299 R + 0.587 G + 0.114 B (or kept as R, G and B
/// for `.rgb`). This matches scikit-image's
/// `structural_similarity(x, y, gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=255)`
/// on the same planes.
public enum SSIM {
    /// What is compared.
    public enum Channels: Sendable, Equatable {
        /// Rec.601 luma: the usual single-number SSIM.
        case luma
        /// R, G and B each on their own; the result is their mean.
        case rgb
    }

    public static let k1 = 0.01
    public static let k2 = 0.03
    public static let dynamicRange = 255.0
    public static let sigma = 1.5
    /// Window radius: 11 x 11 (scikit-image's `int(3.5 * sigma + 0.5)`).
    public static let radius = 5

    /// Mean SSIM of the luma of two images of the same size; 1 means identical.
    public static func compare(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        compare(a, b, channels: .luma)
    }

    /// Mean SSIM over the chosen channels of two images of the same size.
    public static func compare(_ a: PixelBuffer, _ b: PixelBuffer, channels: Channels) -> Double {
        precondition(a.width == b.width && a.height == b.height,
                     "SSIM needs images of one size, not \(a.width)x\(a.height) and \(b.width)x\(b.height)")
        switch channels {
        case .luma:
            return compare(planeX: luma(a), planeY: luma(b), width: a.width, height: a.height)
        case .rgb:
            let pa = rgbPlanes(a), pb = rgbPlanes(b)
            var total = 0.0
            for c in 0..<3 { total += compare(planeX: pa[c], planeY: pb[c], width: a.width, height: a.height) }
            return total / 3
        }
    }

    /// SSIM of each of R, G and B (composited over white).
    public static func compareRGB(_ a: PixelBuffer, _ b: PixelBuffer) -> (r: Double, g: Double, b: Double) {
        precondition(a.width == b.width && a.height == b.height, "SSIM needs images of one size")
        let pa = rgbPlanes(a), pb = rgbPlanes(b)
        let s = (0..<3).map { compare(planeX: pa[$0], planeY: pb[$0], width: a.width, height: a.height) }
        return (s[0], s[1], s[2])
    }

    /// Rec.601 luma of each pixel, after compositing over white, row-major.
    public static func luma(_ image: PixelBuffer) -> [Double] {
        let n = image.width * image.height
        return [Double](unsafeUninitializedCapacity: n) { out, initialized in
            image.pixels.withUnsafeBufferPointer { p in
                for i in 0..<n {
                    let (r, g, b) = overWhite(p, i, hasAlpha: image.hasAlpha)
                    out[i] = 0.299 * r + 0.587 * g + 0.114 * b
                }
            }
            initialized = n
        }
    }

    /// R, G and B planes after compositing over white.
    public static func rgbPlanes(_ image: PixelBuffer) -> [[Double]] {
        let n = image.width * image.height
        var planes = [[Double]](repeating: [Double](repeating: 0, count: n), count: 3)
        image.pixels.withUnsafeBufferPointer { p in
            for i in 0..<n {
                let (r, g, b) = overWhite(p, i, hasAlpha: image.hasAlpha)
                planes[0][i] = r
                planes[1][i] = g
                planes[2][i] = b
            }
        }
        return planes
    }

    @inline(__always)
    private static func overWhite(_ p: UnsafeBufferPointer<UInt8>, _ i: Int, hasAlpha: Bool) -> (Double, Double, Double) {
        let r = Double(p[4 * i]), g = Double(p[4 * i + 1]), b = Double(p[4 * i + 2])
        guard hasAlpha else { return (r, g, b) }
        let a = Double(p[4 * i + 3]) / 255
        let white = 255 * (1 - a)
        return (r * a + white, g * a + white, b * a + white)
    }

    /// Normalised 1-D Gaussian of the given radius.
    public static func gaussian(radius: Int, sigma: Double = SSIM.sigma) -> [Double] {
        let raw = (-radius...radius).map { exp(-0.5 * Double($0 * $0) / (sigma * sigma)) }
        let sum = raw.reduce(0, +)
        return raw.map { $0 / sum }
    }

    /// Mean SSIM of two planes of `width` x `height` samples in 0...255.
    ///
    /// The window is 11 x 11 when the image allows; an image smaller than that in either direction
    /// uses the largest odd window that fits (same sigma, renormalised).
    public static func compare(planeX x: [Double], planeY y: [Double], width: Int, height: Int) -> Double {
        precondition(x.count == width * height && y.count == width * height && width > 0 && height > 0)
        let r = min(radius, (min(width, height) - 1) / 2)
        let g = gaussian(radius: r)
        let taps = 2 * r + 1
        let validW = width - 2 * r, validH = height - 2 * r
        let c1 = (k1 * dynamicRange) * (k1 * dynamicRange)
        let c2 = (k2 * dynamicRange) * (k2 * dynamicRange)

        // Horizontal pass of x, y, x², y² and xy over every row, valid columns only.
        let hn = validW * height
        var hx = [Double](repeating: 0, count: hn), hy = hx, hxx = hx, hyy = hx, hxy = hx
        x.withUnsafeBufferPointer { xp in
            y.withUnsafeBufferPointer { yp in
                for row in 0..<height {
                    let base = row * width
                    for c in 0..<validW {
                        var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
                        for k in 0..<taps {
                            let w = g[k]
                            let a = xp[base + c + k], b = yp[base + c + k]
                            sx += w * a
                            sy += w * b
                            sxx += w * a * a
                            syy += w * b * b
                            sxy += w * a * b
                        }
                        let o = row * validW + c
                        hx[o] = sx; hy[o] = sy; hxx[o] = sxx; hyy[o] = syy; hxy[o] = sxy
                    }
                }
            }
        }
        // Vertical pass and the SSIM map, summed.
        var total = 0.0
        for row in 0..<validH {
            for c in 0..<validW {
                var mx = 0.0, my = 0.0, mxx = 0.0, myy = 0.0, mxy = 0.0
                for k in 0..<taps {
                    let w = g[k]
                    let o = (row + k) * validW + c
                    mx += w * hx[o]
                    my += w * hy[o]
                    mxx += w * hxx[o]
                    myy += w * hyy[o]
                    mxy += w * hxy[o]
                }
                let vx = mxx - mx * mx, vy = myy - my * my, cxy = mxy - mx * my
                let numerator = (2 * mx * my + c1) * (2 * cxy + c2)
                let denominator = (mx * mx + my * my + c1) * (vx + vy + c2)
                total += numerator / denominator
            }
        }
        return total / Double(validW * validH)
    }
}
