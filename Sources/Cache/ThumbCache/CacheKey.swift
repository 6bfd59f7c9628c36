import Digests

/// Which rendition of an image an entry holds. Plain values, so the cache knows nothing of codecs:
/// the pipeline fills them from its own request types.
public struct CacheVariant: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Box width in pixels (the square's side when `height` equals it); 0 for an original.
    public var size: Int
    /// Box height in pixels: `size` for a square, which every entry made before shapes existed is.
    public var height: Int
    /// "cover", "contain", "pad", or "original" for the downloaded source bytes.
    public var fit: String
    /// "jpeg", "png", "webp", or the source's own format for an original.
    public var format: String
    /// Encoder quality; 0 where it does not apply (PNG, lossless, originals).
    public var quality: Int
    /// Where a cover crop was taken from: "center" (every entry made before gravity existed),
    /// "smart", or a focus point ("focus=0.250,0.600"). Any text without a slash other than
    /// "trim" or the `bg=` and `max=` parts, so one with parameters fits.
    public var gravity: String
    /// Whether a uniform border was taken off first. False for every entry made before trimming
    /// existed.
    public var trim: Bool
    /// A padded thumbnail's bands: "ffffff", "auto", "blur", "transparent"; nil for the other fits.
    public var background: String?
    /// The byte cap the thumbnail was encoded under; nil without one.
    public var maxBytes: Int?

    public static let centerGravity = "center"
    static let trimText = "trim"
    static let backgroundPrefix = "bg="
    static let maxBytesPrefix = "max="

    public init(size: Int, height: Int? = nil, fit: String, format: String, quality: Int,
                gravity: String = CacheVariant.centerGravity, trim: Bool = false, background: String? = nil, maxBytes: Int? = nil) {
        self.size = size
        self.height = height ?? size
        self.fit = fit
        self.format = format
        self.quality = quality
        self.gravity = gravity
        self.trim = trim
        self.background = background
        self.maxBytes = maxBytes
    }

    /// The downloaded bytes themselves, kept under their own budget so a new size of a known
    /// image needs no second download.
    public static let original = CacheVariant(size: 0, fit: "original", format: "source", quality: 0)

    public var isOriginal: Bool { fit == "original" }

    /// "200" for a square, "300x400" otherwise.
    public var sizeText: String { height == size ? "\(size)" : "\(size)x\(height)" }

    /// Stable text form, part of the hashed key and shown by the CLI: `200/cover/jpeg/q82`, then
    /// `/smart` or `/focus=0.250,0.600` for another gravity, `/bg=ffffff` for a padded one,
    /// `/max=30000` under a byte cap, then `/trim` when a border was taken off
    /// (`300x400/cover/jpeg/q82/smart/trim`). A square centre crop with none of them writes exactly
    /// the text it had before shapes, gravity and trim existed, so those entries stay valid.
    public var description: String {
        var text = "\(sizeText)/\(fit)/\(format)/q\(quality)"
        if gravity != Self.centerGravity { text += "/" + gravity }
        if let background { text += "/" + Self.backgroundPrefix + background }
        if let maxBytes { text += "/" + Self.maxBytesPrefix + String(maxBytes) }
        if trim { text += "/" + Self.trimText }
        return text
    }

    /// Parses `description`'s form back (for the index and the CLI). `…/center`, `300x300` and the
    /// parts out of order are refused: a variant has one text, so one key.
    public init?(_ text: String) {
        var parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (4...8).contains(parts.count), let (width, height) = Self.sizes(parts[0]), parts[3].first == "q",
              let quality = Int(parts[3].dropFirst()) else {
            return nil
        }
        let trim = parts.count > 4 && parts.last == Substring(Self.trimText)
        if trim { parts.removeLast() }
        var maxBytes: Int?
        if parts.count > 4, let last = parts.last, last.hasPrefix(Self.maxBytesPrefix) {
            guard let number = Int(last.dropFirst(Self.maxBytesPrefix.count)), number > 0,
                  String(number) == last.dropFirst(Self.maxBytesPrefix.count) else { return nil }
            maxBytes = number
            parts.removeLast()
        }
        var background: String?
        if parts.count > 4, let last = parts.last, last.hasPrefix(Self.backgroundPrefix) {
            let text = last.dropFirst(Self.backgroundPrefix.count)
            guard Self.isBackground(text) else { return nil }
            background = String(text)
            parts.removeLast()
        }
        // Bands belong to pad, and pad always names them.
        guard (parts[1] == "pad") == (background != nil) else { return nil }
        var gravity = Self.centerGravity
        if parts.count == 5 {
            let part = parts[4]
            guard !part.isEmpty, part != Substring(Self.centerGravity), part != Substring(Self.trimText),
                  !part.hasPrefix(Self.backgroundPrefix), !part.hasPrefix(Self.maxBytesPrefix) else { return nil }
            gravity = String(part)
        }
        guard parts.count <= 5 else { return nil }
        self.init(size: width, height: height, fit: String(parts[1]), format: String(parts[2]), quality: quality,
                  gravity: gravity, trim: trim, background: background, maxBytes: maxBytes)
    }

    /// A background as `Variant` writes it: lower-case `RRGGBB`, `auto`, `blur` or `transparent`.
    private static func isBackground(_ text: Substring) -> Bool {
        ["auto", "blur", "transparent"].contains(text)
            || text.count == 6 && text.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    /// "200" or "300x400" (never "300x300": a square has one spelling).
    private static func sizes(_ text: Substring) -> (Int, Int)? {
        let sides = text.split(separator: "x", omittingEmptySubsequences: false)
        guard let width = Int(sides[0]), String(width) == sides[0] else { return nil }
        guard sides.count == 2 else { return sides.count == 1 ? (width, width) : nil }
        guard let height = Int(sides[1]), String(height) == sides[1], height != width else { return nil }
        return (width, height)
    }

    private enum CodingKeys: String, CodingKey { case size, height, fit, format, quality, gravity, trim, background, maxBytes = "max_bytes" }

    /// JSON written before gravity, trim or shapes existed has none of them: untrimmed centre crops of squares.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(size: try container.decode(Int.self, forKey: .size), height: try container.decodeIfPresent(Int.self, forKey: .height),
                  fit: try container.decode(String.self, forKey: .fit),
                  format: try container.decode(String.self, forKey: .format), quality: try container.decode(Int.self, forKey: .quality),
                  gravity: try container.decodeIfPresent(String.self, forKey: .gravity) ?? Self.centerGravity,
                  trim: try container.decodeIfPresent(Bool.self, forKey: .trim) ?? false,
                  background: try container.decodeIfPresent(String.self, forKey: .background),
                  maxBytes: try container.decodeIfPresent(Int.self, forKey: .maxBytes))
    }

    /// The newer fields only when they say something, so a square's JSON is what it was before them.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(size, forKey: .size)
        if height != size { try container.encode(height, forKey: .height) }
        try container.encode(fit, forKey: .fit)
        try container.encode(format, forKey: .format)
        try container.encode(quality, forKey: .quality)
        try container.encode(gravity, forKey: .gravity)
        if trim { try container.encode(trim, forKey: .trim) }
        try container.encodeIfPresent(background, forKey: .background)
        try container.encodeIfPresent(maxBytes, forKey: .maxBytes)
    }
}

