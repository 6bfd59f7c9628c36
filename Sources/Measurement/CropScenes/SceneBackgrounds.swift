import ImageCore
import ImageOps

/// The backgrounds products are placed on.
enum SceneBackgrounds {
    /// A paper sweep: a light, slightly tinted colour, lighter at the top, darker towards the
    /// floor past a soft bend, with a faint vignette and grain.
    static func studio(width: Int, height: Int, _ random: inout SceneRandom) -> SceneCanvas {
        let value = Float(random.uniform(0.82...0.96)) * 255
        let tint = (Float(random.uniform(-6...6)), Float(random.uniform(-6...6)), Float(random.uniform(-6...6)))
        let bend = random.uniform(0.45...0.7)
        var canvas = SceneCanvas(width: width, height: height)
        for y in 0..<height {
            let v = Double(y) / Double(height)
            // 1 above the bend, falling smoothly to about 0.86 at the bottom edge.
            let below = max(0, v - bend) / (1 - bend)
            let light = Float(1.0 - 0.03 * v - 0.11 * below * below * (3 - 2 * below))
            for x in 0..<width {
                let u = Double(x) / Double(width) - 0.5
                let vignette = Float(1 - 0.06 * (u * u * 4) * (0.5 + v))
                let i = 3 * (y * width + x)
                canvas.rgb[i] = (value + tint.0) * light * vignette
                canvas.rgb[i + 1] = (value + tint.1) * light * vignette
                canvas.rgb[i + 2] = (value + tint.2) * light * vignette
            }
        }
        canvas.addGrain(2, &random)
        return canvas
    }

    /// `photo` cut to the frame's shape (a random part of it) and scaled to fill it.
    static func photo(_ photo: PixelBuffer, width: Int, height: Int, _ random: inout SceneRandom) -> PixelBuffer {
        let frameAspect = Double(width) / Double(height), photoAspect = Double(photo.width) / Double(photo.height)
        var region = SourceRegion(x: 0, y: 0, width: Double(photo.width), height: Double(photo.height))
        if photoAspect > frameAspect {
            region.width = Double(photo.height) * frameAspect
            region.x = random.uniform(0...(Double(photo.width) - region.width))
        } else {
            region.height = Double(photo.width) / frameAspect
            region.y = random.uniform(0...(Double(photo.height) - region.height))
        }
        return Resampler.resize(photo, region: region, width: width, height: height)
    }

    /// Far out of focus: the picture shrunk to a twentieth and enlarged again by Lanczos-3, which
    /// leaves only its broad patches of colour, as a wide aperture does.
    static func blurred(_ picture: PixelBuffer) -> SceneCanvas {
        let small = Resampler.resize(picture, width: max(2, picture.width / 20), height: max(2, picture.height / 20))
        var canvas = SceneCanvas(Resampler.resize(small, width: picture.width, height: picture.height))
        var random = SceneRandom(seed: UInt64(picture.width * 31 + picture.height))
        canvas.addGrain(1.5, &random)
        return canvas
    }

    /// Sharp textured clutter, for busy backgrounds without photos: many small objects of stripes,
    /// checks and noise, none as large as a product.
    static func clutter(width: Int, height: Int, _ random: inout SceneRandom) -> SceneCanvas {
        let base = (Float(random.uniform(60...180)), Float(random.uniform(60...180)), Float(random.uniform(60...180)))
        var canvas = SceneCanvas(width: width, height: height, fill: base)
        let short = Double(min(width, height))
        let count = 90
        for _ in 0..<count {
            let w = random.uniform(0.04...0.2) * short, h = random.uniform(0.04...0.2) * short
            let rect = SceneRect(x: random.uniform(-0.1...1.0) * Double(width), y: random.uniform(-0.1...1.0) * Double(height), width: w, height: h)
            let first = randomColour(&random), second = randomColour(&random)
            let period = random.uniform(3...14)
            let pattern = random.index(3)
            let shape = SceneShape.allCases[random.index(SceneShape.allCases.count)]
            var grain = random
            let (x0, x1) = (max(0, Int(rect.x)), min(width, Int(rect.maxX) + 1))
            let (y0, y1) = (max(0, Int(rect.y)), min(height, Int(rect.maxY) + 1))
            for y in y0..<max(y0, y1) {
                for x in x0..<max(x0, x1) {
                    let cover = shape.coverage(Double(x), Double(y), in: rect)
                    guard cover > 0 else { continue }
                    let stripe: Bool = switch pattern {
                    case 0: Int(Double(x + y) / period) % 2 == 0
                    case 1: (Int(Double(x) / period) + Int(Double(y) / period)) % 2 == 0
                    default: grain.next() & 1 == 0
                    }
                    canvas.blend(x, y, stripe ? first : second, cover)
                }
            }
            random = SceneRandom(seed: random.next() ^ grain.state)
        }
        return canvas
    }

    static func randomColour(_ random: inout SceneRandom) -> (Float, Float, Float) {
        (Float(random.uniform(10...245)), Float(random.uniform(10...245)), Float(random.uniform(10...245)))
    }
}
