import ByteUnits
import Foundation

// How the disk tier is bounded and opened: its limits, its fsync policy, owner or reader.

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
    /// Index rows of entries being served, kept in memory so a hit reads no SQLite (`HotRecords`):
    /// about half a kilobyte each; 0 keeps none. The owner's only.
    public var hotRecords: Int
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
                hotRecords: Int = 16_384,
                accessFlushBatch: Int = 1000,
                accessFlushInterval: Duration = .seconds(5),
                recheckWindow: Duration = .seconds(120)) {
        self.maxBytes = maxBytes
        self.originalsMaxBytes = originalsMaxBytes
        self.ttl = ttl
        self.fsync = fsync
        self.verifyOnRead = verifyOnRead
        self.keptOpenFiles = keptOpenFiles
        self.hotRecords = hotRecords
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
