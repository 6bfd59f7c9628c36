import Foundation
import GRDB

/// What the index reads and writes: its rows, batches of changes, counters and totals.
enum DiskIndexError: Error, CustomStringConvertible {
    case incompatible(version: Int)
    case malformedRow(String)

    var description: String {
        switch self {
        case .incompatible(let version) where (1..<DiskIndex.schemaVersion).contains(version):
            return "the index has schema version \(version), from an older thumbd: the daemon (or any command that owns the cache) upgrades it when it opens it"
        case .incompatible(let version): return "unknown index schema version \(version) (expected \(DiskIndex.schemaVersion))"
        case .malformedRow(let digest): return "malformed index row \(digest.prefix(80))"
        }
    }
}

struct DiskCounters: Sendable, Equatable {
    var hits = 0
    var misses = 0
    var evictions = 0
}

/// Entries and bytes of each kind (index 0: thumbnails, 1: originals), as `totals` holds them.
struct DiskTotals: Sendable, Equatable {
    var counts = [0, 0]
    var bytes = [0, 0]

    func bytes(originals: Bool) -> Int { bytes[originals ? 1 : 0] }
    func count(originals: Bool) -> Int { counts[originals ? 1 : 0] }
}

struct DiskIndexAggregate: Sendable {
    var thumbnails: (entries: Int, bytes: Int) = (0, 0)
    var originals: (entries: Int, bytes: Int) = (0, 0)
    var oldestCreated: Double?
    var newestCreated: Double?
    var leastRecentAccess: Double?
    var stale = 0
    var topHosts: [CacheHostUsage] = []
    var histogram: [CacheSizeBucket] = []
}

/// One change set for the index; `DiskIndex.apply` writes it in one transaction.
struct DiskIndexBatch: Sendable {
    /// Hits since the last batch: added to the row's count; the row keeps the later access time.
    struct Access: Sendable {
        var id: Hash256
        var lastAccess: Double
        var addedHits: Int
    }

    var deleteAll = false
    var deletes: [Hash256] = []
    /// Rows whose digest or checksum does not parse (a damaged or hand-edited index).
    var malformedDigests: [String] = []
    var upserts: [DiskIndexRow] = []
    var accesses: [Access] = []
    /// Entries whose metadata changed in place (a 304 made them fresh, perhaps with new validators).
    var revalidations: [(id: Hash256, metadata: EntryMetadata)] = []
    var counters: DiskCounters?

    var isEmpty: Bool {
        !deleteAll && deletes.isEmpty && malformedDigests.isEmpty && upserts.isEmpty && accesses.isEmpty && revalidations.isEmpty
            && counters == nil
    }
}

/// A full index row: the key as the index stores it (text, parsed only where needed), the entry's
/// metadata, and its use.
struct DiskIndexRow: Sendable, Equatable {
    var digest: String
    var url: String
    var host: String
    var variant: String
    var isOriginal: Bool
    var metadata: EntryMetadata
    var lastAccess: Double
    var hits: Int

    /// The columns `init(row:)` reads, in its order.
    static let columns = "digest, url, host, variant, kind, \(EntryMetadata.columns), last_access, hits"
    static let columnCount = 7 + EntryMetadata.columnCount

    /// Nil for a row whose checksum is not 64 hex digits (the schema cannot forbid it).
    init?(row: Row) {
        guard let metadata = EntryMetadata(row: row, startingAt: 5) else { return nil }
        digest = row[0]
        url = row[1]
        host = row[2]
        variant = row[3]
        let kind: String = row[4]
        isOriginal = kind == "original"
        self.metadata = metadata
        let use = 5 + EntryMetadata.columnCount
        lastAccess = row[use]
        hits = row[use + 1]
    }

    init(key: CacheKey, metadata: EntryMetadata, lastAccess: Double, hits: Int) {
        digest = key.digest
        url = key.url.value
        host = key.url.host
        variant = key.variant.description
        isOriginal = key.variant.isOriginal
        self.metadata = metadata
        self.lastAccess = lastAccess
        self.hits = hits
    }

    init(key: CacheKey, record: DiskEntryRecord) {
        self.init(key: key, metadata: record.metadata, lastAccess: record.lastAccess, hits: record.hits)
    }

    /// An entry adopted from its sidecar: never hit yet, last used when it was last validated.
    init(key: CacheKey, sidecar: DiskSidecar) {
        self.init(key: key, metadata: sidecar.metadata, lastAccess: sidecar.metadata.validated.timeIntervalSince1970, hits: 0)
    }

    /// The values for `columns`, in its order.
    var databaseValues: [(any DatabaseValueConvertible)?] {
        [digest, url, host, variant, isOriginal ? "original" : "thumbnail"] + metadata.databaseValues + [lastAccess, hits]
    }

    /// The key, when the stored URL and variant parse and hash to the stored digest.
    var key: CacheKey? {
        guard let url = try? NormalizedURL(stored: url), let variant = CacheVariant(variant) else { return nil }
        let key = CacheKey(url: url, variant: variant)
        return key.digest == digest ? key : nil
    }

    var record: DiskEntryRecord? {
        guard let id = Hash256(hex: digest) else { return nil }
        return DiskEntryRecord(id: id, isOriginal: isOriginal, metadata: metadata, lastAccess: lastAccess, hits: hits)
    }

    var sidecar: DiskSidecar {
        DiskSidecar(url: url, variant: variant, metadata: metadata)
    }

    func entry(key: CacheKey, layout: DiskLayout) -> CacheEntry {
        CacheEntry(key: key, filePath: layout.root + "/objects/\(digest.prefix(2))/\(digest)", metadata: metadata,
                   lastAccess: Date(timeIntervalSince1970: lastAccess), hits: hits)
    }
}