/// A cache key: the normalized URL and the variant. `digest` (SHA-256, hex) names the file on disk,
/// so nothing from a URL ever becomes part of a path.
public struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    public let url: NormalizedURL
    public let variant: CacheVariant
    public let digest: String
    /// The SHA-256 as four words, so hashing a key is one word instead of five strings, and the
    /// memory tier can compare keys without following any string's storage.
    let digestBits: SHA256Digest

    public init(url: NormalizedURL, variant: CacheVariant) {
        self.url = url
        self.variant = variant
        let hash = SHA256Digest(of: "\(url.value)\n\(variant.description)")
        self.digest = hash.hex
        self.digestBits = hash
    }

    /// Equal keys have equal digests, so hashing part of the digest agrees with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(digestBits.w0)
    }

    /// The URL and variant are the identity; the digest only rejects unequal keys in a few compares.
    public static func == (lhs: CacheKey, rhs: CacheKey) -> Bool {
        lhs.digestBits == rhs.digestBits && lhs.url == rhs.url && lhs.variant == rhs.variant
    }

    /// Normalizes `url` first; throws for anything that is not an absolute http(s) URL.
    public init(url: String, variant: CacheVariant) throws(CacheKeyError) {
        self.init(url: try NormalizedURL(url), variant: variant)
    }

    public var description: String { "\(url.value) [\(variant)]" }
}


public struct CacheKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
