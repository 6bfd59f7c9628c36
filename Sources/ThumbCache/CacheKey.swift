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
    /// Where a cover crop was taken from: "center" (every entry made before gravity existed),
    /// "smart", or a focus point ("focus=0.250,0.600"). Any text without a slash other than
    /// "trim", so one with parameters fits.
    public var gravity: String
    /// Whether a uniform border was taken off first. False for every entry made before trimming
    /// existed.
    public var trim: Bool

    public static let centerGravity = "center"
    static let trimText = "trim"

    public init(size: Int, fit: String, format: String, quality: Int, gravity: String = CacheVariant.centerGravity,
                trim: Bool = false) {
        self.size = size
        self.fit = fit
        self.format = format
        self.quality = quality
        self.gravity = gravity
        self.trim = trim
    }

    /// The downloaded bytes themselves, kept under their own budget so a new size of a known
    /// image needs no second download.
    public static let original = CacheVariant(size: 0, fit: "original", format: "source", quality: 0)

    public var isOriginal: Bool { fit == "original" }

    /// Stable text form, part of the hashed key and shown by the CLI: `200/cover/jpeg/q82`, then
    /// `/smart` or `/focus=0.250,0.600` for another gravity, then `/trim` when a border was taken
    /// off (`200/cover/jpeg/q82/smart/trim`). A centre crop without trim writes neither, so its key
    /// is the one it had before gravity and trim existed and those entries stay valid.
    public var description: String {
        var text = "\(size)/\(fit)/\(format)/q\(quality)"
        if gravity != Self.centerGravity { text += "/" + gravity }
        if trim { text += "/" + Self.trimText }
        return text
    }

    /// Parses `description`'s form back (for the index and the CLI). `…/center` is refused: it has
    /// one spelling, without the gravity, so one variant never has two texts (nor two keys).
    public init?(_ text: String) {
        var parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (4...6).contains(parts.count), let size = Int(parts[0]), parts[3].first == "q",
              let quality = Int(parts[3].dropFirst()) else {
            return nil
        }
        let trim = parts.count > 4 && parts.last == Substring(Self.trimText)
        if trim { parts.removeLast() }
        var gravity = Self.centerGravity
        if parts.count == 5 {
            guard !parts[4].isEmpty, parts[4] != Self.centerGravity, parts[4] != Substring(Self.trimText) else { return nil }
            gravity = String(parts[4])
        }
        guard parts.count <= 5 else { return nil }
        self.init(size: size, fit: String(parts[1]), format: String(parts[2]), quality: quality, gravity: gravity, trim: trim)
    }

    private enum CodingKeys: String, CodingKey { case size, fit, format, quality, gravity, trim }

    /// JSON written before gravity or trim existed has neither: those are untrimmed centre crops.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(size: try container.decode(Int.self, forKey: .size), fit: try container.decode(String.self, forKey: .fit),
                  format: try container.decode(String.self, forKey: .format), quality: try container.decode(Int.self, forKey: .quality),
                  gravity: try container.decodeIfPresent(String.self, forKey: .gravity) ?? Self.centerGravity,
                  trim: try container.decodeIfPresent(Bool.self, forKey: .trim) ?? false)
    }

    /// `trim` only when on, so an untrimmed variant's JSON is what it was before trimming existed.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(size, forKey: .size)
        try container.encode(fit, forKey: .fit)
        try container.encode(format, forKey: .format)
        try container.encode(quality, forKey: .quality)
        try container.encode(gravity, forKey: .gravity)
        if trim { try container.encode(trim, forKey: .trim) }
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
    let digestBits: DigestBits

    public init(url: NormalizedURL, variant: CacheVariant) {
        self.url = url
        self.variant = variant
        let material = Array("\(url.value)\n\(variant.description)".utf8)
        let hash = SHA256.hash(data: material)
        self.digest = Self.hexString(hash)
        self.digestBits = hash.withUnsafeBytes { DigestBits($0) }
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

    /// Lower-case hex in one buffer: this runs for every request's key.
    private static func hexString(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// A SHA-256 held inline as four big-endian words (`w0` is the first eight bytes of the digest).
struct DigestBits: Hashable, Sendable {
    var w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64

    init(_ bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count >= 32)
        func word(_ i: Int) -> UInt64 { UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)) }
        (w0, w1, w2, w3) = (word(0), word(1), word(2), word(3))
    }

    /// The digest's bits are already uniform: one word is enough to feed a hasher.
    func hash(into hasher: inout Hasher) {
        hasher.combine(w0)
    }
}

public struct CacheKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
