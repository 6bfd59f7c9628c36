import ImageCore

/// An opaque RGB picture being painted, in floating point so layers blend without banding.
struct SceneCanvas {
    let width: Int
    let height: Int
    var rgb: [Float]

    init(width: Int, height: Int, fill: (Float, Float, Float) = (0, 0, 0)) {
        self.width = width
        self.height = height
        rgb = [Float](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) { (rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]) = fill }
    }

    /// A photo's pixels (alpha ignored), values 0...255.
    init(_ image: PixelBuffer) {
        width = image.width
        height = image.height
        rgb = [Float](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            for c in 0..<3 { rgb[3 * i + c] = Float(image.pixels[4 * i + c]) }
        }
    }

    /// Mixes `colour` into (x, y) by `alpha` (0...1).
    mutating func blend(_ x: Int, _ y: Int, _ colour: (Float, Float, Float), _ alpha: Float) {
        guard alpha > 0, x >= 0, y >= 0, x < width, y < height else { return }
        let i = 3 * (y * width + x), a = min(1, alpha)
        rgb[i] += (colour.0 - rgb[i]) * a
        rgb[i + 1] += (colour.1 - rgb[i + 1]) * a
        rgb[i + 2] += (colour.2 - rgb[i + 2]) * a
    }

    func colour(_ x: Int, _ y: Int) -> (Float, Float, Float) {
        let i = 3 * (y * width + x)
        return (rgb[i], rgb[i + 1], rgb[i + 2])
    }

    /// Adds seeded grain of about ±`amplitude` levels, as a camera sensor leaves it.
    mutating func addGrain(_ amplitude: Float, _ random: inout SceneRandom) {
        for i in rgb.indices.striding(by: 3) {
            let n = Float(Int(random.next() % 2001) - 1000) / 1000 * amplitude
            rgb[i] += n; rgb[i + 1] += n; rgb[i + 2] += n
        }
    }

    var pixelBuffer: PixelBuffer {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for i in 0..<(width * height) {
            for c in 0..<3 { pixels[4 * i + c] = UInt8(max(0, min(255, rgb[3 * i + c].rounded()))) }
        }
        return PixelBuffer(width: width, height: height, hasAlpha: false, pixels: pixels)
    }
}

/// The shapes products and clutter are drawn in, with anti-aliased edges.
enum SceneShape: CaseIterable {
    case ellipse, roundedRectangle

    /// How much of pixel (px, py) lies inside the shape filling `rect` (0...1).
    func coverage(_ px: Double, _ py: Double, in rect: SceneRect) -> Float {
        let (cx, cy) = (rect.x + rect.width / 2, rect.y + rect.height / 2)
        let (a, b) = (rect.width / 2, rect.height / 2)
        let (dx, dy) = (px + 0.5 - cx, py + 0.5 - cy)
        let distance: Double  // signed, in pixels: negative inside
        switch self {
        case .ellipse:
            distance = (((dx / a) * (dx / a) + (dy / b) * (dy / b)).squareRoot() - 1) * min(a, b)
        case .roundedRectangle:
            let r = 0.2 * min(a, b)
            let qx = abs(dx) - (a - r), qy = abs(dy) - (b - r)
            let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
            distance = outside + min(max(qx, qy), 0) - r
        }
        return Float(max(0, min(1, 0.5 - distance)))
    }
}

extension Range where Bound == Int {
    func striding(by step: Int) -> StrideTo<Int> { stride(from: lowerBound, to: upperBound, by: step) }
}
