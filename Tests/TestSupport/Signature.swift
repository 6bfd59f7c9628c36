import ImageCore

/// An 8x8 grid of exact-area RGB means, the same as Scripts/jpeg_reference.py computes with Pillow.
public enum Signature {
    public static let grid = 8

    public static func of(_ image: PixelBuffer) -> [Int] {
        var values: [Int] = []
        for gy in 0..<grid {
            let y0 = gy * image.height / grid, y1 = min(image.height, max(y0 + 1, (gy + 1) * image.height / grid))
            for gx in 0..<grid {
                let x0 = gx * image.width / grid, x1 = min(image.width, max(x0 + 1, (gx + 1) * image.width / grid))
                var sums = [0, 0, 0]
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        let p = image.pixel(x: x, y: y)
                        sums[0] += Int(p.r); sums[1] += Int(p.g); sums[2] += Int(p.b)
                    }
                }
                let count = max(1, (y1 - y0) * (x1 - x0))
                values += sums.map { Int((Double($0) / Double(count)).rounded()) }
            }
        }
        return values
    }

    public static func parse(hex: String) -> [Int] {
        let bytes = Array(hex.utf8)
        return stride(from: 0, to: bytes.count - 1, by: 2).map { Int(String(decoding: bytes[$0...$0 + 1], as: UTF8.self), radix: 16)! }
    }

    /// Largest absolute difference between two signatures.
    public static func maxDifference(_ a: [Int], _ b: [Int]) -> Int {
        zip(a, b).map { abs($0 - $1) }.max() ?? .max
    }
}

/// Synthetic images for tests that must run without the corpora.
public enum SyntheticImage {
    /// A smooth colour gradient with some detail: compresses like a photo, not like flat colour.
    public static func gradient(width: Int, height: Int) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                image.pixels[i] = UInt8(x * 255 / max(1, width - 1))
                image.pixels[i + 1] = UInt8(y * 255 / max(1, height - 1))
                image.pixels[i + 2] = UInt8((x + y) % 64 * 4)
            }
        }
        return image
    }
}
