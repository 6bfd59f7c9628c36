import ColorManagement
import ImageCore
import ImageOps

/// How a thumbnail fills its width x height box.
public enum Fit: String, Sendable, CaseIterable, Codable {
    /// A crop of the box's shape scaled to exactly width x height (the default), from where `Gravity` says.
    case cover
    /// The whole image scaled to fit inside width x height: one side meets the box, the other may be shorter.
    case contain
    /// As `contain`, then laid on a width x height canvas of `PadBackground`, so every thumbnail of
    /// a grid has the box's shape and the whole product shows.
    case pad
}

/// What fills the bands around a padded photo (ImageOps draws them; named here too, so callers of
/// the thumbnailer need not import ImageOps).
public typealias PadBackground = ImageOps.PadBackground

/// Everything that decides a thumbnail's bytes, apart from the source image itself.
public struct ThumbnailRequest: Sendable, Equatable {
    /// The box in output pixels (a square when equal).
    public var width: Int
    public var height: Int
    public var fit: Fit
    /// Where a `cover` crop is taken from; `contain` and `pad` keep the whole photo and ignore it.
    public var gravity: Gravity
    /// The bands of a `pad` thumbnail (ignored by the other fits).
    public var background: PadBackground
    /// Take off a uniform border (its colour read from the corners) before cropping or fitting,
    /// so a product on a white sweep fills the thumbnail. Off by default.
    public var trim: Bool
    /// How far, per 8-bit channel, a pixel may be from the border's colour and still be border
    /// (`thumbnail.trim_threshold`).
    public var trimThreshold: Int
    public var limits: DecodeLimits
    /// How many times the thumbnail's size the decoder must deliver at least, before the Lanczos
    /// filter does the rest. At 1 the decoder's own box-like scaling does most of the reduction and
    /// fine detail aliases; docs/formats-and-colour.md "How a thumbnail is made" has the measurement behind the default.
    public var decodeHeadroom: Double

    public static let sizeRange = 1...4096
    public static let defaultDecodeHeadroom = 2.0
    public static let defaultTrimThreshold = BorderTrim.defaultThreshold
    public static let trimThresholdRange = BorderTrim.thresholdRange

    public init(width: Int, height: Int, fit: Fit = .cover, gravity: Gravity = .center, background: PadBackground = .white,
                trim: Bool = false, trimThreshold: Int = ThumbnailRequest.defaultTrimThreshold,
                limits: DecodeLimits = DecodeLimits(), decodeHeadroom: Double = ThumbnailRequest.defaultDecodeHeadroom) {
        self.width = width
        self.height = height
        self.fit = fit
        self.gravity = gravity
        self.background = background
        self.trim = trim
        self.trimThreshold = trimThreshold
        self.limits = limits
        self.decodeHeadroom = decodeHeadroom
    }

    /// A `size` x `size` square.
    public init(size: Int, fit: Fit = .cover, gravity: Gravity = .center, background: PadBackground = .white,
                trim: Bool = false, trimThreshold: Int = ThumbnailRequest.defaultTrimThreshold,
                limits: DecodeLimits = DecodeLimits(), decodeHeadroom: Double = ThumbnailRequest.defaultDecodeHeadroom) {
        self.init(width: size, height: size, fit: fit, gravity: gravity, background: background, trim: trim,
                  trimThreshold: trimThreshold, limits: limits, decodeHeadroom: decodeHeadroom)
    }
}

/// A thumbnail's pixels before encoding.
public struct RenderedThumbnail: Sendable {
    public var pixels: PixelBuffer
    public var source: ImageInfo
    public var decodedWidth: Int
    public var decodedHeight: Int
    /// What became of the source's colour information (the pixels are sRGB either way).
    public var color: ColorOutcome
    /// The whole photo as displayed: its size after orientation and its ThumbHash placeholder.
    public var photo: PhotoFacts
    /// The part of the upright photo the thumbnail shows, in its full-size pixels.
    public var crop: SourceRegion
    public var timings: StageTimings
}

/// The whole photo, as a page lays it out before its thumbnail arrives.
public struct PhotoFacts: Sendable, Equatable {
    /// Size after the EXIF orientation is applied.
    public var width: Int
    public var height: Int
    /// ThumbHash of the upright photo (nil only if the placeholder could not be made).
    public var thumbHash: [UInt8]?
}

/// A finished thumbnail and what it took to make it.
public struct Thumbnail: Sendable {
    public var bytes: [UInt8]
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    /// Whether the encoded thumbnail keeps an alpha channel.
    public var hasAlpha: Bool
    public var source: ImageInfo
    /// Size of the image the decoder delivered (after DCT or libwebp scaling), stored orientation.
    public var decodedWidth: Int
    public var decodedHeight: Int
    /// What became of the source's colour information (the pixels are sRGB either way).
    public var color: ColorOutcome
    public var photo: PhotoFacts
    /// The part of the upright photo the thumbnail shows, in its full-size pixels.
    public var crop: SourceRegion
    public var timings: StageTimings
}

public struct StageTimings: Sendable {
    public var decode: Duration = .zero
    /// Converting the decoded pixels to sRGB (zero for untagged and sRGB images).
    public var color: Duration = .zero
    public var resize: Duration = .zero
    /// Shrinking the decoded photo to 100 px and hashing it (ThumbHash).
    public var placeholder: Duration = .zero
    /// Choosing a smart crop's window on the placeholder's small copy (zero for a centre crop),
    /// and finding a trimmed border (with the decode again it may need).
    public var crop: Duration = .zero
    public var encode: Duration = .zero
    public var total: Duration { decode + color + resize + placeholder + crop + encode }

    public init() {}
}

extension Thumbnail {
    /// `rendered` once encoded: `pixels` are what was written (flattened, for a format without alpha).
    public init(_ rendered: RenderedThumbnail, bytes: [UInt8], format: ImageFormat, pixels: PixelBuffer, encodeTime: Duration) {
        var timings = rendered.timings
        timings.encode = encodeTime
        self.init(bytes: bytes, format: format, width: pixels.width, height: pixels.height, hasAlpha: pixels.hasAlpha,
                  source: rendered.source, decodedWidth: rendered.decodedWidth, decodedHeight: rendered.decodedHeight,
                  color: rendered.color, photo: rendered.photo, crop: rendered.crop, timings: timings)
    }
}
