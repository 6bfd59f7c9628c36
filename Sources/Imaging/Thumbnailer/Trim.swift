import ImageCodecs
import ImageCore
import ImageOps

/// `ThumbnailRequest.trim`: the border found on the decoded (already reduced) pixels, as the part
/// of the upright photo it leaves, in full-size pixels.
enum Trim {
    /// Nil when there is nothing to take off (see `BorderTrim.contentBox`).
    static func frame(of decoded: DecodedImage, info: ImageInfo, threshold: Int) -> SourceRegion? {
        guard let box = BorderTrim.contentBox(of: decoded.pixels, threshold: threshold) else { return nil }
        let stored = SourceRegion(x: Double(box.x) / decoded.scaleX, y: Double(box.y) / decoded.scaleY,
                                  width: Double(box.width) / decoded.scaleX, height: Double(box.height) / decoded.scaleY)
        let upright = Resampler.uprightRegion(stored, orientation: info.orientation,
                                              storedWidth: Double(info.width), storedHeight: Double(info.height))
        // Whole pixels of the decoded copy may overshoot the full size by a rounding.
        let x = max(0, upright.x), y = max(0, upright.y)
        let limit = info.orientation.uprightSize(width: info.width, height: info.height)
        return SourceRegion(x: x, y: y, width: min(upright.width, Double(limit.width) - x),
                            height: min(upright.height, Double(limit.height) - y))
    }
}
