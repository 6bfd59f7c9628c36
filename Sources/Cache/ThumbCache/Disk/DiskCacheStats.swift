import ByteUnits
import Foundation

// What `thumbd cache` and the inspector show of the disk tier: listings, statistics, verification.

/// Orders for `DiskCache.entries(sortedBy:…)`.
public enum CacheEntryOrder: String, Sendable, CaseIterable, Codable {
    /// Largest first.
    case size
    /// Oldest first (by creation).
    case age
    /// Most hits first.
    case hits
    /// Most recently used first.
    case lastAccess
    /// Least recently used first: the order in which entries would be evicted.
    case evictionOrder
}

/// Totals for one budget (thumbnails or originals).
public struct CacheTierUsage: Sendable, Hashable, Codable {
    public var entries: Int
    public var bytes: Int
    public var maxBytes: Int

    public init(entries: Int, bytes: Int, maxBytes: Int) {
        self.entries = entries
        self.bytes = bytes
        self.maxBytes = maxBytes
    }
}

public struct CacheHostUsage: Sendable, Hashable, Codable {
    public var host: String
    public var entries: Int
    public var bytes: Int

    public init(host: String, entries: Int, bytes: Int) {
        self.host = host
        self.entries = entries
        self.bytes = bytes
    }
}

/// Entries whose size is in `lowerBound..<upperBound` (upperBound nil: no upper end).
public struct CacheSizeBucket: Sendable, Hashable, Codable {
    public var lowerBound: Int
    public var upperBound: Int?
    public var entries: Int
    public var bytes: Int

    public init(lowerBound: Int, upperBound: Int?, entries: Int, bytes: Int) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
        self.entries = entries
        self.bytes = bytes
    }

    /// "16 KiB – 64 KiB", "≥ 4 MiB".
    public var label: String {
        guard let upperBound else { return "≥ \(ByteSize.format(lowerBound))" }
        return lowerBound == 0 ? "< \(ByteSize.format(upperBound))" : "\(ByteSize.format(lowerBound)) – \(ByteSize.format(upperBound))"
    }

    /// The fixed bucket bounds: < 1 KiB, 1–4 KiB, …, 1–4 MiB, ≥ 4 MiB.
    public static let bounds: [Int] = [0, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20]
}

public struct DiskCacheStats: Sendable, Hashable, Codable {
    public var directory: String
    public var thumbnails: CacheTierUsage
    public var originals: CacheTierUsage
    public var ttlSeconds: Double
    /// Entries past the TTL (served as stale until revalidated).
    public var staleEntries: Int
    public var oldestCreated: Date?
    public var newestCreated: Date?
    public var leastRecentAccess: Date?
    /// The hosts with the most bytes, largest first (at most 10).
    public var topHosts: [CacheHostUsage]
    public var sizeHistogram: [CacheSizeBucket]
    /// Lookups answered, lookups missed, entries evicted for space: since the cache was created.
    /// A reader sees the owner's counts as of its last batch write.
    public var hits: Int
    public var misses: Int
    public var evictions: Int
    /// Bytes the index itself takes (database and its write-ahead log).
    public var indexBytes: Int

    public var entries: Int { thumbnails.entries + originals.entries }
    public var bytes: Int { thumbnails.bytes + originals.bytes }
}

/// What `verify` found. Problems are listed whether or not they were repaired.
public struct VerifyReport: Sendable, Hashable, Codable {
    public enum ProblemKind: String, Sendable, Hashable, Codable {
        /// The index lists an entry whose file is missing.
        case missingFile
        /// The file's size differs from the index.
        case sizeMismatch
        /// Same size, different content.
        case checksumMismatch
        /// The file cannot be read.
        case unreadable
        /// A file in objects/ that the index does not list.
        case orphanFile
        /// An entry's metadata file (used to rebuild the index) is missing or does not match.
        case badSidecar
        /// A leftover temporary file.
        case temporaryFile
    }

    public struct Problem: Sendable, Hashable, Codable, CustomStringConvertible {
        public var kind: ProblemKind
        public var path: String
        public var url: String?
        public var detail: String

        public var description: String { "\(kind.rawValue): \(path)\(url.map { " (\($0))" } ?? "")\(detail.isEmpty ? "" : ": \(detail)")" }
    }

    public var checkedEntries = 0
    public var checkedBytes = 0
    public var problems: [Problem] = []
    /// Whether the problems were fixed (entries dropped, strays removed, sidecars rewritten).
    public var repaired = false

    public var isClean: Bool { problems.isEmpty }
}
