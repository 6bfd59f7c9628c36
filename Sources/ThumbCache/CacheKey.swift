import Crypto

/// Which rendition of an image an entry holds. Plain values, so the cache knows nothing of codecs:
/// the pipeline fills them from its own request types.
public struct CacheVariant: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Longest side or box size in pixels; 0 for an original.
    public var size: Int
    /// "cover", "contain", or "original" for the downloaded source bytes.
    public var fit: String
    /// "jpeg", "png", "webp", or the source's own format for an original.
    public var format: String
    /// Encoder quality; 0 where it does not apply (PNG, lossless, originals).
    public var quality: Int

    public init(size: Int, fit: String, format: String, quality: Int) {
        self.size = size
        self.fit = fit
        self.format = format
        self.quality = quality
    }

    /// The downloaded bytes themselves, kept under their own budget so a new size of a known
    /// image needs no second download.
    public static let original = CacheVariant(size: 0, fit: "original", format: "source", quality: 0)

    public var isOriginal: Bool { fit == "original" }

    /// Stable text form, part of the hashed key and shown by the CLI: `200/cover/jpeg/q82`.
    public var description: String { "\(size)/\(fit)/\(format)/q\(quality)" }

    /// Parses `description`'s form back (for the index and the CLI).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, let size = Int(parts[0]), parts[3].first == "q", let quality = Int(parts[3].dropFirst()) else {
            return nil
        }
        self.init(size: size, fit: String(parts[1]), format: String(parts[2]), quality: quality)
    }
}

/// A cache key: the normalized URL and the variant. `digest` (SHA-256, hex) names the file on disk,
/// so nothing from a URL ever becomes part of a path.
public struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    public let url: NormalizedURL
    public let variant: CacheVariant
    public let digest: String

    public init(url: NormalizedURL, variant: CacheVariant) {
        self.url = url
        self.variant = variant
        let material = Array("\(url.value)\n\(variant.description)".utf8)
        self.digest = SHA256.hash(data: material).map { Self.hex[Int($0)] }.joined()
    }

    /// Normalizes `url` first; throws for anything that is not an absolute http(s) URL.
    public init(url: String, variant: CacheVariant) throws(CacheKeyError) {
        self.init(url: try NormalizedURL(url), variant: variant)
    }

    public var description: String { "\(url.value) [\(variant)]" }

    private static let hex: [String] = (0...255).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
}

public struct CacheKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
