/// Bounds checked from an image's header, before any pixel memory is allocated.
public struct DecodeLimits: Sendable, Equatable {
    /// Largest width x height accepted, as stored in the file (default 50 megapixels).
    public var maxPixels: Int
    /// Largest working memory a single decode may need: the output buffer plus whatever the codec
    /// must hold beside it (a progressive JPEG keeps every DCT coefficient of the whole image).
    public var maxDecodeBytes: Int

    public static let defaultMaxPixels = 50_000_000
    public static let defaultMaxDecodeBytes = 512 << 20

    public init(maxPixels: Int = DecodeLimits.defaultMaxPixels, maxDecodeBytes: Int = DecodeLimits.defaultMaxDecodeBytes) {
        self.maxPixels = maxPixels
        self.maxDecodeBytes = maxDecodeBytes
    }

    /// Refuses dimensions over the pixel limit (or nonsensical ones) with `pixel_limit_exceeded`.
    public func check(width: Int, height: Int) throws(ImageError) {
        guard width > 0, height > 0 else {
            throw .corrupt("image declares an empty size \(width)x\(height)")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            throw ImageError(.pixelLimitExceeded,
                             "\(width)x\(height) is \(Self.megapixels(width, height)) MP, over the limit of \(Self.megapixels(maxPixels, 1)) MP")
        }
    }

    /// Refuses a decode whose working memory would exceed `maxDecodeBytes`.
    public func check(decodeBytes: Int, what: String) throws(ImageError) {
        guard decodeBytes <= maxDecodeBytes else {
            throw ImageError(.pixelLimitExceeded,
                             "\(what) needs \(decodeBytes >> 20) MiB to decode, over the limit of \(maxDecodeBytes >> 20) MiB")
        }
    }

    private static func megapixels(_ w: Int, _ h: Int) -> String {
        let tenths = (Double(w) * Double(h) / 100_000).rounded()
        return String(tenths / 10)
    }
}

/// How small the decoder may make the image while decoding (JPEG DCT scaling, libwebp scaling,
/// row reduction for PNG). `minimumScale` 1 means full size; 0.25 means the caller is content with
/// any decoded size at least a quarter of the original in each dimension.
public struct DecodeScaleHint: Sendable, Equatable {
    public var minimumScale: Double

    public static let fullSize = DecodeScaleHint(minimumScale: 1)

    public init(minimumScale: Double) {
        self.minimumScale = min(1, max(0, minimumScale))
    }
}

/// What a header says, before decoding.
public struct ImageInfo: Sendable, Equatable {
    public var format: ImageFormat
    /// Stored dimensions (before orientation is applied).
    public var width: Int
    public var height: Int
    public var hasAlpha: Bool
    public var orientation: Orientation
    public var isAnimated: Bool

    public init(format: ImageFormat, width: Int, height: Int, hasAlpha: Bool, orientation: Orientation = .up, isAnimated: Bool = false) {
        self.format = format
        self.width = width
        self.height = height
        self.hasAlpha = hasAlpha
        self.orientation = orientation
        self.isAnimated = isAnimated
    }
}

/// A decoded image: pixels in stored orientation, plus the orientation still to apply.
public struct DecodedImage: Sendable {
    public var info: ImageInfo
    public var pixels: PixelBuffer
    /// Decoded pixels per source pixel, per axis, as the decoder scaled. Not always the ratio of the
    /// sizes: libjpeg scales by exactly M/8 and rounds the size up, and mapping a crop with the
    /// rounded ratio would shift it.
    public var scaleX: Double
    public var scaleY: Double
    /// What the file says about its colours.
    public var color: EmbeddedColor
    /// What the pixel bytes hold (RGBA unless a codec kept CMYK for a profile to convert).
    public var samples: DecodedSamples
    /// The photo as stored at one pixel per 8x8 block of the full-size image, the same pixels
    /// whatever scale the decode used (a JPEG's DC coefficients), when the decode was asked for it
    /// and the codec can give it; colours as `samples` are, unconverted.
    public var blockMeans: PixelBuffer?
    /// The part of the image at the decode's scale that `pixels` hold, when only a window of it was
    /// decoded (the decoder's, perhaps wider than asked); nil when they hold all of it.
    public var window: DecodeWindow?
    /// Where `pixels` begin in the whole image at the decode's scale.
    public var originX: Int { window?.x ?? 0 }
    public var originY: Int { window?.y ?? 0 }

    /// `scale` nil means the decoded size divided by the stored size (exact for full-size decodes
    /// and for decoders that resample to a given size, like libwebp's).
    public init(info: ImageInfo, pixels: PixelBuffer, scale: Double? = nil, color: EmbeddedColor = .unspecified,
                samples: DecodedSamples = .rgba) {
        self.info = info
        self.pixels = pixels
        self.scaleX = scale ?? Double(pixels.width) / Double(info.width)
        self.scaleY = scale ?? Double(pixels.height) / Double(info.height)
        self.color = color
        self.samples = samples
    }
}

/// Part of an image to decode, in the pixels of the decode's scale: where a format can decode a
/// window (JPEG), the rest of the image costs its entropy decoding only. The decoder may widen it.
public struct DecodeWindow: Sendable, Equatable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    public func contains(_ other: DecodeWindow) -> Bool {
        other.x >= x && other.y >= y && other.x + other.width <= x + width && other.y + other.height <= y + height
    }
}
