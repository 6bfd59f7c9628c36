import Foundation
import ImageCore
import ImageOps

/// Products painted into a scene.
enum SceneProducts {
    /// Paints a product of `look` and `shape` filling `rect`; patterned ones are cut from `photo`.
    static func paint(_ look: ProductLook, _ shape: SceneShape, in rect: SceneRect, photo: PixelBuffer?,
                      on canvas: inout SceneCanvas, _ random: inout SceneRandom) {
        let (x0, y0) = (max(0, Int(rect.x)), max(0, Int(rect.y)))
        let (x1, y1) = (min(canvas.width, Int(rect.maxX) + 1), min(canvas.height, Int(rect.maxY) + 1))
        guard x1 > x0, y1 > y0 else { return }
        let patch = look == .patterned ? photo.map { patterned(from: $0, width: x1 - x0, height: y1 - y0, &random) } : nil
        let base = plainColour(&random)
        let highlightAt = random.uniform(0.2...0.4)
        for y in y0..<y1 {
            let v = (Double(y) + 0.5 - rect.y) / rect.height
            for x in x0..<x1 {
                let cover = shape.coverage(Double(x), Double(y), in: rect)
                guard cover > 0 else { continue }
                let u = (Double(x) + 0.5 - rect.x) / rect.width
                var colour: (Float, Float, Float)
                if let patch {
                    let i = 4 * ((y - y0) * patch.width + (x - x0))
                    let shade = Float(0.88 + 0.16 * sin(Double.pi * u))
                    colour = (Float(patch.pixels[i]) * shade, Float(patch.pixels[i + 1]) * shade, Float(patch.pixels[i + 2]) * shade)
                } else {
                    // A lit cylinder: brighter across the middle, darker at the sides and towards
                    // the bottom, with a soft highlight.
                    let shade = Float(0.62 + 0.45 * sin(Double.pi * u) - 0.12 * v)
                    let highlight = Float(0.35 * exp(-pow((u - highlightAt) / 0.07, 2)))
                    colour = (base.0 * shade, base.1 * shade, base.2 * shade)
                    colour = (colour.0 + (255 - colour.0) * highlight, colour.1 + (255 - colour.1) * highlight,
                              colour.2 + (255 - colour.2) * highlight)
                }
                canvas.blend(x, y, colour, cover)
            }
        }
    }

    /// A soft contact shadow under a product standing on a sweep.
    static func paintShadow(under rect: SceneRect, on canvas: inout SceneCanvas) {
        let (cx, cy) = (rect.x + rect.width / 2, rect.maxY - 0.02 * rect.height)
        let (a, b) = (0.62 * rect.width, 0.09 * rect.height + 4)
        let (x0, x1) = (max(0, Int(cx - a)), min(canvas.width, Int(cx + a) + 1))
        let (y0, y1) = (max(0, Int(cy - b)), min(canvas.height, Int(cy + b) + 1))
        for y in y0..<max(y0, y1) {
            for x in x0..<max(x0, x1) {
                let r = pow((Double(x) - cx) / a, 2) + pow((Double(y) - cy) / b, 2)
                guard r < 1 else { continue }
                canvas.blend(x, y, (0, 0, 0), Float(0.3 * pow(1 - r, 1.5)))
            }
        }
    }

    /// A random part of `photo` (at least 60 % of each side), scaled to the product's box.
    static func patterned(from photo: PixelBuffer, width: Int, height: Int, _ random: inout SceneRandom) -> PixelBuffer {
        let share = random.uniform(0.6...1.0)
        let (w, h) = (Double(photo.width) * share, Double(photo.height) * share)
        let region = SourceRegion(x: random.uniform(0...(Double(photo.width) - w)), y: random.uniform(0...(Double(photo.height) - h)),
                                  width: w, height: h)
        return Resampler.resize(photo.flattened(), region: region, width: width, height: height)
    }

    /// One colour of some saturation, neither black nor white.
    static func plainColour(_ random: inout SceneRandom) -> (Float, Float, Float) {
        let hue = random.uniform(0...6), saturation = random.uniform(0.35...0.9), value = random.uniform(0.3...0.85)
        let c = value * saturation, x = c * (1 - abs(hue.truncatingRemainder(dividingBy: 2) - 1)), m = value - c
        let (r, g, b): (Double, Double, Double) = switch Int(hue) {
        case 0: (c, x, 0)
        case 1: (x, c, 0)
        case 2: (0, c, x)
        case 3: (0, x, c)
        case 4: (x, 0, c)
        default: (c, 0, x)
        }
        return (Float((r + m) * 255), Float((g + m) * 255), Float((b + m) * 255))
    }
}
