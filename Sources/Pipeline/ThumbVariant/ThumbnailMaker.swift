import ImageCore
import ImageOps
import Thumbnailer

/// The one thumbnail maker: photo bytes and a variant in, encoded bytes out, with one format rule
/// (`Variant.encoding(for:options:)`), one quality and one byte cap search (`ByteCap`). The daemon's
/// pipeline, `thumbd thumbnail`, the benchmarks and the fuzz target all make thumbnails here, so
/// a file the command line writes is the answer the daemon gives a client whose Accept is `*/*`.
///
/// The variant comes negotiated (`Variant.negotiated(accept:)`): the daemon negotiates where it
/// chooses the cache key, once, and hands the pair on. Synchronous and CPU-bound.
public struct ThumbnailMaker: Sendable {
    public var limits: DecodeLimits
    /// `thumbnail.trim_threshold`: how far a border pixel may be from the border's colour.
    public var trimThreshold: Int
    /// `thumbnail.decode_headroom`: how many times the thumbnail's size the decoder delivers.
    public var decodeHeadroom: Double
    public var encoder: EncoderOptions

    public init(limits: DecodeLimits = DecodeLimits(), trimThreshold: Int = ThumbnailRequest.defaultTrimThreshold,
                decodeHeadroom: Double = ThumbnailRequest.defaultDecodeHeadroom, encoder: EncoderOptions = EncoderOptions()) {
        (self.limits, self.trimThreshold, self.decodeHeadroom, self.encoder) = (limits, trimThreshold, decodeHeadroom, encoder)
    }

    /// The thumbnailer's request for `variant`: its geometry with these decode settings.
    public func request(for variant: Variant) -> ThumbnailRequest {
        ThumbnailRequest(width: variant.width, height: variant.height, fit: variant.fit, gravity: variant.gravity,
                         background: variant.background ?? .white, trim: variant.trim, trimThreshold: trimThreshold,
                         limits: limits, decodeHeadroom: decodeHeadroom)
    }

    /// Without `placeholder` the photo's ThumbHash is not made (`Thumbnail.photo.thumbHash` is nil).
    public func make(_ bytes: [UInt8], as variant: Variant, placeholder: Bool = true) throws(ImageError) -> Thumbnail {
        try make(Thumbnailer.decode(bytes, for: [request(for: variant)], placeholder: placeholder), as: variant)
    }

    /// One variant of a photo already decoded for it, and perhaps for other sizes (`Thumbnailer.decode(_:for:)`
    /// with `request(for: variant)` among its requests): several sizes of one photo share one decode.
    public func make(_ photo: DecodedPhoto, as variant: Variant) throws(ImageError) -> Thumbnail {
        let rendered = try Thumbnailer.render(photo, request(for: variant))
        let start = ContinuousClock.now
        let settings = variant.encoding(for: rendered.source, options: encoder)
        // A format without alpha shows whatever colour a transparent pixel stores (often black):
        // the thumbnail is laid on white first, as a page's background most often is.
        let pixels = settings.format.keepsAlpha ? rendered.pixels : rendered.pixels.flattened()
        let encoded = try ByteCap.encode(pixels, settings, maxBytes: variant.maxBytes)
        return Thumbnail(rendered, bytes: encoded.bytes, format: encoded.settings.format, pixels: pixels,
                         encodeTime: ContinuousClock.now - start)
    }
}

extension ImageFormat {
    /// Whether thumbd writes an alpha channel in this format.
    var keepsAlpha: Bool { self != .jpeg }
}
