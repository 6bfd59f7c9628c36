import ImageCore
@testable import ImageOps
import Testing
import TestSupport

/// `SharpDetail` against its definition written out pixel by pixel: the mean |4c - l - r - u - d|
/// of green over the sampled interior pixels (every second one along an axis with two or more
/// pixels per cell) that fall in each cell, cell = floor(x * cells / pixels).
@Suite("Sharp detail")
struct SharpDetailTests {
    static func reference(_ image: PixelBuffer, width: Int, height: Int) -> [Float] {
        let (w, h) = (image.width, image.height)
        guard w >= 3, h >= 3 else { return [Float](repeating: 0, count: width * height) }
        let stepX = w >= 2 * width ? 2 : 1, stepY = h >= 2 * height ? 2 : 1
        func green(_ x: Int, _ y: Int) -> Int { Int(image.pixels[(y * w + x) * 4 + 1]) }
        var totals = [Int](repeating: 0, count: width * height), counts = totals
        for y in stride(from: 1, to: h - 1, by: stepY) {
            for x in stride(from: 1, to: w - 1, by: stepX) {
                let cell = (y * height / h) * width + x * width / w
                totals[cell] += abs(4 * green(x, y) - green(x - 1, y) - green(x + 1, y) - green(x, y - 1) - green(x, y + 1))
                counts[cell] += 1
            }
        }
        return zip(totals, counts).map { $1 > 0 ? Float($0) / Float($1) : 0 }
    }

    /// Noise in one half, a smooth ramp in the other, so cells hold both large and small values.
    static func image(width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        var random = SeededRandom(seed: seed)
        var image = PixelBuffer(width: width, height: height, hasAlpha: true)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                for c in 0..<4 {
                    image.pixels[i + c] = x < width / 2 ? UInt8(truncatingIfNeeded: random.next()) : UInt8((x + 3 * y + c) & 255)
                }
            }
        }
        return image
    }

    @Test("equals its definition", arguments: [
        (750, 500, 64, 43),   // two pixels a cell or more both ways: every second pixel
        (1000, 667, 64, 43),
        (100, 60, 64, 38),    // under two a cell: every pixel
        (130, 700, 64, 40),   // every pixel across, every second one down
        (5, 3, 4, 2),
        (3, 3, 8, 8),
        (640, 3, 64, 1),
    ])
    func matchesDefinition(_ size: (Int, Int, Int, Int)) {
        let (w, h, cellsX, cellsY) = size
        let image = Self.image(width: w, height: h, seed: UInt64(w * 7919 + h))
        let detail = SharpDetail(of: image, width: cellsX, height: cellsY)
        #expect(detail.values == Self.reference(image, width: cellsX, height: cellsY), "\(w)x\(h) over \(cellsX)x\(cellsY)")
    }

    @Test("an image too small to have an interior has no detail")
    func tooSmall() {
        let detail = SharpDetail(of: Self.image(width: 2, height: 9, seed: 1), width: 4, height: 4)
        #expect(detail.values == [Float](repeating: 0, count: 16))
    }
}
