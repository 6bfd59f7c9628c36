import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Storing, refreshing and removing entries, LRU eviction, access times, closing.
extension DiskCache {
    // MARK: Changes

    /// Stores `bytes` for `key` (replacing any previous entry), evicting least recently used
    /// entries of the same kind first so the budget is never exceeded. Throws `.entryTooLarge` for
    /// an entry bigger than its whole budget, `.writeFailed` when the disk is full or unwritable;
    /// either way the cache stays consistent.
    public func store(_ key: CacheKey, _ bytes: [UInt8], validators: CacheValidators = CacheValidators(),
                      contentType: String? = nil) throws(CacheError) {
        try store(key, bytes, metadata: EntryMetadata(storing: bytes, contentType: contentType, validators: validators, at: clock.now()))
    }

    /// `store` with the metadata made by the caller (the two-tier cache has hashed the bytes already).
    func store(_ key: CacheKey, _ bytes: [UInt8], metadata: EntryMetadata) throws(CacheError) {
        try requireOwner()
        precondition(metadata.size == bytes.count, "metadata for other bytes")
        guard let id = Hash256(hex: key.digest) else { return }
        let originals = key.variant.isOriginal
        let budget = limits.maxBytes(originals: originals)
        guard bytes.count <= budget else { throw .entryTooLarge(size: bytes.count, maxBytes: budget) }

        let (serial, fault, stamp) = try state.withLock { (s) throws(CacheError) in
            guard !s.closed else { throw CacheError.closed }
            s.temporaryCounter += 1
            let fault = s.fault
            if let current = s.fault {
                s.fault?.remaining -= 1
                if current.remaining <= 1 { s.fault = nil }
            }
            return (s.temporaryCounter, fault, s.pending.stamp(metadata.created.timeIntervalSince1970))
        }
        let record = DiskEntryRecord(id: id, isOriginal: originals, metadata: metadata, lastAccess: stamp, hits: 0)
        let row = DiskIndexRow(key: key, record: record)

        // 1. The file, complete, in tmp/ (outside the writer lock: an fsync is the slow part).
        let temporaryData = layout.tmpPath + "/\(key.digest).\(getpid()).\(serial)"
        let sync = syncsEachFile
        do throws(FileOpError) {
            if let code = fault?.code(at: .writeTemporary) { throw FileOpError(operation: "write", path: temporaryData, code: code) }
            do { try FileOps.writeNew(temporaryData, bytes, sync: sync) } catch where error.isNotFound {
                try FileOps.makeDirectory(layout.tmpPath)  // tmp/ was removed under us: make it again, once
                try FileOps.writeNew(temporaryData, bytes, sync: sync)
            }
        } catch {
            _ = try? FileOps.remove(temporaryData)
            throw Self.writeError(error)
        }

        // 2. Under the writer lock: choose victims and unlink them, commit, rename into place.
        // The row is committed before the file appears, so a crash never leaves a file that the
        // index does not list: at worst a row whose file is missing, dropped at its first lookup.
        try writer.withLock { (w) throws(CacheError) in
            guard !w.closed, let index = w.index else {
                _ = try? FileOps.remove(temporaryData)
                throw CacheError.closed
            }
            // This entry's evicted file may still wait for its unlink: not after the rename.
            if reaper?.claim(id) == true { removeFiles(id, &w) }
            let replaced: DiskEntryRecord?
            let victims: [DiskReaper.Victim]
            do throws(CacheError) {
                do { replaced = try index.record(id) } catch { throw Self.indexError(error, path: layout.indexPath) }
                victims = try victimsLocked(originals: originals, making: bytes.count - (replaced?.size ?? 0), sparing: id, &w)
            } catch {
                _ = try? FileOps.remove(temporaryData)
                throw error
            }
            state.withLock { s in
                s.pending.forget(id)
                s.verified.forget(id)
                if !victims.isEmpty {
                    s.counters.evictions += victims.count
                    s.countersDirty = true
                }
            }
            var gone = DiskIndexBatch()
            gone.deletes = victims.map(\.id) + (replaced.map { [$0.id] } ?? [])
            // Gone before the new file appears, or counted until they are: the bytes under
            // objects/ never exceed the budget.
            for victim in victims { openFiles.forget(victim.id) }
            for victim in reaper?.take(victims) ?? victims { removeFiles(victim.id, &w) }
            if replaced != nil { removeFiles(id, &w) }

            var batch = gone
            batch.upserts = [row]
            do {
                if fault?.code(at: .indexCommit) != nil { throw CacheError.indexFailed(reason: "injected index failure") }
                try index.apply(batch)
                refreshTotals(index)
            } catch {
                _ = try? FileOps.remove(temporaryData)
                commit(gone, &w)
                throw Self.indexError(error, path: layout.indexPath)
            }

            do throws(FileOpError) {
                try ensureFanout(id, &w)
                if let code = fault?.code(at: .rename) { throw FileOpError(operation: "rename", path: temporaryData, code: code) }
                do throws(FileOpError) { try FileOps.rename(temporaryData, layout.dataPath(id)) } catch where error.isNotFound {
                    w.knownFanouts.remove(id.fanout)  // the folder was removed under us: make it again, once
                    try ensureFanout(id, &w)
                    try FileOps.rename(temporaryData, layout.dataPath(id))
                }
                if limits.fsync == .full { try FileOps.syncDirectory(layout.fanoutPath(id.fanout)) }
                syncer?.noteWrite()
            } catch {
                // The row names a file that is not there: take the row away again.
                _ = try? FileOps.remove(temporaryData)
                removeFiles(id, &w)
                commit(DiskIndexBatch(deletes: [id]), &w)
                throw Self.writeError(error)
            }
            flushIfDue(&w)
        }
    }

