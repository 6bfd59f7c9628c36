import ImageCore
import ThumbCache
import Thumbnailer

/// What to make of a photo: the box, how the photo fills it, the encoding and its byte cap. Every
/// door (the thumbnail query, a prefetch body, a preset in the configuration, the command line,
/// upload preparation) builds one through `VariantParser`, so all read a variant alike; the cache
/// key, the ETag, `thumbd cache ls` and the inspector all show its one text, `canonicalText`.
public struct Variant: Sendable, Hashable {
    public enum Format: String, Sendable, CaseIterable, Codable {
        /// JPEG for opaque thumbnails, PNG for transparent ones;
        /// the server makes it AVIF or WebP for clients that accept them (`negotiated(accept:)`).
        case auto
        /// JPEG XL only when named: `auto` never picks it (no browser but Safari shows it, and
        /// Safari takes AVIF, which auto already gives it).
        case jpeg, png, webp, avif, jxl

        /// Whether the format keeps an alpha channel (auto does when the thumbnail has one).
        public var carriesAlpha: Bool { self != .jpeg }
    }

    /// The box in output pixels, a `dpr` already applied (so `size=200&dpr=2` and `size=400` are
    /// one variant, with one cache entry: the same bytes).
    public private(set) var width: Int
    public private(set) var height: Int
    public private(set) var fit: Fit
    /// Where a cover crop is taken from; `.center` for contain and pad, which crop nothing, so one
    /// variant has one key whatever gravity was asked.
    public private(set) var gravity: Gravity
    /// Take off a uniform border first.
    public var trim: Bool
    /// A padded thumbnail's bands; nil for cover and contain.
    public private(set) var background: PadBackground?
    public var format: Format
    /// JPEG, lossy WebP and AVIF quality (the ceiling under `maxBytes`); kept in the key for PNG
    /// too, so one spelling maps to one key.
    public var quality: Int
    /// The answer is never larger: the quality is searched down to `ByteCap.floorQuality` to fit.
    public var maxBytes: Int?
    /// The configured preset that named this variant, if any. Not part of the variant (a preset's
    /// equals the same one spelled out, and shares its key); kept so a query written for it (the
    /// fleet's entry-point requests, the prefetch client's body) names the preset, as a daemon
    /// with `server.only_presets` requires.
    public var preset: String?

    public init(width: Int, height: Int, fit: Fit = .cover, gravity: Gravity = .center, trim: Bool = false,
                background: PadBackground? = nil, format: Format = .auto, quality: Int = EncodeSettings.defaultQuality,
                maxBytes: Int? = nil) {
        self.width = width
        self.height = height
        self.fit = fit
        self.gravity = fit == .cover ? gravity : .center
        self.trim = trim
        self.background = fit == .pad ? background ?? .white : nil
        self.format = format
        self.quality = quality
        self.maxBytes = maxBytes
    }

    /// A `size` x `size` square.
    public init(size: Int, fit: Fit = .cover, gravity: Gravity = .center, trim: Bool = false, format: Format = .auto,
                quality: Int = EncodeSettings.defaultQuality) {
        self.init(width: size, height: size, fit: fit, gravity: gravity, trim: trim, format: format, quality: quality)
    }

    public var isSquare: Bool { width == height }

    public static func == (lhs: Variant, rhs: Variant) -> Bool { lhs.cacheVariant == rhs.cacheVariant }

    public func hash(into hasher: inout Hasher) { hasher.combine(cacheVariant) }

    /// The variant half of the cache key. A square centre cover crop's is the text it had before
    /// shapes existed, so caches written then stay valid.
    public var cacheVariant: CacheVariant {
        CacheVariant(size: width, height: height, fit: fit.rawValue, format: format.rawValue, quality: quality,
                     gravity: gravity.description, trim: trim, background: background.map(Self.text(of:)), maxBytes: maxBytes)
    }

    /// `300x400/pad/jpeg/q82/bg=ffffff`: the cache key's variant, the ETag's, `thumbd cache ls`'s.
    public var canonicalText: String { cacheVariant.description }

    /// The background's text in queries, flags, settings and keys: `ffffff`, `auto`, `blur`, `transparent`.
    public static func text(of background: PadBackground) -> String {
        switch background {
        case .color(let red, let green, let blue): [red, green, blue].map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        case .auto: "auto"
        case .blur: "blur"
        case .transparent: "transparent"
        }
    }
}

/// A variant with the cache key it is stored under: negotiated once, where a request arrives, and
/// carried on together, so the key and what is made under it cannot disagree.
public struct KeyedVariant: Sendable, Equatable {
    public let variant: Variant
    public let key: CacheKey

    public init(_ variant: Variant, url: NormalizedURL) {
        self.variant = variant
        key = CacheKey(url: url, variant: variant.cacheVariant)
    }
}
