import ImageCore

/// What stands behind the product in a generated scene: the three kinds of seller photo that a
/// crop must handle.
public enum SceneBackground: String, Sendable, CaseIterable {
    /// A seamless paper sweep: light, nearly plain, darker towards the floor, a soft shadow.
    case studio
    /// A room or a garden far out of focus behind a sharp product.
    case blurred
    /// A sharp, busy photo (or, without photos, sharp textured clutter).
    case busy
}

/// What the product itself looks like.
public enum ProductLook: String, Sendable, CaseIterable {
    /// One colour, shaded like a lit cylinder or box, with a highlight.
    case plain
    /// Cut from a photo: a printed box, a cushion, a framed picture.
    case patterned
}

/// The photo's shape, as sellers' cameras and phones make them.
public enum SceneFrame: String, Sendable, CaseIterable {
    case threeByTwo = "3:2", sixteenByNine = "16:9", fourByThree = "4:3", twoByThree = "2:3"

    /// Width and height with the longer side `longSide`.
    public func size(longSide: Int) -> (width: Int, height: Int) {
        let (a, b): (Int, Int) = switch self {
        case .threeByTwo: (3, 2)
        case .sixteenByNine: (16, 9)
        case .fourByThree: (4, 3)
        case .twoByThree: (2, 3)
        }
        let short = longSide * min(a, b) / max(a, b)
        return a >= b ? (longSide, short) : (short, longSide)
    }
}

/// An axis-aligned rectangle in a scene's pixels.
public struct SceneRect: Sendable, Equatable, CustomStringConvertible {
    public var x: Double, y: Double, width: Double, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var area: Double { width * height }

    public func intersectionArea(_ other: SceneRect) -> Double {
        let w = min(maxX, other.maxX) - max(x, other.x), h = min(maxY, other.maxY) - max(y, other.y)
        return w > 0 && h > 0 ? w * h : 0
    }

    public var description: String {
        "(\(Int(x.rounded())), \(Int(y.rounded()))) \(Int(width.rounded()))x\(Int(height.rounded()))"
    }
}

/// One generated photo and where its product is.
public struct CropScene: Sendable {
    /// Unique and stable for a seed: `busy-patterned-3:2-1`.
    public var name: String
    public var background: SceneBackground
    public var look: ProductLook
    public var frame: SceneFrame
    public var image: PixelBuffer
    /// The product's bounding box (its shadow is not part of it).
    public var product: SceneRect

    /// The name with characters a file name can carry (`3:2` becomes `3x2`).
    public var fileStem: String { name.replacingOccurrences(of: ":", with: "x") }
}
