import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The disk tier: files under a directory, LRU by total bytes (thumbnails and originals each on
/// their own budget), indexed in SQLite, safe against kill -9 at any moment.
///
/// One process owns a directory (`.owner`, holding `DIR/lock` with flock); any number of others
/// may read it at the same time (`.readOnly`). A reader changes no cache file; when no owner is
/// running, SQLite itself may create the index's `-wal` and `-shm` companions for it. See `DiskLayout` for the files and `DiskIndex` for
/// the schema.
///
/// How a store stays crash-safe: the bytes and a metadata sidecar are written to `tmp/` (fsync'd
/// as `FsyncPolicy` says); then, under the writer lock, victims are evicted (files unlinked first,
/// so the total on disk never exceeds the budget), the sidecar and then the file are renamed into
/// `objects/`, and one SQLite transaction removes the victims' rows and inserts the new one. A crash
/// between any two steps leaves a state that the next owner's start repairs (`DiskRecovery`):
/// leftovers in `tmp/` removed, rows without files dropped, files without rows adopted from their
/// sidecars when their checksums match, recently written files checksummed.
///
/// A clean close writes `clean-shutdown`; an owner that finds it trusts the index and opens without
/// scanning the files (100,000 entries: one SQLite scan into an in-memory map).
///
/// The class holds the state and the locks; its work is split by concern: DiskCache+Opening
/// (the lock, the index, the repair), +Reading, +Writing (store, evict, access times, close),
/// +Listing (pages and statistics) and +Verification.
///
/// Every method is safe to call from any thread. Lookups take a short lock for the map and read
/// the file outside it; changes to files and the index are serialized by one writer lock. Calls
/// block on file I/O: keep them off threads that must never block.
public final class DiskCache: Sendable {
    public let directory: URL
    public let limits: DiskCacheLimits
    public let mode: CacheOpenMode
    /// How the owner found the directory: closed cleanly, or left by a crash and repaired (and how).
    public let startup: DiskStartup
    let layout: DiskLayout
    let clock: CacheClock
    let warn: CacheWarningSink

    /// Serializes every change to files and the index. Lock order: `writer`, then `state`.
    let writer: DiskMutex<WriterState>
    /// The map and counters: held for map updates only, never across I/O.
    let state: DiskMutex<MemoryState>
    /// Checked entry files kept open for hits (the owner's only: a reader checks none).
    let openFiles: OpenEntryFiles

    struct WriterState: Sendable {
        var index: DiskIndex?
        var lockFD: Int32
        /// Set when an index write failed: the next start must reconcile (no clean marker).
        var needsReconcile = false
        var closed = false
        var knownFanouts = Set<String>()
    }

    struct MemoryState: Sendable {
        var table = DiskEntryTable()
        /// Entries hit since the last batch write of access times, and how many hits that was.
        var dirty = Set<Hash256>()
        var pendingHits = 0
        var lastFlush: Double
        var counters = DiskCounters()
        var countersDirty = false
        var closed = false
        var temporaryCounter = 0
        var fault: DiskFault?
        /// Warnings about single damaged entries: a few a minute, then a count.
        var dropWarnings = (windowStart: -Double.infinity, logged: 0, suppressed: 0)
    }

    init(directory: URL, layout: DiskLayout, limits: DiskCacheLimits, mode: CacheOpenMode, clock: CacheClock,
         warn: @escaping CacheWarningSink, index: DiskIndex, lockFD: Int32, table: DiskEntryTable, counters: DiskCounters,
         needsReconcile: Bool, startup: DiskStartup) {
        self.directory = directory
        self.startup = startup
        self.layout = layout
        self.limits = limits
        self.mode = mode
        self.clock = clock
        self.warn = warn
        writer = DiskMutex(WriterState(index: index, lockFD: lockFD, needsReconcile: needsReconcile))
        state = DiskMutex(MemoryState(table: table, lastFlush: FileOps.monotonicSeconds(), counters: counters))
        // At most an eighth of the process's descriptors, so kept files never starve connections.
        openFiles = OpenEntryFiles(capacity: mode == .owner ? min(limits.keptOpenFiles, FileOps.descriptorLimit / 8) : 0)
    }

    deinit {
        close()
    }

    // MARK: Internals

    /// At most five warnings a minute about single entries (a wiped directory would otherwise
    /// give one per lookup), then how many were left out.
    func warnAboutDrop(_ message: String) {
        let now = FileOps.monotonicSeconds()
        let line: String? = state.withLock { s in
            if now - s.dropWarnings.windowStart >= 60 {
                let suppressed = s.dropWarnings.suppressed
                s.dropWarnings = (now, 1, 0)
                return suppressed > 0 ? "\(message) (and \(suppressed) more damaged or missing entries dropped in the last minute)" : message
            }
            guard s.dropWarnings.logged < 5 else {
                s.dropWarnings.suppressed += 1
                return nil
            }
            s.dropWarnings.logged += 1
            return message
        }
        if let line { warn(line) }
    }

    func requireOwner() throws(CacheError) {
        guard mode == .owner else { throw .readOnly(directory: layout.root) }
    }

    func entry(key: CacheKey, record: DiskEntryRecord) -> CacheEntry {
        CacheEntry(key: key, filePath: layout.dataPath(record.id), metadata: record.metadata,
                   lastAccess: Date(timeIntervalSince1970: record.lastAccess), hits: record.hits)
    }

    func isStale(_ metadata: EntryMetadata, now: Date) -> Bool {
        metadata.isStale(ttl: limits.ttl, now: now)
    }

    /// Runs a read on the index; the owner writes pending access times first so listings agree
    /// with the map.
    func queryIndex<T>(_ body: (DiskIndex) throws -> T) throws(CacheError) -> T {
        try writer.withLock { (w) throws(CacheError) -> T in
            guard !w.closed, let index = w.index else { throw CacheError.closed }
            if mode == .owner { try flushLocked(&w) }
            do { return try body(index) } catch { throw Self.indexError(error, path: layout.indexPath) }
        }
    }

    func readIndex<T>(_ body: (DiskIndex) throws -> T) throws(CacheError) -> T {
        try writer.withLock { (w) throws(CacheError) -> T in
            guard !w.closed, let index = w.index else { throw CacheError.closed }
            do { return try body(index) } catch { throw Self.indexError(error, path: layout.indexPath) }
        }
    }

    /// Unlinks an entry's file, then its sidecar. A failure leaves bytes the map no longer counts,
    /// so the next start reconciles.
    func removeFiles(_ id: Hash256, _ w: inout WriterState) {
        openFiles.forget(id)
        do {
            try FileOps.remove(layout.dataPath(id))
            try FileOps.remove(layout.sidecarPath(id))
        } catch {
            w.needsReconcile = true
            warn("could not remove a cache file: \(error)")
        }
    }

    func ensureFanout(_ id: Hash256, _ w: inout WriterState) throws(FileOpError) {
        let fanout = id.fanout
        guard !w.knownFanouts.contains(fanout) else { return }
        try FileOps.makeDirectories(layout.fanoutPath(fanout))
        w.knownFanouts.insert(fanout)
    }

    /// Best-effort index write after files already changed; on failure the next start reconciles.
    func commit(_ batch: DiskIndexBatch, _ w: inout WriterState) {
        do { try commitOrThrow(batch, &w) } catch {
            warn("could not update the cache index (it is repaired on the next start): \(error)")
        }
    }

    func commitOrThrow(_ batch: DiskIndexBatch, _ w: inout WriterState) throws(CacheError) {
        guard let index = w.index else { throw CacheError.closed }
        do { try index.apply(batch) } catch {
            w.needsReconcile = true
            throw Self.indexError(error, path: layout.indexPath)
        }
    }

    /// After a hit: writes the access batch if it is due and nobody holds the writer lock.
    func flushIfDue() {
        let due = state.withLock { s in
            !s.dirty.isEmpty && (s.pendingHits >= limits.accessFlushBatch
                || FileOps.monotonicSeconds() - s.lastFlush >= limits.accessFlushInterval.secondsValue)
        }
        guard due else { return }
        writer.withLockIfAvailable { w in flushIfDue(&w) }
    }

    func flushIfDue(_ w: inout WriterState) {
        let due = state.withLock { s in
            (s.countersDirty || !s.dirty.isEmpty) && (s.pendingHits >= limits.accessFlushBatch
                || FileOps.monotonicSeconds() - s.lastFlush >= limits.accessFlushInterval.secondsValue)
        }
        guard due, !w.closed else { return }
        do { try flushLocked(&w) } catch {
            warn("could not write access times to the cache index: \(error)")
        }
    }

    func flushLocked(_ w: inout WriterState) throws(CacheError) {
        guard mode == .owner, let index = w.index else { return }
        let batch = state.withLock { s -> DiskIndexBatch in
            var batch = DiskIndexBatch()
            batch.accesses = s.dirty.compactMap { id in
                s.table[id].map { DiskIndexBatch.Access(id: id, lastAccess: $0.lastAccess, hits: $0.hits) }
            }
            if s.countersDirty || !batch.accesses.isEmpty { batch.counters = s.counters }
            s.dirty.removeAll(keepingCapacity: true)
            s.pendingHits = 0
            s.countersDirty = false
            s.lastFlush = FileOps.monotonicSeconds()
            return batch
        }
        do { try index.apply(batch) } catch {
            throw Self.indexError(error, path: layout.indexPath)
        }
    }

    static func writeError(_ error: FileOpError) -> CacheError {
        .writeFailed(path: error.path, reason: error.reason, diskFull: error.code == ENOSPC || error.code == EDQUOT)
    }

    /// Entry files kept open for hits now (at most `limits.keptOpenFiles`).
    public var keptOpenFiles: Int { openFiles.count }

    // MARK: Testing hooks

    /// Makes the next `count` stores fail at `point` with `errno` (for tests of write errors).
    @_spi(Testing)
    public func injectFault(at point: DiskFaultPoint?, errno code: Int32 = ENOSPC, count: Int = Int.max) {
        state.withLock { s in s.fault = point.map { DiskFault(point: $0, code: code, remaining: count) } }
    }

    /// The in-memory LRU order of one kind, least recently used first (digests).
    @_spi(Testing)
    public func lruOrder(originals: Bool) -> [String] {
        state.withLock { s in s.table.lruOrder(originals: originals).map(\.id.hex) }
    }
}

@_spi(Testing)
public enum DiskFaultPoint: Sendable {
    /// Writing the temporary file.
    case writeTemporary
    /// Renaming it into objects/.
    case rename
    /// Committing the index row.
    case indexCommit
}

struct DiskFault: Sendable {
    var point: DiskFaultPoint
    var code: Int32
    var remaining: Int

    func code(at point: DiskFaultPoint) -> Int32? {
        self.point == point && remaining > 0 ? code : nil
    }
}
