import ImageCore
import ImageOps

/// Finds where another tool's square thumbnail was cut from a scene, for tools that do not say:
/// a cover crop keeps the scene's whole short side, so only its place along the long side is
/// unknown. The scene is scaled to the thumbnail's scale and every place is compared (mean
/// absolute difference of lightness); the best one, in scene pixels, is the window.
public enum CropLocator {
    public static func window(of thumbnail: PixelBuffer, in scene: PixelBuffer) -> SceneRect {
        let short = Double(min(scene.width, scene.height))
        let n = thumbnail.width
        let scale = Double(n) / short
        let reducedWidth = scene.width >= scene.height ? max(n, Int((Double(scene.width) * scale).rounded())) : n
        let reducedHeight = scene.width >= scene.height ? n : max(n, Int((Double(scene.height) * scale).rounded()))
        let reduced = Resampler.resize(scene, width: reducedWidth, height: reducedHeight)
        let target = lightness(thumbnail)
        let source = lightness(reduced)
        let horizontal = reducedWidth > reducedHeight
        let places = (horizontal ? reducedWidth : reducedHeight) - n + 1
        var best = (offset: 0, difference: Int.max)
        for offset in 0..<max(1, places) {
            var difference = 0
            for y in stride(from: 0, to: min(n, thumbnail.height), by: 2) {
                for x in stride(from: 0, to: n, by: 2) {
                    let (sx, sy) = horizontal ? (x + offset, y) : (x, y + offset)
                    difference += abs(Int(target[y * n + x]) - Int(source[sy * reducedWidth + sx]))
                }
            }
            if difference < best.difference { best = (offset, difference) }
        }
        let start = Double(best.offset) / scale
        return horizontal
            ? SceneRect(x: start, y: 0, width: short, height: short)
            : SceneRect(x: 0, y: start, width: short, height: short)
    }

    static func lightness(_ image: PixelBuffer) -> [UInt8] {
        (0..<(image.width * image.height)).map { i in
            let p = image.pixels
            return UInt8((Int(p[4 * i]) * 77 + Int(p[4 * i + 1]) * 150 + Int(p[4 * i + 2]) * 29) >> 8)
        }
    }
}
