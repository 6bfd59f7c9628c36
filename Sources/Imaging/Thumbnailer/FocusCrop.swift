import ImageCore
import ImageOps

/// `gravity` as a point: the window centred on it as far as the frame allows.
enum FocusCrop {
    /// `region`'s size, centred on `point` (fractions of the whole upright photo, whatever the
    /// trim kept: a seller pins the product in the photo they see), kept inside `frame`.
    static func moved(_ region: SourceRegion, to point: FocusPoint, within frame: SourceRegion,
                      uprightWidth: Int, uprightHeight: Int) -> SourceRegion {
        let centreX = point.x * Double(uprightWidth), centreY = point.y * Double(uprightHeight)
        return frame.window(x: centreX - region.width / 2, y: centreY - region.height / 2,
                            width: region.width, height: region.height)
    }
}
