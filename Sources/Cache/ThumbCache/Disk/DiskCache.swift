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
/// No entry is kept in memory: a lookup reads its row (a reader connection of the index's pool,
/// beside the writer), eviction reads the least recently used rows by an index, and the budgets
/// are checked against totals the schema's triggers keep. Hits wait in `PendingUses` (bounded by
/// the batch size) until they are written in a batch. So opening takes milliseconds and memory
/// stays flat at any number of entries.
///
/// How a store stays crash-safe: the bytes are written to `tmp/` (fsync'd as `FsyncPolicy` says);
/// then, under the writer lock, victims are chosen (counting the evicted files that still wait for
/// `DiskReaper`, so the total on disk never exceeds the budget), one SQLite transaction removes
/// their rows and inserts the new one, and the file is renamed into `objects/`; the victims' files
/// are unlinked in the background. A crash between any two steps leaves at worst rows
/// whose files are missing (dropped at their first lookup), evicted files not yet unlinked, and
/// leftovers in `tmp/`; a crash of the
/// machine can also lose the last commits or tear the last files. The next owner's start repairs
/// that (`DiskRecovery`), before `open` returns or in the background (`DiskRepairTiming`); until
/// the repair is done, every file is checksummed before it is first served.
///
/// The class holds the state and the locks; its work is split by concern: DiskCache+Opening
/// (the lock, the index), +Repair, +Reading, +Writing (store, evict, access times, close),
/// +Listing (pages and statistics), +Verification and +BulkFill.
///
/// Every method is safe to call from any thread. Changes to files and the index are serialized
/// by one writer lock. Calls block on file I/O: keep them off threads that must never block.
public final class DiskCache: Sendable {
    public let directory: URL
    public let limits: DiskCacheLimits
    public let mode: CacheOpenMode
    /// How the owner found the directory: closed cleanly, or left by a crash and repaired (and how
    /// many files the repair has checksummed so far).
    public var startup: DiskStartup { DiskStartup(kind: startupKind, checksummed: reconciler.progress.filesChecksummed) }
    let startupKind: DiskStartup.Kind
    let layout: DiskLayout
    let clock: CacheClock
    let warn: CacheWarningSink

    /// Serializes every change to files and the index. Lock order: `writer`, then `state`.
    let writer: DiskMutex<WriterState>
    /// The map and counters: held for map updates only, never across I/O.
    let state: DiskMutex<MemoryState>
    /// Checked entry files kept open for hits (the owner's only: a reader checks none).
    let openFiles: OpenEntryFiles
    /// The index, for lookups outside the writer lock (its pool reads beside the writer).
    let index: DiskIndex
    /// The repair after an unclean stop, when it runs after `open` returned.
    let reconciler: DiskReconciler
    /// The trim of a cache found over its limits, when it runs after `open` returned.
    let trimmer = DiskTrimmer()
    /// The owner's background flush under `FsyncPolicy.batch` (nil otherwise, or when the root
    /// cannot be opened for it: then each store syncs its own file).
    let syncer: DiskSyncer?
    /// The owner's: unlinks evicted files off the store's path (nil for a reader).
    let reaper: DiskReaper?
    /// The owner's read-through of the index (`open(warmIndex:)`), stopped at close.
    let indexWarmUp = DiskMutex<IndexWarmUp?>(nil)

    struct WriterState: Sendable {
        var index: DiskIndex?
        var lockFD: Int32
        /// Set when an index write failed: the next start must reconcile (no clean marker).
        var needsReconcile = false
        var closed = false
        var knownFanouts = Set<String>()
    }

