import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading entries: what a request, a listing or a check needs of one entry.
extension DiskCache {
    // MARK: Lookups

    /// The bytes for `key`, or nil on a miss. A hit counts (hits, last access, LRU position).
    /// A file that is missing, shorter or different from what the index says is dropped with a
    /// warning and reported as a miss, never served.
    public func lookup(_ key: CacheKey) throws(CacheError) -> DiskHit? {
        guard let id = Hash256(hex: key.digest) else { return nil }
        if mode == .readOnly { return try readOnlyLookup(key, id: id) }
        guard let (bytes, record, stale) = try ownerLookup(id) else { return nil }
        return DiskHit(bytes: bytes, entry: entry(key: key, record: record), isStale: stale)
    }

    /// `lookup` without the listing's `CacheEntry` (its file URL and dates cost more than reading
    /// a small file from the page cache): what serving a hit needs.
    public func content(_ key: CacheKey) throws(CacheError) -> DiskContent? {
        guard let id = Hash256(hex: key.digest) else { return nil }
        if mode == .readOnly {
            return try readOnlyLookup(key, id: id).map { hit in
                DiskContent(bytes: hit.bytes, facts: DiskEntryFacts(checksum: hit.entry.checksum, contentType: hit.entry.contentType,
                                                                    validators: hit.entry.validators,
                                                                    validated: hit.entry.validated.timeIntervalSince1970, isStale: hit.isStale))
            }
        }
        guard let (bytes, record, stale) = try ownerLookup(id) else { return nil }
        return DiskContent(bytes: bytes, facts: facts(record, isStale: stale))
    }

    func facts(_ record: DiskEntryRecord, isStale: Bool) -> DiskEntryFacts {
        DiskEntryFacts(checksum: record.checksum.hex, contentType: record.contentType,
                       validators: CacheValidators(etag: record.etag, lastModified: record.lastModified),
                       validated: record.validated, isStale: isStale)
    }

    func ownerLookup(_ id: Hash256) throws(CacheError) -> ([UInt8], DiskEntryRecord, Bool)? {
        for _ in 0..<3 {
            let seen: DiskEntryRecord? = try state.withLock { (s) throws(CacheError) in
                guard !s.closed else { throw CacheError.closed }
                let record = s.table[id]
                if record == nil {
                    s.counters.misses += 1
                    s.countersDirty = true
                }
                return record
            }
            guard let record = seen else { return nil }
            let path = layout.dataPath(id)
            let bytes: [UInt8]
            do {
                bytes = try FileOps.readAll(path)
            } catch where error.isNotFound {
                if dropIfUnchanged(record, reason: "its file is missing") { return nil }
                continue
            } catch {
                throw .readFailed(path: path, reason: error.reason)
            }
            let checks = limits.verifyOnRead && !record.verified
            if bytes.count != record.size || (checks && Hash256.of(bytes) != record.checksum) {
                let reason = bytes.count != record.size
                    ? "its file has \(bytes.count) bytes, the index says \(record.size)" : "its file does not match its checksum"
                if dropIfUnchanged(record, reason: reason) { return nil }
                continue  // replaced while it was read: look again
            }
            let now = clock.seconds
            guard let touched = countHit(id, generation: record.generation, now: now, markVerified: checks) else { continue }
            return (bytes, touched, isStale(validated: touched.validated, now: now))
        }
        return nil
    }

    /// A hit on an entry whose file this process has already checked: its path and what the index
    /// knows, without reading it, for a server that sends the file itself (sendfile). nil when the
    /// entry is missing or not yet checked (then `content` reads and checks it).
    public func checkedFile(_ key: CacheKey) throws(CacheError) -> DiskFile? {
        guard mode == .owner, let id = Hash256(hex: key.digest) else { return nil }
        let record: DiskEntryRecord? = try state.withLock { (s) throws(CacheError) in
            guard !s.closed else { throw CacheError.closed }
            guard let record = s.table[id], record.verified || !limits.verifyOnRead else { return nil }
            return record
        }
        guard let record else { return nil }
        let now = clock.seconds
        guard let touched = countHit(id, generation: record.generation, now: now, markVerified: false) else { return nil }
        return DiskFile(path: layout.dataPath(id), size: touched.size,
                        facts: facts(touched, isStale: isStale(validated: touched.validated, now: now)))
    }

    /// Records a hit (last access, LRU position, counts) if the entry is still the one that was read.
    func countHit(_ id: Hash256, generation: UInt64, now: Double, markVerified: Bool) -> DiskEntryRecord? {
        let touched = state.withLock { s -> DiskEntryRecord? in
            guard s.table[id]?.generation == generation, let touched = s.table.touch(id, now: now) else { return nil }
            if markVerified { _ = s.table.update(id) { $0.verified = true } }
            s.dirty.insert(id)
            s.pendingHits += 1
            s.counters.hits += 1
            s.countersDirty = true
            return touched
        }
        if touched != nil { flushIfDue() }
        return touched
    }

