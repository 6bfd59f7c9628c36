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

        let record = DiskEntryRecord(id: id, isOriginal: originals, metadata: metadata, lastAccess: metadata.created.timeIntervalSince1970,
                                     hits: 0)
        let row = DiskIndexRow(key: key, record: record)
        let (serial, fault) = try state.withLock { (s) throws(CacheError) in
            guard !s.closed else { throw CacheError.closed }
            s.temporaryCounter += 1
            let fault = s.fault
            if let current = s.fault {
                s.fault?.remaining -= 1
                if current.remaining <= 1 { s.fault = nil }
            }
            return (s.temporaryCounter, fault)
        }

        // 1. Both files, complete, in tmp/ (outside the writer lock: fsync is the slow part).
        let temporaryData = layout.tmpPath + "/\(key.digest).\(getpid()).\(serial)"
        let temporarySidecar = temporaryData + DiskLayout.sidecarSuffix
        let sync = limits.fsync != .none
        do throws(FileOpError) {
            if let code = fault?.code(at: .writeTemporary) { throw FileOpError(operation: "write", path: temporaryData, code: code) }
            do { try FileOps.writeNew(temporaryData, bytes, sync: sync) } catch where error.isNotFound {
                try FileOps.makeDirectory(layout.tmpPath)  // tmp/ was removed under us: make it again, once
                try FileOps.writeNew(temporaryData, bytes, sync: sync)
            }
            // The sidecar only matters for rebuilding a lost index; `.data` does not wait for it.
            try FileOps.writeNew(temporarySidecar, row.sidecar.encoded(), sync: limits.fsync == .full)
        } catch {
            _ = try? FileOps.remove(temporaryData)
            _ = try? FileOps.remove(temporarySidecar)
            throw Self.writeError(error)
        }

        // 2. Under the writer lock: evict, rename into place, commit.
        try writer.withLock { (w) throws(CacheError) in
            guard !w.closed else {
                _ = try? FileOps.remove(temporaryData)
                _ = try? FileOps.remove(temporarySidecar)
                throw CacheError.closed
            }
            let (replaced, victims) = state.withLock { s -> (DiskEntryRecord?, [DiskEntryRecord]) in
                let replaced = s.table.remove(id)
                s.dirty.remove(id)
                var victims: [DiskEntryRecord] = []
                while s.table.bytes(originals: originals) + bytes.count > budget, let victim = s.table.oldest(originals: originals) {
                    s.table.remove(victim.id)
                    s.dirty.remove(victim.id)
                    victims.append(victim)
                }
                if !victims.isEmpty {
                    s.counters.evictions += victims.count
                    s.countersDirty = true
                }
                return (replaced, victims)
            }
            var gone = DiskIndexBatch()
            gone.deletes = victims.map(\.id) + (replaced.map { [$0.id] } ?? [])
            // Unlink before the new file appears: the bytes under objects/ never exceed the budget.
            for victim in victims { removeFiles(victim.id, &w) }
            if replaced != nil { removeFiles(id, &w) }

            do throws(FileOpError) {
                try ensureFanout(id, &w)
                if let code = fault?.code(at: .rename) { throw FileOpError(operation: "rename", path: temporaryData, code: code) }
                do throws(FileOpError) { try FileOps.rename(temporarySidecar, layout.sidecarPath(id)) } catch where error.isNotFound {
                    w.knownFanouts.remove(id.fanout)  // the folder was removed under us: make it again, once
                    try ensureFanout(id, &w)
                    try FileOps.rename(temporarySidecar, layout.sidecarPath(id))
                }
                try FileOps.rename(temporaryData, layout.dataPath(id))
                if limits.fsync == .full { try FileOps.syncDirectory(layout.fanoutPath(id.fanout)) }
            } catch {
                _ = try? FileOps.remove(temporaryData)
                _ = try? FileOps.remove(temporarySidecar)
                removeFiles(id, &w)
                commit(gone, &w)
                throw Self.writeError(error)
            }

            var batch = gone
            batch.upserts = [row]
            do {
                if fault?.code(at: .indexCommit) != nil { throw CacheError.indexFailed(reason: "injected index failure") }
                guard let index = w.index else { throw CacheError.closed }
                try index.apply(batch)
            } catch {
                // The index does not know the new file: take it away again, then record the evictions.
                removeFiles(id, &w)
                commit(gone, &w)
                throw Self.indexError(error, path: layout.indexPath)
            }
            state.withLock { s in _ = s.table.insert(record) }
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
            var changedValidators = false
            guard let updated = state.withLock({ s in
                s.table.update(id) { record in
                    record.metadata.validated = now
                    if let validators, validators != record.metadata.validators {
                        record.metadata.validators = validators
                        changedValidators = true
                    }
                }
            }) else { return false }
            if changedValidators {
                // Keep the sidecar in step so a rebuilt index has the new validators.
                let sidecar = DiskIndexRow(key: key, record: updated).sidecar
                let temporary = layout.tmpPath + "/\(key.digest).refresh.meta"
                _ = try? FileOps.remove(temporary)
                do {
                    try FileOps.writeNew(temporary, sidecar.encoded(), sync: limits.fsync != .none)
                    try FileOps.rename(temporary, layout.sidecarPath(id))
                } catch {
                    _ = try? FileOps.remove(temporary)
                    warn("could not update \(layout.sidecarPath(id)): \(error)")
                }
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
            guard !w.closed else { throw CacheError.closed }
            let removed = state.withLock { s -> Bool in
                s.dirty.remove(id)
                return s.table.remove(id) != nil
            }
            guard removed else { return false }
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
            let removed = state.withLock { s in
                ids.filter { id in
                    s.dirty.remove(id)
                    return s.table.remove(id) != nil
                }
            }
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
            state.withLock { s in
                s.table = DiskEntryTable()
                s.dirty.removeAll()
            }
            // The new table counts generations from the start again: no kept file may match them.
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
                if !w.needsReconcile {
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
}
