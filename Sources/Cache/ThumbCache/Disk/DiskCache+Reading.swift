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

    /// The owner's record of `id` (its index row and this process's unwritten hits); with
    /// `verifiedOnly`, only if this process has checked its file.
    func ownerRecord(_ id: Hash256, verifiedOnly: Bool = false) throws(CacheError) -> DiskEntryRecord? {
        guard !state.withLock({ $0.closed }) else { throw CacheError.closed }
        let row: DiskEntryRecord?
        do { row = try index.record(id) } catch { throw Self.indexError(error, path: layout.indexPath) }
        guard let row else { return nil }
        let record = state.withLock { s in
            var record = s.pending.overlay(row)
            record.verified = s.verified.contains(record)
            return record
        }
        return !verifiedOnly || isChecked(record) ? record : nil
    }

    /// Whether a file needs no checksum on its next read: checked already, or checks are off (and
    /// no repair after a crash is still running: until it ends, every file is checked once).
    func isChecked(_ record: DiskEntryRecord) -> Bool {
        record.verified || (!limits.verifyOnRead && reconciler.isFinished)
    }

    /// `record` as a read, its hit counted first if `countingHit`.
    private func counted(_ key: CacheKey, _ record: DiskEntryRecord, bytes: [UInt8], countingHit: Bool) -> DiskRead? {
        var record = record
        let now = clock.seconds
        if countingHit {
            let use = countHit(record, now: now, markVerified: false)
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
            guard let record = try ownerRecord(id) else {
                state.withLock { s in
                    s.counters.misses += 1
                    s.countersDirty = true
                }
                return nil
            }
            // A kept file that changed behind the cache's back is read again by path and hashed again.
            var keptFileChanged = false
            if isChecked(record), let kept = openFiles.file(id, generation: record.generation) {
                if let bytes = kept.readIfUnchanged(expectedSize: record.size) {
                    return counted(key, record, bytes: bytes, countingHit: true)
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
            let use = countHit(record, now: now, markVerified: checks)
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

    /// Records a hit of `record` (last access, LRU position, counts), written with the next batch.
    func countHit(_ record: DiskEntryRecord, now: Double, markVerified: Bool) -> DiskEntryUse {
        let use = state.withLock { s -> DiskEntryUse in
            let time = s.pending.add(record.id, count: 1, now: now)
            if markVerified { s.verified.insert(record) }
            s.pendingHits += 1
            s.counters.hits += 1
            s.countersDirty = true
            return DiskEntryUse(hits: record.hits + 1, lastAccess: max(record.lastAccess, time))
        }
        flushIfDue()
        return use
    }

    /// Hits the memory tier answered for entries this tier holds too: added to each entry's hits,
    /// its last access and its place in this tier's LRU, but not to this tier's own hit count.
    /// Owner only; written to the index with the next batch of access times (a key this tier no
    /// longer holds changes nothing there).
    public func recordHits(_ hits: [(key: CacheKey, hits: Int)]) {
        guard mode == .owner, !hits.isEmpty else { return }
        let now = clock.seconds
        let counted = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            for (key, count) in hits where count > 0 {
                guard let id = Hash256(hex: key.digest) else { continue }
                s.pending.add(id, count: count, now: now)
                s.pendingHits += 1
            }
            return true
        }
        if counted { flushIfDue() }
    }

    /// Whether the index holds `key` (no file I/O, no hit counted). Kept beside `read`: a yes or
    /// no that never throws and builds no entry, for checks that ask only that.
    public func contains(_ key: CacheKey) -> Bool {
        guard let id = Hash256(hex: key.digest), !state.withLock({ $0.closed }) else { return false }
        // The owner's pool reads beside the writer; a reader's one connection is its index.
        if mode == .readOnly { return ((try? readIndex { try $0.row(digest: key.digest) }) ?? nil) != nil }
        return ((try? index.record(id)) ?? nil) != nil
    }

    /// Drops an entry found damaged, unless it changed since `record` was read: under the writer
    /// lock (no store is half done) the index must still name the same bytes and the file must
    /// still be missing or wrong. True if dropped.
    func dropIfUnchanged(_ record: DiskEntryRecord, reason: String) -> Bool {
        writer.withLock { w in
            guard !w.closed, let index = w.index, let current = try? index.record(record.id),
                  current.generation == record.generation, current.size == record.size else { return false }
            if let bytes = try? FileOps.readAll(layout.dataPath(record.id)), bytes.count == current.size,
               Hash256.of(bytes) == current.metadata.checksum {
                return false
            }
            state.withLock { s in
                s.pending.forget(record.id)
                s.verified.forget(record.id)
                s.counters.misses += 1
                s.countersDirty = true
            }
            warnAboutDrop("dropped the cache entry \(layout.dataPath(record.id)): \(reason)")
            removeFiles(record.id, &w)
            commit(DiskIndexBatch(deletes: [record.id]), &w)
            return true
        }
    }
}
