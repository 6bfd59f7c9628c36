import ImageCore
import ImageOps

/// The smart crop: a cover region moved to where the photo's saliency is, chosen on a small upright
/// copy the thumbnailer already has (the placeholder's), so it costs no decode and no full-size pass.
enum SmartCrop {
    /// `region` (upright, full-size pixels) moved to the best place inside `frame` (the photo, or
    /// what trimming kept of it) in the photo that `small` shows at reduced size; its size is kept.
    static func moved(_ region: SourceRegion, within frame: SourceRegion, uprightWidth: Int, uprightHeight: Int,
                      small: PixelBuffer) -> SourceRegion {
        // Too small a copy says nothing about where things are.
        guard small.width >= 8, small.height >= 8 else { return region }
        let scaleX = Double(small.width) / Double(uprightWidth), scaleY = Double(small.height) / Double(uprightHeight)
        // Saliency is judged on the whole photo (its edges show the background); the window is
        // looked for among the map pixels the frame covers.
        let left = Int((frame.x * scaleX).rounded(.down)), top = Int((frame.y * scaleY).rounded(.down))
        let right = Int(((frame.x + frame.width) * scaleX).rounded(.up)), bottom = Int(((frame.y + frame.height) * scaleY).rounded(.up))
        var map = SaliencyMap(of: small)
        if (left, top, right, bottom) != (0, 0, small.width, small.height) {
            map = map.cropped(x: left, y: top, width: right - left, height: bottom - top)
        }
        let corner = CropWindow.best(in: map, width: region.width * scaleX, height: region.height * scaleY)
        return frame.window(x: (Double(left) + corner.x) / scaleX, y: (Double(top) + corner.y) / scaleY,
                            width: region.width, height: region.height)
    }
}
