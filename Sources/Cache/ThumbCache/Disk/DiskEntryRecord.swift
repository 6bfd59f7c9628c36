/// What a lookup knows of one entry: its index row, with this process's hits not yet written
/// and whether this process has checked its file. URL and variant are not kept: the caller's key
/// has them.
struct DiskEntryRecord: Sendable, Equatable {
    var id: Hash256
    var isOriginal: Bool
    var metadata: EntryMetadata
    /// Unix seconds.
    var lastAccess: Double
    var hits: Int
    /// This process has read the file and found its checksum right. Entry files are never
    /// rewritten in place (a new version is a new file renamed over), so one check per file per
    /// process catches damage from before the start, and later hits skip hashing the bytes.
    var verified = false

    /// Tells one version of an entry from another (a replacement has other bytes): a file kept
    /// open, or read outside the lock, is used only while the index still names these bytes.
    var generation: UInt64 { metadata.checksum.w0 }
    var kind: Int { isOriginal ? 1 : 0 }
    var size: Int { metadata.size }
}

/// An entry's use after a hit.
struct DiskEntryUse: Sendable {
    var hits: Int
    /// Unix seconds.
    var lastAccess: Double
}

/// Hits not yet written to the index, by entry: the index learns them in one batch (every
/// `accessFlushBatch` hits or `accessFlushInterval`, and before any eviction, so the LRU order it
/// evicts by is the true one). Bounded by the batch size, not by the number of entries.
struct PendingUses: Sendable {
    private(set) var uses: [Hash256: DiskEntryUse] = [:]
    /// Access times are made strictly increasing, so two hits within one clock tick keep their order.
    private var lastStamp = 0.0

    var isEmpty: Bool { uses.isEmpty }

    mutating func stamp(_ now: Double) -> Double {
        lastStamp = max(now, lastStamp.nextUp)
        return lastStamp
    }

    /// Records `count` hits of `id` at `now`; returns the stamp given.
    @discardableResult
    mutating func add(_ id: Hash256, count: Int, now: Double) -> Double {
        let time = stamp(now)
        uses[id, default: DiskEntryUse(hits: 0, lastAccess: time)].hits += count
        uses[id]!.lastAccess = time
        return time
    }

    /// `record` with the hits this process has not written yet.
    func overlay(_ record: DiskEntryRecord) -> DiskEntryRecord {
        guard let use = uses[record.id] else { return record }
        var record = record
        record.hits += use.hits
        record.lastAccess = max(record.lastAccess, use.lastAccess)
        return record
    }

    mutating func forget(_ id: Hash256) { uses.removeValue(forKey: id) }

    mutating func takeAll() -> [DiskIndexBatch.Access] {
        defer { uses.removeAll(keepingCapacity: true) }
        return uses.map { DiskIndexBatch.Access(id: $0.key, lastAccess: $0.value.lastAccess, addedHits: $0.value.hits) }
    }
}

/// Which entry files this process has checksummed, by version. Bounded: past `capacity` it starts
/// again, which costs only a second checksum of files hit again, never a wrong answer.
struct VerifiedFiles: Sendable {
    let capacity: Int
    private var generations: [Hash256: UInt64] = [:]

    init(capacity: Int = 262_144) { self.capacity = capacity }

    func contains(_ record: DiskEntryRecord) -> Bool { generations[record.id] == record.generation }

    mutating func insert(_ record: DiskEntryRecord) {
        if generations.count >= capacity { generations.removeAll(keepingCapacity: true) }
        generations[record.id] = record.generation
    }

    mutating func forget(_ id: Hash256) { generations.removeValue(forKey: id) }
    mutating func removeAll() { generations.removeAll() }
}
