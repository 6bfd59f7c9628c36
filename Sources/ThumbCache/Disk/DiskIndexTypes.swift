import Foundation
import GRDB

/// What the index reads and writes: its rows, batches of changes, counters and totals.
enum DiskIndexError: Error, CustomStringConvertible {
    case incompatible(version: Int)
    case malformedRow(String)

    var description: String {
        switch self {
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
    struct Access: Sendable {
        var id: Hash256
        var lastAccess: Double
        var hits: Int
    }

    struct Validation: Sendable {
        var id: Hash256
        var validated: Double
        var etag: String?
        var lastModified: String?
    }

    var deleteAll = false
    var deletes: [Hash256] = []
    var upserts: [DiskIndexRow] = []
    var accesses: [Access] = []
    var validations: [Validation] = []
    var counters: DiskCounters?

    var isEmpty: Bool {
        !deleteAll && deletes.isEmpty && upserts.isEmpty && accesses.isEmpty && validations.isEmpty && counters == nil
    }
}

/// A full index row.
struct DiskIndexRow: Sendable, Equatable {
    var digest: String
    var url: String
    var host: String
    var variant: String
    var isOriginal: Bool
    var size: Int
    var sha256: String
    var contentType: String?
    var etag: String?
    var lastModified: String?
    var created: Double
    var validated: Double
    var lastAccess: Double
    var hits: Int

    init(row: Row) {
        digest = row[0]
        url = row[1]
        host = row[2]
        variant = row[3]
        let kind: String = row[4]
        isOriginal = kind == "original"
        size = row[5]
        sha256 = row[6]
        contentType = row[7]
        etag = row[8]
        lastModified = row[9]
        created = row[10]
        validated = row[11]
        lastAccess = row[12]
        hits = row[13]
    }

    init(key: CacheKey, record: DiskEntryRecord) {
        digest = key.digest
        url = key.url.value
        host = key.url.host
        variant = key.variant.description
        isOriginal = key.variant.isOriginal
        size = record.size
        sha256 = record.checksum.hex
        contentType = record.contentType
        etag = record.etag
        lastModified = record.lastModified
        created = record.created
        validated = record.validated
        lastAccess = record.lastAccess
        hits = record.hits
    }

    init(key: CacheKey, sidecar: DiskSidecar) {
        digest = key.digest
        url = key.url.value
        host = key.url.host
        variant = key.variant.description
        isOriginal = key.variant.isOriginal
        size = sidecar.size
        sha256 = sidecar.sha256
        contentType = sidecar.contentType
        etag = sidecar.etag
        lastModified = sidecar.lastModified
        created = sidecar.created
        validated = sidecar.validated
        lastAccess = sidecar.validated
        hits = 0
    }

    /// The key, when the stored URL and variant parse and hash to the stored digest.
    var key: CacheKey? {
        guard let url = try? NormalizedURL(url), let variant = CacheVariant(variant) else { return nil }
        let key = CacheKey(url: url, variant: variant)
        return key.digest == digest ? key : nil
    }

    var record: DiskEntryRecord? {
        guard let id = Hash256(hex: digest), let checksum = Hash256(hex: sha256) else { return nil }
        return DiskEntryRecord(id: id, isOriginal: isOriginal, size: size, checksum: checksum, contentType: contentType,
                               etag: etag, lastModified: lastModified, created: created, validated: validated,
                               lastAccess: lastAccess, hits: hits)
    }

    var sidecar: DiskSidecar {
        DiskSidecar(url: url, variant: variant, size: size, sha256: sha256, contentType: contentType, etag: etag,
                    lastModified: lastModified, created: created, validated: validated)
    }

    func entry(key: CacheKey, layout: DiskLayout) -> CacheEntry {
        CacheEntry(key: key, filePath: layout.root + "/objects/\(digest.prefix(2))/\(digest)", size: size,
                   checksum: sha256, contentType: contentType,
                   validators: CacheValidators(etag: etag, lastModified: lastModified),
                   created: Date(timeIntervalSince1970: created), validated: Date(timeIntervalSince1970: validated),
                   lastAccess: Date(timeIntervalSince1970: lastAccess), hits: hits)
    }
}
