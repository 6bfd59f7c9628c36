import Foundation
import ImageCore
import TestSupport

/// Generated photos for the pad backgrounds' tests, each with a known edge or backdrop colour.
enum PadScenes {
    static let sweep: (red: UInt8, green: UInt8, blue: UInt8) = (235, 235, 235)
    static let night: (red: UInt8, green: UInt8, blue: UInt8) = (18, 22, 40)
    static let sky: (red: UInt8, green: UInt8, blue: UInt8) = (70, 130, 200)
    static let sand: (red: UInt8, green: UInt8, blue: UInt8) = (210, 170, 110)

    /// A product shot: a light grey sweep with a little sensor noise, a red and blue product in the
    /// middle with a soft shadow under it, and a stand of the product's colour that reaches the
    /// bottom edge over a third of its width (the edge's colour must still come out as the sweep).
    static func productOnSweep(width: Int = 900, height: Int = 600) -> PixelBuffer {
        var random = SeededRandom(seed: 11)
        return scene(width: width, height: height) { u, v in
            let noise = random.uniform(-3...3)
            if u > 0.3 && u < 0.7 && v > 0.25 && v < 0.7 { return v < 0.45 ? (200, 30, 40) : (30, 60, 190) }
            if u > 0.33 && u < 0.66 && v >= 0.7 { return (170, 25, 35) }
            let shadow = v > 0.7 && u > 0.25 && u < 0.75 ? 25.0 : 0
            let level = Double(sweep.red) - shadow + noise
            return (level, level, level)
        }
    }

    /// A bright subject on a dark night background that reaches every edge.
    static func darkEdged(width: Int = 600, height: Int = 900) -> PixelBuffer {
        var random = SeededRandom(seed: 12)
        return scene(width: width, height: height) { u, v in
            let noise = random.uniform(-3...3)
            let dx = u - 0.5, dy = v - 0.5
            if dx * dx + dy * dy < 0.08 { return (250, 220, 90) }
            return (Double(night.red) + noise, Double(night.green) + noise, Double(night.blue) + noise)
        }
    }

    /// Sky over sand, both textured: a blurred band above the photo must come out blue, one below it sand.
    static func skyAndSand(width: Int = 900, height: Int = 600) -> PixelBuffer {
        var random = SeededRandom(seed: 13)
        return scene(width: width, height: height) { u, v in
            let texture = 12 * sin(u * 90) * sin(v * 70) + random.uniform(-6...6)
            let base = v < 0.5 ? sky : sand
            return (Double(base.red) + texture, Double(base.green) + texture, Double(base.blue) + texture)
        }
    }

    /// A product cut out: an opaque disc, a half-transparent ring around it, and a transparent rest.
    static func cutOut(width: Int = 600, height: Int = 400) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height, hasAlpha: true)
        for y in 0..<height {
            for x in 0..<width {
                let dx = Double(x) - Double(width) / 2, dy = Double(y) - Double(height) / 2
                let distance = (dx * dx + dy * dy).squareRoot(), radius = Double(min(width, height)) * 0.3
                let i = (y * width + x) * 4
                let alpha: UInt8 = distance < radius ? 255 : distance < radius * 1.25 ? 128 : 0
                (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2], image.pixels[i + 3]) = (40, 150, 90, alpha)
            }
        }
        return image
    }

    /// An opaque picture whose colour at (u, v), fractions of the width and height, `colour` gives.
    private static func scene(width: Int, height: Int, colour: (Double, Double) -> (Double, Double, Double)) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let c = colour(Double(x) / Double(width), Double(y) / Double(height))
                let i = (y * width + x) * 4
                image.pixels[i] = UInt8(clamping: Int(c.0.rounded()))
                image.pixels[i + 1] = UInt8(clamping: Int(c.1.rounded()))
                image.pixels[i + 2] = UInt8(clamping: Int(c.2.rounded()))
            }
        }
        return image
    }
}
