import Foundation
import ImageCore
import TestSupport
import Testing

/// A test image and what the checks need to know about it.
struct TestImage: Sendable, CustomTestStringConvertible {
    let name: String
    let image: PixelBuffer
    /// Whether the format can carry this shape within 5%: its luma counts store the shorter side
    /// in sevenths of the longer (fifths with alpha), so 100x13 or 37x100 cannot be.
    let shapeFitsFormat: Bool

    var testDescription: String { "\(name) \(image.width)x\(image.height)" }

    var hasTranslucency: Bool { stride(from: 3, to: image.pixels.count, by: 4).contains { image.pixels[$0] < 255 } }

    /// The source's mean colour, each pixel's colour weighted by its alpha (0...255), and mean alpha.
    var meanColour: (r: Double, g: Double, b: Double, a: Double) {
        var r = 0.0, g = 0.0, b = 0.0, a = 0.0
        let p = image.pixels
        for i in stride(from: 0, to: p.count, by: 4) {
            let w = Double(p[i + 3])
            r += Double(p[i]) * w
            g += Double(p[i + 1]) * w
            b += Double(p[i + 2]) * w
            a += w
        }
        let n = Double(image.width * image.height)
        guard a > 0 else { return (0, 0, 0, 0) }
        return (r / a, g / a, b / a, a / n)
    }

    static func make(_ name: String, _ width: Int, _ height: Int, shapeFitsFormat: Bool,
                     _ pixel: (Int, Int, inout SeededRandom) -> (Int, Int, Int, Int)) -> TestImage {
        var random = SeededRandom(seed: UInt64(truncatingIfNeeded: name.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }))
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b, a) = pixel(x, y, &random)
                for v in [r, g, b, a] { pixels.append(UInt8(clamping: v)) }
            }
        }
        let translucent = stride(from: 3, to: pixels.count, by: 4).contains { pixels[$0] < 255 }
        return TestImage(name: name, image: PixelBuffer(width: width, height: height, hasAlpha: translucent, pixels: pixels),
                         shapeFitsFormat: shapeFitsFormat)
    }

    /// Smooth shapes plus grain, roughly what a downscaled photograph looks like.
    static func photoLike(_ x: Int, _ y: Int, _ random: inout SeededRandom) -> (Int, Int, Int) {
        let fx = Double(x) / 17, fy = Double(y) / 23
        let grain = { (r: inout SeededRandom) in Int.random(in: -18...18, using: &r) }
        let r = 120 + Int(80 * sin(fx) * cos(fy)) + grain(&random)
        let g = 100 + Int(60 * cos(fx * 0.7 + fy)) + grain(&random)
        let b = 90 + Int(70 * sin(fy * 1.3 - fx * 0.4)) + grain(&random)
        return (r, g, b)
    }

    static let all: [TestImage] = [
        make("horizontal gradient", 100, 75, shapeFitsFormat: true) { x, y, _ in (x * 255 / 99, y * 255 / 74, 128, 255) },
        make("diagonal gradient", 75, 100, shapeFitsFormat: true) { x, y, _ in ((x + y) * 255 / 173, 255 - y * 2, 40 + x, 255) },
        make("photo-like", 100, 100, shapeFitsFormat: true) { x, y, r in let c = photoLike(x, y, &r); return (c.0, c.1, c.2, 255) },
        // Alpha falls off from the centre; fully transparent pixels hold random colour that must not leak.
        make("translucent blob", 37, 100, shapeFitsFormat: false) { x, y, r in
            let dx = Double(x - 18) / 18, dy = Double(y - 50) / 50
            let alpha = max(0, 255 - Int(255 * (dx * dx + dy * dy)))
            if alpha == 0 { return (Int.random(in: 0...255, using: &r), Int.random(in: 0...255, using: &r), Int.random(in: 0...255, using: &r), 0) }
            return (230, 60 + y, 30 + 5 * x, alpha)
        },
        make("single pixel", 1, 1, shapeFitsFormat: true) { _, _, _ in (200, 40, 90, 255) },
        make("single translucent pixel", 1, 1, shapeFitsFormat: true) { _, _, _ in (30, 200, 120, 128) },
        make("photo-like strip", 100, 13, shapeFitsFormat: false) { x, y, r in let c = photoLike(x, y, &r); return (c.0, c.1, c.2, 255) },
        // 7 x 5 / 14 = 2.5 exactly: the luma count is a rounding tie.
        make("rounding tie", 5, 14, shapeFitsFormat: false) { x, y, r in let c = photoLike(x * 9, y * 7, &r); return (c.0, c.1, c.2, 255) },
        // With alpha the limit is 5, and 5 x 50 / 100 = 2.5: a tie again, and a shape the format cannot hold.
        make("translucent tie", 50, 100, shapeFitsFormat: false) { x, y, _ in (255 - 5 * x, 2 * y, 128, 55 + 2 * y) },
        make("fully transparent", 20, 20, shapeFitsFormat: true) { _, _, r in
            (Int.random(in: 0...255, using: &r), Int.random(in: 0...255, using: &r), Int.random(in: 0...255, using: &r), 0)
        },
        make("flat colour", 64, 48, shapeFitsFormat: true) { _, _, _ in (12, 160, 220, 255) },
        make("speckled alpha", 100, 100, shapeFitsFormat: true) { x, y, r in
            let c = photoLike(x, y, &r)
            return (c.0, c.1, c.2, Int.random(in: 0...255, using: &r))
        },
        make("checkerboard", 100, 100, shapeFitsFormat: true) { x, y, _ in (x / 10 + y / 10) % 2 == 0 ? (250, 250, 250, 255) : (5, 5, 5, 255) },
        make("thin column", 3, 100, shapeFitsFormat: false) { _, y, _ in (y * 2, 255 - y * 2, 90, 255) },
    ]
}

/// Hex for messages and for comparing with the Python side's output.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }.joined()
}

func bytes(hex: String) -> [UInt8]? {
    let chars = Array(hex.utf8)
    guard chars.count % 2 == 0 else { return nil }
    var result: [UInt8] = []
    result.reserveCapacity(chars.count / 2)
    var i = 0
    while i < chars.count {
        guard let byte = UInt8(String(decoding: chars[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
        result.append(byte)
        i += 2
    }
    return result
}
