import ImageCore
import ThumbCache
import Thumbnailer

/// What a client asks to be made of an image: the variant half of the cache key.
public struct ThumbnailSpec: Sendable, Hashable {
    public enum Format: String, Sendable, CaseIterable, Codable {
        /// JPEG for opaque images, PNG for transparent ones (WebP for transparent WebP sources); the
        /// server makes it AVIF or WebP for clients that accept them.
        case auto
        case jpeg, png, webp, avif
    }

    public var size: Int
    public var fit: Fit
    /// Where a cover crop is taken from; always `.center` for `contain`, which crops nothing, so
    /// a contain thumbnail has one key whatever gravity was asked.
    public var gravity: Gravity
    /// Take off a uniform border first (cover and contain alike).
    public var trim: Bool
    public var format: Format
    /// JPEG and lossy WebP quality; kept in the key for PNG too, so one spelling maps to one key.
    public var quality: Int
    /// The configured preset that named this variant, if any. Not part of the variant (a preset's
    /// spec equals the same one spelled out, and shares its key); kept so a query written for it
    /// (the fleet's entry-point requests, the prefetch client's body) names the preset, as a
    /// daemon with `server.only_presets` requires.
    public var preset: String?

    public init(size: Int, fit: Fit = .cover, gravity: Gravity = .center, trim: Bool = false, format: Format = .auto,
                quality: Int = EncodeSettings.defaultQuality) {
        self.size = size
        self.fit = fit
        self.gravity = fit == .cover ? gravity : .center
        self.trim = trim
        self.format = format
        self.quality = quality
    }

    public static func == (lhs: ThumbnailSpec, rhs: ThumbnailSpec) -> Bool {
        (lhs.size, lhs.fit, lhs.gravity, lhs.trim, lhs.format, lhs.quality) == (rhs.size, rhs.fit, rhs.gravity, rhs.trim, rhs.format, rhs.quality)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(variant)
    }

    public var variant: CacheVariant {
        CacheVariant(size: size, fit: fit.rawValue, format: format.rawValue, quality: quality, gravity: gravity.description,
                     trim: trim)
    }

    /// How to write a thumbnail of `source`.
    public func encoding(for source: ImageInfo, avifSpeed: Int = EncodeSettings.defaultAVIFSpeed) -> EncodeSettings {
        switch format {
        case .jpeg: .jpeg(quality: quality)
        case .png: .png
        case .webp: .webp(quality: quality)
        case .avif: .avif(quality: quality, speed: avifSpeed)
        case .auto:
            !source.hasAlpha ? .jpeg(quality: quality) : source.format == .webp ? .webp(quality: quality) : .png
        }
    }
}