    /// Marks `key` fresh again (its origin answered 304 Not Modified), optionally with new
    /// validators. False if the entry is not there.
    @discardableResult
    public func refresh(_ key: CacheKey, validators: CacheValidators? = nil) throws(CacheError) -> Bool {
        try requireOwner()
        guard let id = Hash256(hex: key.digest) else { return false }
        let now = clock.now()
        return try writer.withLock { (w) throws(CacheError) -> Bool in
            guard !w.closed, let index = w.index else { throw CacheError.closed }
            let found: DiskEntryRecord?
            do { found = try index.record(id) } catch { throw Self.indexError(error, path: layout.indexPath) }
            guard var updated = found else { return false }
            updated.metadata.validated = now
            if let validators, validators != updated.metadata.validators {
                updated.metadata.validators = validators
            }
            do { try index.apply(DiskIndexBatch(revalidations: [(id, updated.metadata)])) } catch {
                w.needsReconcile = true
                throw Self.indexError(error, path: layout.indexPath)
            }
            return true
        }
    }

    /// Removes one entry. False if it was not there.
    @discardableResult
    public func remove(_ key: CacheKey) throws(CacheError) -> Bool {
        try requireOwner()
        guard let id = Hash256(hex: key.digest) else { return false }
        return try writer.withLock { (w) throws(CacheError) -> Bool in
            guard !w.closed, let index = w.index else { throw CacheError.closed }
            let found: DiskEntryRecord?
            do { found = try index.record(id) } catch { throw Self.indexError(error, path: layout.indexPath) }
            guard found != nil else { return false }
            state.withLock { s in
                s.pending.forget(id)
                s.verified.forget(id)
            }
            removeFiles(id, &w)
            try commitOrThrow(DiskIndexBatch(deletes: [id]), &w)
            return true
        }
    }

    /// Removes every variant (and the original) of `url`; returns how many entries went.
    @discardableResult
    public func removeAll(url: NormalizedURL) throws(CacheError) -> Int { try removeAll(.url(url)) }

    /// Removes every entry in `scope`; returns how many went.
    @discardableResult
    public func removeAll(_ scope: CacheScope) throws(CacheError) -> Int {
        try requireOwner()
        return try writer.withLock { (w) throws(CacheError) -> Int in
            guard !w.closed, let index = w.index else { throw CacheError.closed }
            let digests: [String]
            do { digests = try index.digests(in: scope) } catch { throw Self.indexError(error, path: layout.indexPath) }
            let ids = digests.compactMap(Hash256.init(hex:))
            state.withLock { s in
                for id in ids {
                    s.pending.forget(id)
                    s.verified.forget(id)
                }
            }
            let removed = ids
            for id in removed { removeFiles(id, &w) }
            try commitOrThrow(DiskIndexBatch(deletes: ids), &w)
            return removed.count
        }
    }

