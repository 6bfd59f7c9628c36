import ImageCore
import ImageOps

/// The smart crop: a cover region moved to where the photo's saliency is, chosen on a small upright
/// copy the thumbnailer already has (the placeholder's), so it costs no decode and no full-size pass.
enum SmartCrop {
    /// `region` (upright, full-size pixels, the centred one) moved to the best place in the photo
    /// that `small` shows at reduced size; its size is kept.
    static func moved(_ region: SourceRegion, uprightWidth: Int, uprightHeight: Int, small: PixelBuffer) -> SourceRegion {
        // Too small a copy says nothing about where things are.
        guard small.width >= 8, small.height >= 8 else { return region }
        let scaleX = Double(small.width) / Double(uprightWidth), scaleY = Double(small.height) / Double(uprightHeight)
        let map = SaliencyMap(of: small)
        let corner = CropWindow.best(in: map, width: region.width * scaleX, height: region.height * scaleY)
        let x = min(max(0, corner.x / scaleX), Double(uprightWidth) - region.width)
        let y = min(max(0, corner.y / scaleY), Double(uprightHeight) - region.height)
        return SourceRegion(x: x, y: y, width: region.width, height: region.height)
    }
}
