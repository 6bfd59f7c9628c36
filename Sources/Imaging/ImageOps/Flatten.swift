import ImageCore

extension PixelBuffer {
    /// The image composited over an opaque colour (white by default). Formats without alpha (JPEG)
    /// would otherwise show whatever colour a transparent pixel happens to store, often black.
    public func flattened(red: UInt8 = 255, green: UInt8 = 255, blue: UInt8 = 255) -> PixelBuffer {
        guard hasAlpha else { return self }
        var out = pixels
        let background = [Int(red), Int(green), Int(blue)]
        out.withUnsafeMutableBufferPointer { p in
            for i in stride(from: 0, to: p.count, by: 4) {
                let alpha = Int(p[i + 3])
                guard alpha != 255 else { continue }
                for c in 0..<3 {
                    p[i + c] = UInt8((Int(p[i + c]) * alpha + background[c] * (255 - alpha) + 127) / 255)
                }
                p[i + 3] = 255
            }
        }
        return PixelBuffer(width: width, height: height, hasAlpha: false, pixels: out)
    }
}
