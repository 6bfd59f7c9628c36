import ImageCore
import Thumbnailer

/// The marketplace's photo rules and how hard thumbd tries to meet them.
public struct UploadSettings: Sendable, Equatable {
    public enum OutputFormat: String, Sendable, CaseIterable, Codable {
        case jpeg, webp

        public var imageFormat: ImageFormat { self == .jpeg ? .jpeg : .webp }
    }

    /// Most images in one batch; one more is refused before any is read.
    public var maxImages = 5
    /// No prepared image is ever larger than this.
    public var budgetBytes = 300 * 1024
    /// The longest side of a prepared image, in pixels; smaller images are never enlarged.
    public var maxSide = 1200
    /// Crop every image to a square first…
    public var square = false
    /// …taken from here (the configuration's `thumbnail.gravity`, smart as shipped, unless a
    /// request or flag says otherwise; centre without a configuration).
    public var gravity: Gravity = .center
    /// An exact box instead of `maxSide` and `square` (`--size WxH --fit cover|contain|pad`).
    public var shape: UploadShape?
    public var format: OutputFormat = .jpeg
    /// The quality search starts here (it is the quality of an image that fits at once)…
    public var qualityCeiling = 92
    /// …and never goes below this; past it, the dimensions shrink instead.
    public var qualityFloor = 50
    /// Shrinking stops at this longest side: a budget not met there is `budget_unreachable`.
    public var minSide = 64
    /// Hand back an image unchanged when it already meets every rule (right format, within budget
    /// and size, upright, square when asked, no metadata). JPEG metadata alone is removed losslessly.
    public var passThrough = true
    /// Smaller copies of each prepared photo to make as well (a listing's thumbnail, a zoom's
    /// preview): each the prepared picture (the same crop) with its longest side at this many
    /// pixels (never more than the prepared photo's), resized from its pixels rather than decoded
    /// again, and within the same budget.
    public var extraSides: [Int] = []
    /// Largest original accepted, before any decoding.
    public var maxImageBytes = 20_000_000
    public var limits = DecodeLimits()

    public static let imageCountRange = 1...50
    public static let qualityRange = EncodeSettings.qualityRange
    public static let sideRange = 16...ThumbnailRequest.sizeRange.upperBound
    public static let maxExtraSides = 4

    public init() {}

    /// Refuses settings that contradict each other, naming the flag or key a person would change.
    public func validate() throws(UploadError) {
        func invalid(_ message: String) -> UploadError { UploadError(.invalidRequest, message) }
        guard Self.imageCountRange.contains(maxImages) else {
            throw invalid("max images must be \(Self.imageCountRange.lowerBound)...\(Self.imageCountRange.upperBound), not \(maxImages)")
        }
        guard budgetBytes > 0 else { throw invalid("the byte budget must be positive") }
        guard Self.sideRange.contains(maxSide) else {
            throw invalid("max side must be \(Self.sideRange.lowerBound)...\(Self.sideRange.upperBound) pixels, not \(maxSide)")
        }
        guard Self.sideRange.contains(minSide), minSide <= maxSide else {
            throw invalid("min side must be \(Self.sideRange.lowerBound)...max side (\(maxSide)) pixels, not \(minSide)")
        }
        guard Self.qualityRange.contains(qualityFloor), Self.qualityRange.contains(qualityCeiling),
              qualityFloor <= qualityCeiling else {
            throw invalid("qualities must satisfy 1 <= floor (\(qualityFloor)) <= ceiling (\(qualityCeiling)) <= 100")
        }
        guard maxImageBytes > 0 else { throw invalid("the largest accepted original must be positive") }
        guard extraSides.count <= Self.maxExtraSides else {
            throw invalid("at most \(Self.maxExtraSides) extra sizes, not \(extraSides.count)")
        }
        for side in extraSides where !Self.sideRange.contains(side) {
            throw invalid("an extra size must be \(Self.sideRange.lowerBound)...\(Self.sideRange.upperBound) pixels, not \(side)")
        }
        guard Set(extraSides).count == extraSides.count else { throw invalid("an extra size is given twice") }
        if let shape {
            guard !square else { throw invalid("give a square or a size, not both: a size is the whole box (size 1200 is a square)") }
            guard Self.sideRange.contains(shape.width), Self.sideRange.contains(shape.height) else {
                throw invalid("size must be \(Self.sideRange.lowerBound)...\(Self.sideRange.upperBound) pixels each side, not \(shape.width)x\(shape.height)")
            }
            guard shape.background != .transparent || format == .webp else {
                throw invalid("a transparent background needs the webp format: JPEG has no alpha")
            }
        }
    }
}
