import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading entries: what a request, a listing or a check needs of one entry.
extension DiskCache {
    // MARK: Reading

    /// `key`'s entry, read as far as `need` asks and no further, or nil on a miss.
    ///
    /// `countingHit` says whether the read is a use of the entry (hits, last access, LRU position):
    /// serving is; looking (the inspector, a prefetch's freshness check, a tool) is not, so it
    /// changes nothing. Only a counted `.bytes` read counts misses, as only it answers a request
    /// (a `.verifiedFile` miss falls back to one). A file that is missing, shorter or different
    /// from what the index says is dropped with a warning by a counted `.bytes` read and reported
    /// as a miss, never served. A read-only cache never counts or drops anything.
    public func read(_ key: CacheKey, _ need: DiskRead.Need, countingHit: Bool = true) throws(CacheError) -> DiskRead? {
        guard let id = Hash256(hex: key.digest) else { return nil }
        switch need {
        case .facts:
            return try known(key, id, verifiedOnly: false, countingHit: countingHit)
        case .verifiedFile(let readingUpTo):
            return try verifiedFile(key, id, readingUpTo: readingUpTo, countingHit: countingHit)
        case .bytes where countingHit:
            return mode == .readOnly ? try readOnlyLookup(key, id: id) : try ownerLookup(key, id)
        case .bytes:
            guard let found = try known(key, id, verifiedOnly: false, countingHit: false) else { return nil }
            return try withBytesIfWhole(found)
        }
    }

    /// What the index knows (the owner's map, or a reader's index row), without file I/O.
    private func known(_ key: CacheKey, _ id: Hash256, verifiedOnly: Bool, countingHit: Bool) throws(CacheError) -> DiskRead? {
        if mode == .readOnly {
            guard !verifiedOnly, let row = try readIndex({ try $0.row(digest: key.digest) }) else { return nil }
            return DiskRead(entry: row.entry(key: key, layout: layout), bytes: [], isStale: isStale(row.metadata, now: clock.now()))
        }
        guard let record = try ownerRecord(id, verifiedOnly: verifiedOnly) else { return nil }
        return counted(key, record, bytes: [], countingHit: countingHit)
    }

    /// See `DiskRead.Need.verifiedFile`. A reader checks no file, so it has none.
    private func verifiedFile(_ key: CacheKey, _ id: Hash256, readingUpTo: Int, countingHit: Bool) throws(CacheError) -> DiskRead? {
        guard mode == .owner, let record = try ownerRecord(id, verifiedOnly: true) else { return nil }
        guard record.size <= readingUpTo else { return counted(key, record, bytes: [], countingHit: countingHit) }
        guard let bytes = openFiles.file(id, generation: record.generation)?.readIfUnchanged(expectedSize: record.size) else { return nil }
        return counted(key, record, bytes: bytes, countingHit: countingHit)
    }

    /// The owner's record of `id`; with `verifiedOnly`, only if this process has checked its file.
    private func ownerRecord(_ id: Hash256, verifiedOnly: Bool) throws(CacheError) -> DiskEntryRecord? {
        try state.withLock { (s) throws(CacheError) in
            guard !s.closed else { throw CacheError.closed }
            guard let record = s.table[id], !verifiedOnly || isChecked(record) else { return nil }
            return record
        }
    }

    /// Whether a file needs no checksum on its next read: checked already, or checks are off.
    private func isChecked(_ record: DiskEntryRecord) -> Bool { record.verified || !limits.verifyOnRead }

    /// `record` as a read, its hit counted first if `countingHit` (nil if it changed meanwhile).
    private func counted(_ key: CacheKey, _ record: DiskEntryRecord, bytes: [UInt8], countingHit: Bool) -> DiskRead? {
        var record = record
        let now = clock.seconds
        if countingHit {
            guard let use = countHit(record.id, generation: record.generation, now: now, markVerified: false) else { return nil }
            (record.hits, record.lastAccess) = (use.hits, use.lastAccess)
        }
        return DiskRead(entry: entry(key: key, record: record), bytes: bytes, isStale: isStale(record.metadata, now: Date(timeIntervalSince1970: now)))
    }

