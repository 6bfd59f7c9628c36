import ByteUnits
import Foundation

// The disk tier's public vocabulary: limits, what a lookup returns, listings, statistics,
// verification reports and errors. The CLI (`thumbd cache …`) and the daemon build on these.

/// How hard the disk tier pushes bytes to stable storage before a new entry becomes visible.
/// Every policy is safe against the process dying (kill -9): a file only ever appears under its
/// final name complete. The policies differ on power loss, and in what a store waits for.
public enum FsyncPolicy: String, Sendable, Codable, CaseIterable {
    /// No fsync. Survives crashes of thumbd; after a power cut, recent entries may be lost
    /// (a later start drops them when their checksums do not match). The kernel writes them
    /// back within about 30 s.
    case none
    /// The default. No store waits for the disk: a thread flushes the cache's filesystem once a
    /// second when anything was written (`DiskSyncer`, one syncfs for every new file). A power
    /// cut loses at most the last second's entries; a file it tears is dropped by its checksum.
    case batch
    /// fsync each new entry file before it is renamed into place: an entry that was ever visible
    /// survives a power cut, and each store waits for the disk (milliseconds, tens on a busy one).
    /// Its metadata sidecar is not waited for: after a power cut a torn sidecar only means that
    /// entry cannot be recovered if the index is lost too.
    case data
    /// As `data`, plus the sidecars, the folder after each rename, and SQLite's `synchronous=FULL`.
    case full

    /// Whether a store fsyncs its own file before renaming it into place.
    public var syncsEachFile: Bool { self == .data || self == .full }
}

/// The disk tier's budgets and behaviour.
public struct DiskCacheLimits: Sendable, Hashable, Codable {
    public static let defaultMaxBytes = 2 << 30
    public static let defaultOriginalsMaxBytes = 1 << 30
    public static let defaultTTL = Duration.seconds(7 * 86_400)

    /// Budget for thumbnails (every variant except originals), bytes of file content.
    public var maxBytes: Int
    /// A separate budget for downloaded originals (`CacheVariant.original`), so a new size of a
    /// known image needs no second download. 0 keeps no originals.
    public var originalsMaxBytes: Int
    /// Entries validated longer ago than this are served as stale (`isStale`), keeping their
    /// ETag and Last-Modified so the caller can revalidate and then `refresh` them.
    public var ttl: Duration
    public var fsync: FsyncPolicy
    /// Checksum each file against the index (SHA-256, about 20 µs per 30 KB) the first time this
    /// process reads it, so a damaged file is dropped, not served. Files are immutable once
    /// renamed into place, so later hits on the same file skip the hash.
    public var verifyOnRead: Bool
    /// Descriptors of checked entry files kept open, so a hit reads its file without opening it
    /// (`OpenEntryFiles`). Each is one file descriptor: at most an eighth of the process's limit
    /// (RLIMIT_NOFILE) is used, whatever this says; 0 keeps none.
    public var keptOpenFiles: Int
    /// Hits update last-access times and hit counts in memory at once (LRU order is always
    /// exact); the index is written in one batch when this many hits are pending …
    public var accessFlushBatch: Int
    /// … or when this long has passed since the last batch, and always on close.
    public var accessFlushInterval: Duration
    /// After an unclean shutdown, files modified within this window before the newest file are
    /// checksummed again. A kill -9 cannot leave a partial file under its final name (files are
    /// complete before they are renamed), so this is for power loss, when the last writes may
    /// not have reached the disk; the kernel writes dirty data back within about 30 s.
    public var recheckWindow: Duration

    public init(maxBytes: Int = DiskCacheLimits.defaultMaxBytes,
                originalsMaxBytes: Int = DiskCacheLimits.defaultOriginalsMaxBytes,
                ttl: Duration = DiskCacheLimits.defaultTTL,
                fsync: FsyncPolicy = .batch,
                verifyOnRead: Bool = true,
                keptOpenFiles: Int = 512,
                accessFlushBatch: Int = 1000,
                accessFlushInterval: Duration = .seconds(5),
                recheckWindow: Duration = .seconds(120)) {
        self.maxBytes = maxBytes
        self.originalsMaxBytes = originalsMaxBytes
        self.ttl = ttl
        self.fsync = fsync
        self.verifyOnRead = verifyOnRead
        self.keptOpenFiles = keptOpenFiles
        self.accessFlushBatch = accessFlushBatch
        self.accessFlushInterval = accessFlushInterval
        self.recheckWindow = recheckWindow
    }

