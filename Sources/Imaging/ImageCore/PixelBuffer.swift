/// An 8-bit RGBA image in memory, rows top to bottom, no padding between rows.
///
/// Colour channels are *not* premultiplied: that is what every codec reads and writes. Resampling
/// premultiplies internally, so that transparent pixels do not bleed their colour into edges.
public struct PixelBuffer: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `false` when every pixel is known to be opaque, so work on alpha can be skipped.
    public var hasAlpha: Bool
    public var pixels: [UInt8]

    public static let bytesPerPixel = 4

    public var rowBytes: Int { width * Self.bytesPerPixel }

    /// An opaque black image. Callers check dimensions against `DecodeLimits` first.
    public init(width: Int, height: Int, hasAlpha: Bool = false) {
        precondition(width > 0 && height > 0, "empty PixelBuffer")
        self.width = width
        self.height = height
        self.hasAlpha = hasAlpha
        self.pixels = [UInt8](repeating: 0, count: width * height * Self.bytesPerPixel)
        if !hasAlpha {
            for alpha in stride(from: 3, to: pixels.count, by: 4) { pixels[alpha] = 255 }
        }
    }

    public init(width: Int, height: Int, hasAlpha: Bool, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * Self.bytesPerPixel,
                     "PixelBuffer size does not match its pixels")
        self.width = width
        self.height = height
        self.hasAlpha = hasAlpha
        self.pixels = pixels
    }

    /// The RGBA value at (x, y), for tests and diagnostics; hot loops work on `pixels` directly.
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * Self.bytesPerPixel
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }
}
