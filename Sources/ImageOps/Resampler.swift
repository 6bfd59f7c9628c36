import ImageCore

/// A source region in pixels of the source image; may be fractional.
public struct SourceRegion: Sendable, Equatable {
    public var x: Double, y: Double, width: Double, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

/// Placeholder until the Lanczos resampler lands: nearest neighbour.
public enum Resampler {
    public static func resize(_ source: PixelBuffer, region: SourceRegion? = nil, width: Int, height: Int) -> PixelBuffer {
        let r = region ?? SourceRegion(x: 0, y: 0, width: Double(source.width), height: Double(source.height))
        var out = PixelBuffer(width: width, height: height, hasAlpha: source.hasAlpha)
        for y in 0..<height {
            let sy = min(source.height - 1, Int(r.y + (Double(y) + 0.5) * r.height / Double(height)))
            for x in 0..<width {
                let sx = min(source.width - 1, Int(r.x + (Double(x) + 0.5) * r.width / Double(width)))
                for c in 0..<4 { out.pixels[(y * width + x) * 4 + c] = source.pixels[(sy * source.width + sx) * 4 + c] }
            }
        }
        return out
    }
}