    /// The budget of one kind of entry.
    public func maxBytes(originals: Bool) -> Int { originals ? originalsMaxBytes : maxBytes }

    /// Evicted files of one kind that may wait for a background unlink, in bytes: 1/1024 of the
    /// budget in whole 64 KiB, at most 16 MiB. None under a 64 MiB budget, whose few thousand files
    /// stay warm enough to unlink inline. The waiting bytes count against the budget.
    public func unlinkQueueBytes(originals: Bool) -> Int {
        let granule = 64 << 10
        return min(16 << 20, maxBytes(originals: originals) / 1024 / granule * granule)
    }
}

/// How a process opens the cache directory.
public enum CacheOpenMode: Sendable, Hashable {
    /// The one writer: takes the directory's lock file (non-blocking), repairs after a crash,
    /// and may change anything.
    case owner
    /// A reader beside a running owner (`thumbd cache stats|ls|show|path|verify`): opens the
    /// index read-only and never creates, changes or removes a cache file. (With no owner
    /// running, SQLite may create the index's `-wal` and `-shm` files, as for any WAL reader.)
    case readOnly
}

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

/// Every error the disk tier reports. `description` is a sentence a person can act on.
public enum CacheError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another process holds the cache directory's lock (normally `thumbd serve`).
    case ownedByAnotherProcess(directory: String, pid: Int32?)
    /// A change was asked of a cache opened read-only.
    case readOnly(directory: String)
    /// A read-only open found no cache there.
    case noCache(directory: String)
    /// The directory cannot be created or used.
    case directoryUnusable(directory: String, reason: String)
    /// Writing an entry failed (full disk, unwritable folder, I/O error). The cache stays
    /// consistent: the entry is simply not stored.
    case writeFailed(path: String, reason: String, diskFull: Bool)
    case readFailed(path: String, reason: String)
    /// The entry is bigger than its whole budget, so it is never stored.
    case entryTooLarge(size: Int, maxBytes: Int)
    /// SQLite refused an operation on the index.
    case indexFailed(reason: String)
    /// A read-only open could not read the index (a writer would rebuild it).
    case indexUnreadable(path: String, reason: String)
    case closed

    public var description: String {
        switch self {
        case .ownedByAnotherProcess(let directory, let pid):
            let who = pid.map { "process \($0)" } ?? "another process"
            return "the cache at \(directory) is in use by \(who) (thumbd serve?); stop it, or make the change through its HTTP API"
        case .readOnly(let directory):
            return "the cache at \(directory) is open read-only; changes need the owning process (or stop it first)"
        case .noCache(let directory):
            return "there is no thumbd cache at \(directory)"
        case .directoryUnusable(let directory, let reason):
            return "cannot use the cache directory \(directory): \(reason)"
        case .writeFailed(let path, let reason, let diskFull):
            return diskFull ? "the disk is full: cannot write \(path) (\(reason))" : "cannot write \(path): \(reason)"
        case .readFailed(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .entryTooLarge(let size, let maxBytes):
            return "an entry of \(ByteSize.format(size)) does not fit its cache budget of \(ByteSize.format(maxBytes))"
        case .indexFailed(let reason):
            return "the cache index failed: \(reason)"
        case .indexUnreadable(let path, let reason):
            return "cannot read the cache index \(path): \(reason) (the owning process rebuilds it on its next start)"
        case .closed:
            return "the cache is closed"
        }
    }
}


extension Duration {
    /// The duration in seconds, as a Double.
    public var secondsValue: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

/// How the owner found its directory when it opened it (logged by the daemon, tested after kill -9).
public struct DiskStartup: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// The previous owner closed it.
        case clean
        /// Nothing was there: no index, no files, no owner before this one.
        case created
        /// The previous owner's process died, the machine did not: files and index reconciled,
        /// only files the index cannot vouch for checksummed.
        case processCrash = "process_crash"
        /// Left unclosed on another boot (or an unknown one): recently written files checksummed too.
        case crash
        /// The index was missing or damaged and was rebuilt from the files.
        case rebuilt
        case readOnly = "read_only"
    }

    public var kind: Kind
    /// Files read and checksummed during the repair.
    public var checksummed = 0

    public init(kind: Kind, checksummed: Int = 0) {
        self.kind = kind
        self.checksummed = checksummed
    }
}
