import ImageCore
import ImageOps

extension SourceRegion {
    /// A `width` x `height` window whose top-left corner is wanted at (x, y), moved the least it
    /// takes to lie inside `self` (the photo, or what trimming kept of it).
    func window(x: Double, y: Double, width: Double, height: Double) -> SourceRegion {
        SourceRegion(x: min(max(self.x, x), self.x + self.width - width),
                     y: min(max(self.y, y), self.y + self.height - height), width: width, height: height)
    }
}
