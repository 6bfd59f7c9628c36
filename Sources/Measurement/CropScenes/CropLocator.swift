import ImageCore
import ImageOps

/// Finds where another tool's thumbnail was cut from a scene, for tools that do not say: a cover
/// crop is the largest window of the thumbnail's shape, so it keeps one whole side of the scene
/// (the one the shape fills first: the height when the scene is wider than the thumbnail, else
/// the width) and only its place along the other side is unknown. The scene is scaled to the
/// thumbnail's scale and every place is compared (mean absolute difference of lightness); the
/// best one, in scene pixels, is the window.
public enum CropLocator {
    public static func window(of thumbnail: PixelBuffer, in scene: PixelBuffer) -> SceneRect {
        let (width, height) = (thumbnail.width, thumbnail.height)
        let window = CoverWindow(sceneWidth: scene.width, sceneHeight: scene.height, aspect: Double(width) / Double(height))
        // The scale at which the kept side of the scene is the thumbnail's side.
        let scale = max(Double(width) / Double(scene.width), Double(height) / Double(scene.height))
        let reducedWidth = max(width, Int((Double(scene.width) * scale).rounded()))
        let reducedHeight = max(height, Int((Double(scene.height) * scale).rounded()))
        let reduced = Resampler.resize(scene, width: reducedWidth, height: reducedHeight)
        let target = lightness(thumbnail)
        let source = lightness(reduced)
        let places = (window.slidesHorizontally ? reducedWidth - width : reducedHeight - height) + 1
        var best = (offset: 0, difference: Int.max)
        for offset in 0..<max(1, places) {
            var difference = 0
            for y in stride(from: 0, to: height, by: 2) {
                for x in stride(from: 0, to: width, by: 2) {
                    let (sx, sy) = window.slidesHorizontally ? (x + offset, y) : (x, y + offset)
                    difference += abs(Int(target[y * width + x]) - Int(source[sy * reducedWidth + sx]))
                }
            }
            if difference < best.difference { best = (offset, difference) }
        }
        return window.placed(at: Double(best.offset) / scale)
    }

    static func lightness(_ image: PixelBuffer) -> [UInt8] {
        (0..<(image.width * image.height)).map { i in
            let p = image.pixels
            return UInt8((Int(p[4 * i]) * 77 + Int(p[4 * i + 1]) * 150 + Int(p[4 * i + 2]) * 29) >> 8)
        }
    }
}