    struct MemoryState: Sendable {
        /// Entries and bytes of each kind, as the index's `totals` said after the last change.
        var totals = DiskTotals()
        var pending = PendingUses()
        var pendingHits = 0
        var verified = VerifiedFiles()
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
         warn: @escaping CacheWarningSink, index: DiskIndex, lockFD: Int32, totals: DiskTotals, counters: DiskCounters,
         needsReconcile: Bool, startup: DiskStartup) {
        self.directory = directory
        startupKind = startup.kind
        self.layout = layout
        self.limits = limits
        self.mode = mode
        self.clock = clock
        self.warn = warn
        self.index = index
        reconciler = DiskReconciler()
        // After a failed flush the page cache may have dropped what it could not write: the owner's
        // boot id goes, so the next start checks recent files as after a crash of the machine.
        syncer = mode == .owner && limits.fsync == .batch
            ? DiskSyncer(directory: layout.root, warn: warn, onFailure: { [ownerBoot = layout.ownerBootPath] in _ = try? FileOps.remove(ownerBoot) })
            : nil
        reaper = mode == .owner
            ? DiskReaper(capacity: [false: limits.unlinkQueueBytes(originals: false), true: limits.unlinkQueueBytes(originals: true)],
                         unlink: { [layout, warn] id in Self.removeEntryFiles(id, layout: layout, warn: warn) })
            : nil
        writer = DiskMutex(WriterState(index: index, lockFD: lockFD, needsReconcile: needsReconcile))
        state = DiskMutex(MemoryState(totals: totals, lastFlush: FileOps.monotonicSeconds(), counters: counters))
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

    /// The index's totals again, after a change (one small read under the writer lock).
    func refreshTotals(_ index: DiskIndex) {
        guard let totals = try? index.totals() else { return }
        state.withLock { $0.totals = totals }
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
        if !Self.removeEntryFiles(id, layout: layout, warn: warn) { w.needsReconcile = true }
    }

    /// Unlinks an entry's file, then its sidecar; false (and a warning) when one could not go.
    static func removeEntryFiles(_ id: Hash256, layout: DiskLayout, warn: CacheWarningSink) -> Bool {
        do {
            try FileOps.remove(layout.dataPath(id))
            try FileOps.remove(layout.sidecarPath(id))
            return true
        } catch {
            warn("could not remove a cache file: \(error)")
            return false
        }
    }

    /// Bytes of one kind that are on disk without a row: evicted files waiting for the reaper, and
    /// until the repair after an unclean stop is done, a full queue's worth the last process may
    /// have left.
    func reapingBytes(originals: Bool) -> Int {
        guard let reaper else { return 0 }
        return reaper.pendingBytes(originals: originals) + (reconciler.isFinished ? 0 : reaper.capacity(originals: originals))
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
        defer { refreshTotals(index) }
        do { try index.apply(batch) } catch {
            w.needsReconcile = true
            throw Self.indexError(error, path: layout.indexPath)
        }
    }

    /// After a hit: writes the access batch if it is due and nobody holds the writer lock.
    func flushIfDue() {
        let due = state.withLock { s in
            !s.pending.isEmpty && (s.pendingHits >= limits.accessFlushBatch
                || FileOps.monotonicSeconds() - s.lastFlush >= limits.accessFlushInterval.secondsValue)
        }
        guard due else { return }
        writer.withLockIfAvailable { w in flushIfDue(&w) }
    }

    func flushIfDue(_ w: inout WriterState) {
        let due = state.withLock { s in
            (s.countersDirty || !s.pending.isEmpty) && (s.pendingHits >= limits.accessFlushBatch
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
            batch.accesses = s.pending.takeAll()
            if s.countersDirty || !batch.accesses.isEmpty { batch.counters = s.counters }
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

    /// Whether a store fsyncs its new file itself (the policy says so, or the background flush
    /// could not start).
    var syncsEachFile: Bool { limits.fsync.syncsEachFile || (limits.fsync == .batch && syncer == nil) }

    /// Background flushes of new files so far (`FsyncPolicy.batch`): done and failed.
    public var backgroundFlushes: (completed: Int, failed: Int) {
        let progress = syncer?.progress ?? DiskSyncer.Progress()
        return (progress.completed, progress.failed)
    }

    /// Evicted files whose rows are gone: waiting for their unlink now, unlinked in the background
    /// so far, and unlinks that failed (the next start then reconciles).
    public var backgroundUnlinks: (waiting: Int, done: Int, failed: Int) {
        let progress = reaper?.progress ?? (waiting: 0, reaped: 0, failures: 0)
        return (progress.waiting, progress.reaped, progress.failures)
    }

    /// Unlinks every evicted file still waiting, now (tests, and tools that count files).
    public func finishUnlinks() {
        reaper?.drain()
    }

    // MARK: Testing hooks

    /// Makes the next `count` stores fail at `point` with `errno` (for tests of write errors).
    @_spi(Testing)
    public func injectFault(at point: DiskFaultPoint?, errno code: Int32 = ENOSPC, count: Int = Int.max) {
        state.withLock { s in s.fault = point.map { DiskFault(point: $0, code: code, remaining: count) } }
    }

    /// Makes the next background flush fail with `errno`, as a write-back error would.
    @_spi(Testing)
    public func injectFlushFailure(errno code: Int32 = EIO) {
        syncer?.injectFailure(code)
    }

    /// The LRU order of one kind, least recently used first (digests), pending hits included.
    @_spi(Testing)
    public func lruOrder(originals: Bool) -> [String] {
        (try? queryIndex { try $0.useOrder(originals: originals) }) ?? []
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