    /// `found` with its file's bytes, checked against the index's size only: a look changes
    /// nothing, so a damaged file is reported as absent and left for a counted read to drop.
    private func withBytesIfWhole(_ found: DiskRead) throws(CacheError) -> DiskRead? {
        let path = found.entry.filePath
        let bytes: [UInt8]
        do { bytes = try FileOps.readAll(path) } catch where error.isNotFound { return nil } catch {
            throw .readFailed(path: path, reason: error.reason)
        }
        return bytes.count == found.entry.size ? DiskRead(entry: found.entry, bytes: bytes, isStale: found.isStale) : nil
    }

    private func ownerLookup(_ key: CacheKey, _ id: Hash256) throws(CacheError) -> DiskRead? {
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
            // A kept file that changed behind the cache's back is read again by path and hashed again.
            var keptFileChanged = false
            if isChecked(record), let kept = openFiles.file(id, generation: record.generation) {
                if let bytes = kept.readIfUnchanged(expectedSize: record.size) {
                    guard let read = counted(key, record, bytes: bytes, countingHit: true) else { continue }
                    return read
                }
                keptFileChanged = true
                openFiles.forget(id)
            }
            let path = layout.dataPath(id)
            let file: OpenEntryFiles.File
            let bytes: [UInt8]
            do {
                file = try OpenEntryFiles.File(path: path, generation: record.generation)
                bytes = try file.readAll()
            } catch where error.isNotFound {
                if dropIfUnchanged(record, reason: "its file is missing") { return nil }
                continue
            } catch {
                throw .readFailed(path: path, reason: error.reason)
            }
            let checks = !isChecked(record) || (keptFileChanged && limits.verifyOnRead)
            if bytes.count != record.size || (checks && Hash256.of(bytes) != record.metadata.checksum) {
                let reason = bytes.count != record.size
                    ? "its file has \(bytes.count) bytes, the index says \(record.size)" : "its file does not match its checksum"
                if dropIfUnchanged(record, reason: reason) { return nil }
                continue  // replaced while it was read: look again
            }
            let now = clock.seconds
            guard let use = countHit(id, generation: record.generation, now: now, markVerified: checks) else { continue }
            openFiles.keep(id, file)
            var touched = record
            (touched.hits, touched.lastAccess) = (use.hits, use.lastAccess)
            return DiskRead(entry: entry(key: key, record: touched), bytes: bytes, isStale: isStale(touched.metadata, now: Date(timeIntervalSince1970: now)))
        }
        return nil
    }

    private func readOnlyLookup(_ key: CacheKey, id: Hash256) throws(CacheError) -> DiskRead? {
        for _ in 0..<3 {
            guard let row = try readIndex({ try $0.row(digest: key.digest) }) else { return nil }
            let path = layout.dataPath(id)
            let bytes: [UInt8]
            do { bytes = try FileOps.readAll(path) } catch where error.isNotFound { continue } catch {
                throw .readFailed(path: path, reason: error.reason)
            }
            if bytes.count == row.metadata.size && (!limits.verifyOnRead || Hash256.of(bytes) == row.metadata.checksum) {
                return DiskRead(entry: row.entry(key: key, layout: layout), bytes: bytes, isStale: isStale(row.metadata, now: clock.now()))
            }
            // The owner may have replaced or evicted it while it was read; if the row is unchanged the file is bad.
            if try readIndex({ try $0.row(digest: key.digest) }) == row {
                warn("not serving \(path): it does not match the index (the owning process drops it on its next check)")
                return nil
            }
        }
        return nil
    }

    /// Records a hit (last access, LRU position, counts) if the entry is still the one that was read.
    func countHit(_ id: Hash256, generation: UInt64, now: Double, markVerified: Bool) -> DiskEntryUse? {
        let touched = state.withLock { s -> DiskEntryUse? in
            guard s.table.generation(id) == generation, let touched = s.table.touch(id, now: now) else { return nil }
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

    /// Whether the owner's map holds `key` (no I/O, no hit counted). Read-only: asks the index.
    /// Kept beside `read`: a yes or no that never throws and builds no entry, for checks that ask
    /// only that.
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