    /// The entry and its bytes, checked against the index's size, without counting a hit or moving
    /// it in the LRU: for looking at the cache (the inspector) without changing it.
    public func peek(_ key: CacheKey) throws(CacheError) -> (entry: CacheEntry, bytes: [UInt8])? {
        guard let entry = try entry(for: key) else { return nil }
        let bytes: [UInt8]
        do { bytes = try FileOps.readAll(entry.fileURL.path) } catch where error.isNotFound { return nil } catch {
            throw .readFailed(path: entry.fileURL.path, reason: error.reason)
        }
        return bytes.count == entry.size ? (entry, bytes) : nil
    }

    /// Hits the memory tier answered for entries this tier holds too: added to each entry's hits,
    /// its last access and its place in this tier's LRU, but not to this tier's own hit count.
    /// Owner only; written to the index with the next batch of access times.
    public func recordHits(_ hits: [(key: CacheKey, hits: Int)]) {
        guard mode == .owner, !hits.isEmpty else { return }
        let now = clock.seconds
        let counted = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            for (key, count) in hits where count > 0 {
                guard let id = Hash256(hex: key.digest), s.table.touch(id, now: now) != nil else { continue }
                if count > 1 { _ = s.table.update(id) { $0.hits += count - 1 } }
                s.dirty.insert(id)
                s.pendingHits += 1
            }
            return true
        }
        if counted { flushIfDue() }
    }

    func readOnlyLookup(_ key: CacheKey, id: Hash256) throws(CacheError) -> DiskHit? {
        for _ in 0..<3 {
            guard let row = try readIndex({ try $0.row(digest: key.digest) }) else { return nil }
            let path = layout.dataPath(id)
            let bytes: [UInt8]
            do { bytes = try FileOps.readAll(path) } catch where error.isNotFound { continue } catch {
                throw .readFailed(path: path, reason: error.reason)
            }
            if bytes.count == row.size && (!limits.verifyOnRead || Hash256.of(bytes).hex == row.sha256) {
                let now = clock.seconds
                return DiskHit(bytes: bytes, entry: row.entry(key: key, layout: layout), isStale: isStale(validated: row.validated, now: now))
            }
            // The owner may have replaced or evicted it while it was read; if the row is unchanged the file is bad.
            if try readIndex({ try $0.row(digest: key.digest) }) == row {
                warn("not serving \(path): it does not match the index (the owning process drops it on its next check)")
                return nil
            }
        }
        return nil
    }

    /// What the index knows of `key`, without reading the file or counting a hit.
    public func entry(for key: CacheKey) throws(CacheError) -> CacheEntry? {
        guard let id = Hash256(hex: key.digest) else { return nil }
        if mode == .readOnly {
            return try readIndex { try $0.row(digest: key.digest) }.map { $0.entry(key: key, layout: layout) }
        }
        let record = try state.withLock { (s) throws(CacheError) -> DiskEntryRecord? in
            guard !s.closed else { throw CacheError.closed }
            return s.table[id]
        }
        return record.map { entry(key: key, record: $0) }
    }

    /// The absolute path of the file holding exactly `key`'s stored bytes, or nil. The path is
    /// valid until the entry is evicted or replaced: open it promptly (an open file stays readable).
    public func fileURL(for key: CacheKey) throws(CacheError) -> URL? {
        guard let id = Hash256(hex: key.digest) else { return nil }
        if mode == .readOnly {
            guard try readIndex({ try $0.row(digest: key.digest) }) != nil, FileOps.status(layout.dataPath(id))?.isRegular == true else {
                return nil
            }
            return layout.fileURL(id)
        }
        let present = try state.withLock { (s) throws(CacheError) -> Bool in
            guard !s.closed else { throw CacheError.closed }
            return s.table[id] != nil
        }
        return present ? layout.fileURL(id) : nil
    }

    /// Whether the owner's map holds `key` (no I/O, no hit counted). Read-only: asks the index.
    public func contains(_ key: CacheKey) -> Bool {
        guard let id = Hash256(hex: key.digest) else { return false }
        if mode == .readOnly { return ((try? readIndex { try $0.row(digest: key.digest) }) ?? nil) != nil }
        return state.withLock { $0.table[id] != nil }
    }

    /// Drops an entry found damaged, unless it changed since `record` was read. True if dropped.
    func dropIfUnchanged(_ record: DiskEntryRecord, reason: String) -> Bool {
        writer.withLock { w in
            let removed = state.withLock { s -> Bool in
                guard s.table[record.id]?.generation == record.generation else { return false }
                s.table.remove(record.id)
                s.dirty.remove(record.id)
                s.counters.misses += 1
                s.countersDirty = true
                return true
            }
            guard removed else { return false }
            warnAboutDrop("dropped the cache entry \(layout.dataPath(record.id)): \(reason)")
            removeFiles(record.id, &w)
            commit(DiskIndexBatch(deletes: [record.id]), &w)
            return true
        }
    }
}
