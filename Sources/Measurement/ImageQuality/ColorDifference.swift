import Foundation
import ImageCore

/// CIEDE2000 colour differences (Sharma, Wu and Dalal, 2005), for checking colour conversions
/// against a reference: about 1 is the smallest difference people see side by side, 2 is plain.
public enum ColorDifference {
    public struct Lab: Sendable, Equatable {
        public var l: Double, a: Double, b: Double
        public init(l: Double, a: Double, b: Double) { (self.l, self.a, self.b) = (l, a, b) }
    }

    /// Mean and largest difference over the pixels both images share (same size required), alpha ignored.
    public static func compare(_ x: PixelBuffer, _ y: PixelBuffer) -> (mean: Double, max: Double)? {
        guard x.width == y.width, x.height == y.height else { return nil }
        var total = 0.0, largest = 0.0
        let count = x.width * x.height
        for i in 0..<count {
            let p = i * 4
            let d = ciede2000(lab(fromSRGB: x.pixels[p], x.pixels[p + 1], x.pixels[p + 2]),
                              lab(fromSRGB: y.pixels[p], y.pixels[p + 1], y.pixels[p + 2]))
            total += d
            largest = max(largest, d)
        }
        return (total / Double(count), largest)
    }

    /// CIELAB (D65 white) of an 8-bit sRGB colour.
    public static func lab(fromSRGB r: UInt8, _ g: UInt8, _ b: UInt8) -> Lab {
        let (lr, lg, lb) = (linear(r), linear(g), linear(b))
        // sRGB's matrix to XYZ, normalised by D65's white.
        let x = (0.4124564 * lr + 0.3575761 * lg + 0.1804375 * lb) / 0.95047
        let y = 0.2126729 * lr + 0.7151522 * lg + 0.0721750 * lb
        let z = (0.0193339 * lr + 0.1191920 * lg + 0.9503041 * lb) / 1.08883
        let (fx, fy, fz) = (f(x), f(y), f(z))
        return Lab(l: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz))
    }

    private static let linearTable: [Double] = (0...255).map { v in
        let c = Double(v) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    private static func linear(_ v: UInt8) -> Double { linearTable[Int(v)] }

    private static func f(_ t: Double) -> Double {
        t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116
    }

    /// ΔE00 between two CIELAB colours, with kL = kC = kH = 1.
    public static func ciede2000(_ x: Lab, _ y: Lab) -> Double {
        let c1 = (x.a * x.a + x.b * x.b).squareRoot(), c2 = (y.a * y.a + y.b * y.b).squareRoot()
        let meanC = (c1 + c2) / 2
        let c7 = pow(meanC, 7)
        let g = 0.5 * (1 - (c7 / (c7 + pow(25, 7))).squareRoot())
        let a1 = (1 + g) * x.a, a2 = (1 + g) * y.a
        let cp1 = (a1 * a1 + x.b * x.b).squareRoot(), cp2 = (a2 * a2 + y.b * y.b).squareRoot()
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = atan2(b, a) * 180 / .pi
            return h < 0 ? h + 360 : h
        }
        let h1 = hue(x.b, a1), h2 = hue(y.b, a2)

        let dL = y.l - x.l
        let dC = cp2 - cp1
        var dh = 0.0
        if cp1 * cp2 != 0 {
            dh = h2 - h1
            if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        }
        let dH = 2 * (cp1 * cp2).squareRoot() * sin(dh / 2 * .pi / 180)

        let meanL = (x.l + y.l) / 2
        let meanCp = (cp1 + cp2) / 2
        var meanH = h1 + h2
        if cp1 * cp2 != 0 {
            if abs(h1 - h2) <= 180 { meanH /= 2 } else { meanH = (h1 + h2 < 360) ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2 }
        }
        let radians = { (degrees: Double) in degrees * .pi / 180 }
        let t = 1 - 0.17 * cos(radians(meanH - 30)) + 0.24 * cos(radians(2 * meanH))
            + 0.32 * cos(radians(3 * meanH + 6)) - 0.20 * cos(radians(4 * meanH - 63))
        let dTheta = 30 * exp(-pow((meanH - 275) / 25, 2))
        let cp7 = pow(meanCp, 7)
        let rc = 2 * (cp7 / (cp7 + pow(25, 7))).squareRoot()
        let lTerm = pow(meanL - 50, 2)
        let sl = 1 + 0.015 * lTerm / (20 + lTerm).squareRoot()
        let sc = 1 + 0.045 * meanCp
        let sh = 1 + 0.015 * meanCp * t
        let rt = -sin(radians(2 * dTheta)) * rc
        let l = dL / sl, c = dC / sc, h = dH / sh
        return (l * l + c * c + h * h + rt * c * h).squareRoot()
    }
}
