/// EXIF orientation: how the stored pixels must be turned to stand upright.
///
/// The raw values are those of the EXIF `Orientation` tag (0x0112). Value 1 is upright; 2–8 mirror
/// and/or rotate. Anything else found in a file is treated as upright.
public enum Orientation: UInt8, Sendable, CaseIterable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    public init(exifValue: Int) {
        self = Orientation(rawValue: UInt8(clamping: exifValue)) ?? .up
    }

    /// Orientations 5–8 turn the image a quarter, so width and height trade places.
    public var swapsDimensions: Bool { rawValue >= 5 }

    public func uprightSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsDimensions ? (height, width) : (width, height)
    }
}
