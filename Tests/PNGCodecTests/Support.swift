import Foundation
import ImageCore
import PNGCodec
import TestSupport

/// Small helpers shared by the PNG tests.
enum PNGTestSupport {
    static let imageFolder = TestPaths.testImages.appendingPathComponent("png")

    /// A synthetic test image made by `Scripts/png_reference.py make-test-images`.
    static func testImage(_ name: String) throws -> [UInt8] {
        try TestPaths.bytes(imageFolder.appendingPathComponent(name))
    }

    /// The error a throwing call raised, or nil when it returned.
    static func error<T>(_ body: () throws(ImageError) -> T) -> ImageError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    /// The chunk types of a PNG, in order (a bounds-checked walk; stops at anything odd).
    static func chunkTypes(_ data: [UInt8]) -> [String] {
        var types: [String] = []
        var offset = 8
        while offset + 12 <= data.count {
            let length = Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            types.append(String(decoding: data[offset + 4..<offset + 8], as: UTF8.self))
            offset += 12 + length
        }
        return types
    }

    /// A deterministic pseudo-random RGBA image (xorshift), with alpha forced to 255 when opaque.
    static func noiseImage(width: Int, height: Int, hasAlpha: Bool, seed: UInt64) -> PixelBuffer {
        var state = seed | 1
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for i in pixels.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            pixels[i] = UInt8(truncatingIfNeeded: state >> 24)
        }
        if !hasAlpha {
            for a in stride(from: 3, to: pixels.count, by: 4) { pixels[a] = 255 }
        }
        return PixelBuffer(width: width, height: height, hasAlpha: hasAlpha, pixels: pixels)
    }

    /// Reference box reduction in floating point, written apart from the codec's integer one:
    /// alpha-weighted colour, partial edge blocks averaged over the pixels they hold.
    static func boxReduce(_ image: PixelBuffer, factor k: Int) -> PixelBuffer {
        let ow = (image.width + k - 1) / k, oh = (image.height + k - 1) / k
        var out = [UInt8](repeating: 0, count: ow * oh * 4)
        for oy in 0..<oh {
            for ox in 0..<ow {
                var sum = [Double](repeating: 0, count: 4)
                var count = 0.0
                for y in oy * k..<min(oy * k + k, image.height) {
                    for x in ox * k..<min(ox * k + k, image.width) {
                        let p = image.pixel(x: x, y: y)
                        let a = image.hasAlpha ? Double(p.a) : 255
                        sum[0] += Double(p.r) * a
                        sum[1] += Double(p.g) * a
                        sum[2] += Double(p.b) * a
                        sum[3] += a
                        count += 1
                    }
                }
                let o = (oy * ow + ox) * 4
                if sum[3] > 0 {
                    for c in 0..<3 { out[o + c] = UInt8(min(255, (sum[c] / sum[3]).rounded())) }
                }
                out[o + 3] = UInt8(min(255, (sum[3] / count).rounded()))
            }
        }
        return PixelBuffer(width: ow, height: oh, hasAlpha: image.hasAlpha, pixels: out)
    }

    /// Largest per-channel difference between two same-size images.
    static func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        precondition(a.width == b.width && a.height == b.height)
        var worst = 0
        for i in a.pixels.indices { worst = max(worst, abs(Int(a.pixels[i]) - Int(b.pixels[i]))) }
        return worst
    }
}