    /// Removes every entry and every file under objects/.
    public func clear() throws(CacheError) {
        try requireOwner()
        try writer.withLock { (w) throws(CacheError) in
            guard !w.closed else { throw CacheError.closed }
            reaper?.drain()
            state.withLock { s in
                _ = s.pending.takeAll()
                s.verified.removeAll()
            }
            openFiles.removeAll()
            do {
                for fanout in try FileOps.list(layout.objectsPath) { try FileOps.removeTree(layout.fanoutPath(fanout)) }
            } catch {
                w.needsReconcile = true
                warn("could not remove every cache file: \(error)")
            }
            w.knownFanouts.removeAll()
            try commitOrThrow(DiskIndexBatch(deleteAll: true), &w)
        }
    }

    /// Writes pending access times and hit counts to the index now (otherwise done in batches,
    /// and on close).
    public func flushAccessLog() throws(CacheError) {
        guard mode == .owner else { return }
        try writer.withLock { (w) throws(CacheError) in
            guard !w.closed else { throw CacheError.closed }
            try flushLocked(&w)
        }
    }

    /// Writes pending access times, and a clean-shutdown marker so the next start trusts the
    /// index; releases the lock. Later calls throw `.closed`. Also done when the cache is released.
    public func close() {
        // Before the writer lock: the repair takes it for each entry it mends, the trim for each chunk.
        reconciler.stopAndWait()
        trimmer.stopAndWait()
        indexWarmUp.withLock { $0?.stop() }
        writer.withLock { w in
            guard !w.closed else { return }
            state.withLock { $0.closed = true }
            w.closed = true
            openFiles.removeAll()
            if mode == .owner {
                do { try flushLocked(&w) } catch {
                    warn("could not write access times on close: \(error)")
                }
                w.index?.checkpoint()
                w.index?.close()
                reaper?.stop()
                let unlinked = (reaper?.progress.failures ?? 0) == 0
                // The last background flush, after the index's and the unlinks: the marker vouches for every file.
                let flushed = syncer?.stop() ?? true
                if !w.needsReconcile && reconciler.isFinished && flushed && unlinked {
                    let marker = Array("closed cleanly by process \(getpid())\n".utf8)
                    do {
                        try FileOps.writeNew(layout.cleanMarkerPath, marker, sync: limits.fsync != .none)
                    } catch {
                        warn("could not mark the cache closed cleanly (the next start checks it): \(error)")
                    }
                }
                if w.lockFD >= 0 { FileOps.closeDescriptor(w.lockFD) }
                w.lockFD = -1
            } else {
                w.index?.close()
            }
            w.index = nil
        }
    }

    /// The least recently used entries of one kind that must go for `incoming` more bytes to fit
    /// its budget (while a trim runs, at most `incoming` bytes' worth), or the `wholeExcess` (the trim), at most
    /// `maxVictims` of them. Pending hits are written first, so the order is the true one; reads the
    /// oldest few at a time through `entries_by_use`, never all entries.
    func victimsLocked(originals: Bool, making incoming: Int, sparing spared: Hash256? = nil, wholeExcess: Bool = false,
                       maxVictims: Int? = nil, _ w: inout WriterState) throws(CacheError) -> [DiskReaper.Victim] {
        guard let index = w.index else { throw CacheError.closed }
        let budget = limits.maxBytes(originals: originals)
        let total = state.withLock { $0.totals.bytes(originals: originals) } + reapingBytes(originals: originals)
        var excess = total + incoming - budget
        guard excess > 0 else { return [] }
        // While the trim of a cache found over its limits at open runs, a store frees what it adds
        // and leaves the rest to the trim, so it never waits for the whole excess. Otherwise the
        // store makes room for itself whole (files waiting for the reaper count, so the folder too
        // stays within the budget).
        if !wholeExcess && !trimmer.isFinished { excess = min(excess, max(incoming, 0)) }
        guard excess > 0 else { return [] }
        try flushLocked(&w)
        let cap = maxVictims ?? Int.max
        var victims: [DiskReaper.Victim] = []
        var cursor: DiskIndex.UseCursor?
        while excess > 0, victims.count < cap {
            let batch: (rows: [(id: Hash256, size: Int)], cursor: DiskIndex.UseCursor?)
            do { batch = try index.oldest(originals: originals, limit: 32, after: cursor) } catch {
                throw Self.indexError(error, path: layout.indexPath)
            }
            guard !batch.rows.isEmpty else { break }
            cursor = batch.cursor
            for candidate in batch.rows where excess > 0 && candidate.id != spared && victims.count < cap {
                victims.append(DiskReaper.Victim(id: candidate.id, size: candidate.size, originals: originals))
                excess -= candidate.size
            }
        }
        return victims
    }
}
