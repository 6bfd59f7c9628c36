import Foundation
import ImageCore

/// Deterministic test images, generated so that tests need no files and no decoder.
enum TestImages {
    /// A small linear congruential generator (Knuth's MMIX constants): the same numbers on every run.
    struct Random {
        var state: UInt64
        init(seed: UInt64) { state = seed &* 6364136223846793005 &+ 1442695040888963407 }
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        /// Uniform in 0 ..< bound.
        mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    static func solid(width: Int, height: Int, _ rgba: (UInt8, UInt8, UInt8, UInt8), hasAlpha: Bool) -> PixelBuffer {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for i in 0..<(width * height) {
            pixels[4 * i] = rgba.0; pixels[4 * i + 1] = rgba.1; pixels[4 * i + 2] = rgba.2; pixels[4 * i + 3] = rgba.3
        }
        return PixelBuffer(width: width, height: height, hasAlpha: hasAlpha, pixels: pixels)
    }

    /// Smooth gradients, a few sharp-edged shapes, fine texture and a little noise: something with
    /// the mix of low and high frequencies a photo has. Alpha (when asked) is a soft radial falloff
    /// with a fully transparent corner region.
    static func photoLike(width: Int, height: Int, hasAlpha: Bool = false, seed: UInt64 = 1) -> PixelBuffer {
        var rng = Random(seed: seed)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let fw = Double(width), fh = Double(height)
        for y in 0..<height {
            for x in 0..<width {
                let u = Double(x) / fw, v = Double(y) / fh
                var r = 60 + 120 * u + 40 * sin(v * 9)
                var g = 90 + 100 * v + 30 * sin(u * 13 + v * 5)
                var b = 140 - 80 * u * v + 25 * cos(u * 21)
                // Shapes with hard edges.
                let dx = u - 0.35, dy = v - 0.45
                if dx * dx + dy * dy < 0.04 { r = 230; g = 200 - 60 * v; b = 40 }
                if u > 0.6 && u < 0.8 && v > 0.2 && v < 0.7 { r *= 0.4; g *= 0.5; b = 220 }
                // Fine texture (a few pixels per period) and noise.
                let texture = 18 * sin(Double(x) * 0.9) * sin(Double(y) * 1.3)
                let noise = Double(rng.next(below: 17)) - 8
                r += texture + noise; g += texture + noise; b += texture + noise
                let i = 4 * (y * width + x)
                pixels[i] = UInt8(clamping: Int(r.rounded()))
                pixels[i + 1] = UInt8(clamping: Int(g.rounded()))
                pixels[i + 2] = UInt8(clamping: Int(b.rounded()))
                if hasAlpha {
                    let d = sqrt((u - 0.5) * (u - 0.5) + (v - 0.5) * (v - 0.5))
                    pixels[i + 3] = u < 0.1 && v < 0.1 ? 0 : UInt8(clamping: Int((255 * (1.2 - d * 1.6)).rounded()))
                } else {
                    pixels[i + 3] = 255
                }
            }
        }
        return PixelBuffer(width: width, height: height, hasAlpha: hasAlpha, pixels: pixels)
    }

    /// Reads a binary PAM (P7) file with DEPTH 3 or 4 and MAXVAL 255.
    static func readPAM(_ url: URL) throws -> PixelBuffer {
        let data = [UInt8](try Data(contentsOf: url))
        guard let end = findEndOfHeader(data) else { throw CocoaError(.fileReadCorruptFile) }
        let header = String(decoding: data[0..<end.headerEnd], as: UTF8.self)
        var fields: [String: String] = [:]
        for line in header.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard header.hasPrefix("P7"), let w = Int(fields["WIDTH"] ?? ""), let h = Int(fields["HEIGHT"] ?? ""),
              let depth = Int(fields["DEPTH"] ?? ""), depth == 3 || depth == 4, fields["MAXVAL"] == "255",
              data.count - end.dataStart >= w * h * depth
        else { throw CocoaError(.fileReadCorruptFile) }
        var pixels = [UInt8](repeating: 255, count: w * h * 4)
        var alpha = false
        for i in 0..<(w * h) {
            for c in 0..<depth { pixels[4 * i + c] = data[end.dataStart + depth * i + c] }
            if depth == 4 && pixels[4 * i + 3] != 255 { alpha = true }
        }
        return PixelBuffer(width: w, height: h, hasAlpha: alpha, pixels: pixels)
    }

    /// Writes a binary PAM (P7), RGB_ALPHA, which numpy reads in one line (see SSIMTests).
    static func writePAM(_ image: PixelBuffer, to url: URL) throws {
        let header = "P7\nWIDTH \(image.width)\nHEIGHT \(image.height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
        try Data(Array(header.utf8) + image.pixels).write(to: url)
    }

    private static func findEndOfHeader(_ data: [UInt8]) -> (headerEnd: Int, dataStart: Int)? {
        let marker = Array("ENDHDR\n".utf8)
        guard data.count >= marker.count else { return nil }
        for i in 0...(min(data.count, 512) - marker.count) where Array(data[i..<i + marker.count]) == marker {
            return (i, i + marker.count)
        }
        return nil
    }
}
