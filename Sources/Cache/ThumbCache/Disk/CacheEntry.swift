import ByteUnits
import Foundation

// One entry as the disk tier keeps it and as a lookup returns it.

/// The origin's validators, kept so a stale entry can be revalidated (If-None-Match,
/// If-Modified-Since) instead of downloaded again.
public struct CacheValidators: Sendable, Hashable, Codable {
    public var etag: String?
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    public var isEmpty: Bool { etag == nil && lastModified == nil }
}

/// Wall-clock time for the cache (created, last access, staleness). Injectable so tests and
/// tools can move time without sleeping.
public struct CacheClock: Sendable {
    public let now: @Sendable () -> Date

    public init(_ now: @escaping @Sendable () -> Date) { self.now = now }

    public static let system = CacheClock { Date() }

    var seconds: Double { now().timeIntervalSince1970 }
}

/// Where warnings go (repairs, dropped files, write failures). The daemon passes its logger.
public typealias CacheWarningSink = @Sendable (String) -> Void

public enum CacheWarnings {
    /// Writes `thumbd: warning: …` lines to standard error.
    public static let standardError: CacheWarningSink = { message in
        FileHandle.standardError.write(Data("thumbd: warning: \(message)\n".utf8))
    }
}

/// One cached file as the index describes it: where its bytes are, what was stored with them,
/// and how it has been used.
public struct CacheEntry: Sendable, Hashable {
    public let key: CacheKey
    /// Absolute path of the file; its bytes are exactly the stored bytes (no header). Valid until
    /// the entry is evicted or replaced: open it promptly (an open file stays readable).
    public let filePath: String
    public let metadata: EntryMetadata
    /// Last hit. Hits are written to the index in batches, so another process reading the index
    /// may see this a few seconds behind.
    public let lastAccess: Date
    public let hits: Int

    public init(key: CacheKey, filePath: String, metadata: EntryMetadata, lastAccess: Date, hits: Int) {
        self.key = key
        self.filePath = filePath
        self.metadata = metadata
        self.lastAccess = lastAccess
        self.hits = hits
    }

    public var url: NormalizedURL { key.url }
    public var variant: CacheVariant { key.variant }
    public var isOriginal: Bool { key.variant.isOriginal }
    /// Built on demand: a URL costs more than reading a small file, and a hit rarely needs one.
    public var fileURL: URL { URL(fileURLWithPath: filePath, isDirectory: false) }

    public var size: Int { metadata.size }
    /// SHA-256 of the bytes, lower-case hex.
    public var checksum: String { metadata.checksum.hex }
    public var contentType: String? { metadata.contentType }
    public var validators: CacheValidators { metadata.validators }
    public var created: Date { metadata.created }
    public var validated: Date { metadata.validated }

    public func isStale(ttl: Duration, now: Date) -> Bool { metadata.isStale(ttl: ttl, now: now) }
}

/// JSON for tools (`thumbd cache ls --json`, the HTTP API): the key as `url` and `variant` text,
/// then the metadata's fields beside them (not nested), then the use.
extension CacheEntry: Codable {
    enum CodingKeys: String, CodingKey {
        case url, variant, kind, file, lastAccess, hits
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .variant)
        guard let variant = CacheVariant(text) else {
            throw DecodingError.dataCorruptedError(forKey: .variant, in: container, debugDescription: "not a variant: \(text)")
        }
        let url: NormalizedURL
        do { url = try NormalizedURL(stored: try container.decode(String.self, forKey: .url)) } catch let error as CacheKeyError {
            throw DecodingError.dataCorruptedError(forKey: .url, in: container, debugDescription: error.message)
        }
        self.init(key: CacheKey(url: url, variant: variant), filePath: try container.decode(String.self, forKey: .file),
                  metadata: try EntryMetadata(from: decoder), lastAccess: try container.decode(Date.self, forKey: .lastAccess),
                  hits: try container.decode(Int.self, forKey: .hits))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key.url.value, forKey: .url)
        try container.encode(key.variant.description, forKey: .variant)
        try container.encode(isOriginal ? "original" : "thumbnail", forKey: .kind)
        try container.encode(filePath, forKey: .file)
        try metadata.encode(to: encoder)
        try container.encode(lastAccess, forKey: .lastAccess)
        try container.encode(hits, forKey: .hits)
    }
}

/// One entry of the disk tier as `DiskCache.read` found it: what the index knows, the bytes if they
/// were asked for, and whether the TTL had run out when it was read.
public struct DiskRead: Sendable {
    /// What a caller needs of an entry, so that each read does only the work its caller needs.
    public enum Need: Sendable {
        /// The bytes, read and checked against the index's size (and its checksum the first time
        /// this process reads the file): to serve or use them.
        case bytes
        /// The entry only if this process has already checked its file: for a server, which sends
        /// a file over `readingUpTo` bytes unread (sendfile, from `filePath`) and gets a smaller
        /// one's bytes read through its kept descriptor (one write of head and body costs less
        /// than a write and a sendfile). nil otherwise (not checked yet, or a small file with no
        /// kept descriptor), and then `.bytes` reads and checks it. Counted only when not nil.
        case verifiedFile(readingUpTo: Int)
        /// What the index knows, without touching the file: to decide, list or locate.
        case facts
    }

    public let entry: CacheEntry
    /// The stored bytes when `.bytes` was asked; empty otherwise.
    public let bytes: [UInt8]
    public let isStale: Bool
}
