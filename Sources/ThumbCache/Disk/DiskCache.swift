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
    private let writer: DiskMutex<WriterState>
    /// The map and counters: held for map updates only, never across I/O.
    private let state: DiskMutex<MemoryState>

    private struct WriterState: Sendable {
        var index: DiskIndex?
        var lockFD: Int32
        /// Set when an index write failed: the next start must reconcile (no clean marker).
        var needsReconcile = false
        var closed = false
        var knownFanouts = Set<String>()
    }

    private struct MemoryState: Sendable {
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

    private init(directory: URL, layout: DiskLayout, limits: DiskCacheLimits, mode: CacheOpenMode, clock: CacheClock,
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
    }

    deinit {
        close()
    }

    // MARK: Opening

    /// Opens the cache at `directory`.
    ///
    /// `.owner` creates the directory if needed and takes its lock (never waits: another owner
    /// gives `CacheError.ownedByAnotherProcess`). After an unclean shutdown it reconciles files and
    /// index; a missing or unreadable index is moved aside and rebuilt from the files, with a
    /// warning. `.readOnly` opens an existing index read-only and touches no file.
    public static func open(at directory: URL, limits: DiskCacheLimits = DiskCacheLimits(), mode: CacheOpenMode = .owner,
                            clock: CacheClock = .system,
                            warn: @escaping CacheWarningSink = CacheWarnings.standardError) throws(CacheError) -> DiskCache {
        let layout = DiskLayout(directory: directory)
        let url = URL(fileURLWithPath: layout.root, isDirectory: true)
        switch mode {
        case .readOnly:
            guard FileOps.status(layout.root)?.isDirectory == true, FileOps.status(layout.indexPath) != nil else {
                throw .noCache(directory: layout.root)
            }
            let index: DiskIndex
            do { index = try DiskIndex.openReadOnly(path: layout.indexPath) } catch {
                throw .indexUnreadable(path: layout.indexPath, reason: "\(error)")
            }
            let counters = (try? index.counters()) ?? DiskCounters()
            return DiskCache(directory: url, layout: layout, limits: limits, mode: mode, clock: clock, warn: warn, index: index,
                             lockFD: -1, table: DiskEntryTable(), counters: counters, needsReconcile: false,
                             startup: DiskStartup(kind: .readOnly))
        case .owner:
            do { try FileOps.makeDirectories(layout.root) } catch {
                throw .directoryUnusable(directory: layout.root, reason: error.reason)
            }
            let lockFD = try acquireLock(layout)
            do {
                let opened = try openOwnedIndex(layout: layout, limits: limits, clock: clock, warn: warn)
                let cache = DiskCache(directory: url, layout: layout, limits: limits, mode: mode, clock: clock, warn: warn,
                                      index: opened.index, lockFD: lockFD, table: opened.table, counters: opened.counters,
                                      needsReconcile: false, startup: opened.startup)
                return cache
            } catch {
                FileOps.closeDescriptor(lockFD)
                throw error
            }
        }
    }

    /// Whether a cache (its index) exists at `directory`, without opening or creating anything.
    public static func exists(at directory: URL) -> Bool {
        FileOps.status(DiskLayout(directory: directory).indexPath) != nil
    }

    /// The pid of the process that owns the cache at `directory`, or nil when none does. For the
    /// CLI to decide between working on the directory and asking the daemon.
    public static func owningProcess(at directory: URL) -> Int32? {
        let layout = DiskLayout(directory: directory)
        let fd = FileOps.openDescriptor(layout.lockPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { FileOps.closeDescriptor(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        return readPID(fd) ?? 0
    }

    private static func acquireLock(_ layout: DiskLayout) throws(CacheError) -> Int32 {
        let fd = FileOps.openDescriptor(layout.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw .directoryUnusable(directory: layout.root, reason: "cannot open \(layout.lockPath): \(String(cString: strerror(errno)))")
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            let pid = readPID(fd)
            FileOps.closeDescriptor(fd)
            if code == EWOULDBLOCK || code == EAGAIN { throw .ownedByAnotherProcess(directory: layout.root, pid: pid) }
            throw .directoryUnusable(directory: layout.root, reason: "cannot lock \(layout.lockPath): \(String(cString: strerror(code)))")
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private struct OpenedIndex {
        var index: DiskIndex
        var table: DiskEntryTable
        var counters: DiskCounters
        var startup: DiskStartup
    }

    private static func openOwnedIndex(layout: DiskLayout, limits: DiskCacheLimits, clock: CacheClock,
                                       warn: CacheWarningSink) throws(CacheError) -> OpenedIndex {
        do {
            try FileOps.makeDirectory(layout.objectsPath)
            try FileOps.makeDirectory(layout.tmpPath)
        } catch {
            throw .directoryUnusable(directory: layout.root, reason: error.reason)
        }
        // The marker goes before anything changes: from here on, a crash means "reconcile".
        let wasClean: Bool
        do { wasClean = try FileOps.remove(layout.cleanMarkerPath) } catch {
            throw .directoryUnusable(directory: layout.root, reason: error.reason)
        }
        // After a crash of this process alone (the machine kept running, same boot), every file
        // renamed into objects/ is whole: its bytes were written before the rename, and the page
        // cache outlives the process. Only a crash of the machine can leave a recent file torn, so
        // only then are recently written files checksummed. That keeps a restart after kill -9 fast.
        let previousBoot = FileOps.readSmallText(layout.ownerBootPath)
        let currentBoot = FileOps.bootID()
        let sameBoot = !wasClean && currentBoot != nil && previousBoot == currentBoot
        _ = try? FileOps.remove(layout.ownerBootPath)
        if let currentBoot { try? FileOps.writeNew(layout.ownerBootPath, Array(currentBoot.utf8), sync: limits.fsync != .none) }
        let recovery = DiskRecovery(layout: layout, recheckWindow: sameBoot ? 0 : limits.recheckWindow.secondsValue)
        var startup = DiskStartup(kind: wasClean ? .clean : sameBoot ? .processCrash : .crash)

        var index: DiskIndex?
        var rebuildReason: String?
        if FileOps.status(layout.indexPath) != nil {
            do {
                let opened = try DiskIndex.openOwner(path: layout.indexPath, fsync: limits.fsync)
                index = opened
                if !wasClean, let problem = try opened.quickCheck() {
                    rebuildReason = "failed SQLite's integrity check (\(problem))"
                }
            } catch {
                // Only a damaged index is replaced; a full disk or a permission problem is reported.
                guard isCorruption(error) else {
                    index?.close()
                    throw indexError(error, path: layout.indexPath)
                }
                rebuildReason = "cannot be read (\(error))"
            }
        } else {
            let hasFiles = ((try? recovery.scan())?.data.isEmpty == false)
            if hasFiles {
                rebuildReason = "is missing"
            } else {
                do { index = try DiskIndex.openOwner(path: layout.indexPath, fsync: limits.fsync) } catch {
                    throw indexError(error, path: layout.indexPath)
                }
            }
        }

        var records: [DiskEntryRecord] = []
        var table = DiskEntryTable()
        var batch = DiskIndexBatch()
        var counters = DiskCounters()
        if rebuildReason == nil, let opened = index {
            do {
                counters = try opened.counters()
                if wasClean {
                    // Rows go straight into the map; the LRU lists are linked once all are in.
                    FileOps.prefetch(layout.indexPath)
                    table = DiskEntryTable(capacity: try opened.entryCount())
                    try opened.loadRecords { table.appendUnlinked($0) }
                    table.linkByLastAccess()
                    do {
                        for name in try FileOps.list(layout.tmpPath) { try FileOps.removeTree(layout.tmpPath + "/" + name) }
                    } catch {
                        throw CacheError.directoryUnusable(directory: layout.root, reason: error.reason)
                    }
                } else {
                    let rows = try opened.loadRows()
                    let outcome: DiskRecovery.Outcome
                    do { outcome = try recovery.run(rows: rows) } catch {
                        throw CacheError.directoryUnusable(directory: layout.root, reason: error.description)
                    }
                    if outcome.changedAnything {
                        warn("the cache at \(layout.root) was not closed cleanly; repaired: \(outcome.summary)")
                    }
                    records = outcome.records
                    batch = outcome.batch
                    startup.checksummed = outcome.checksummed
                }
            } catch {
                guard isCorruption(error) else {
                    opened.close()
                    throw indexError(error, path: layout.indexPath)
                }
                rebuildReason = "cannot be read (\(error))"
            }
        }

        if let rebuildReason {
            index?.close()
            index = nil
            let rebuilt = try rebuildIndex(layout: layout, limits: limits, recovery: recovery, reason: rebuildReason, warn: warn)
            index = rebuilt.index
            records = rebuilt.records
            startup.kind = .rebuilt
            batch = DiskIndexBatch()
        }
        guard let index else { throw .indexFailed(reason: "no index") }

        // Build the map (after a repair or rebuild), then keep each budget (limits may have shrunk).
        if !records.isEmpty { table = DiskEntryTable(loading: records) }
        for originals in [false, true] {
            let budget = limits.maxBytes(originals: originals)
            while table.bytes(originals: originals) > budget, let victim = table.oldest(originals: originals) {
                table.remove(victim.id)
                _ = try? FileOps.remove(layout.dataPath(victim.id))
                _ = try? FileOps.remove(layout.sidecarPath(victim.id))
                batch.deletes.append(victim.id)
                counters.evictions += 1
                batch.counters = counters
            }
        }
        do { try index.apply(batch) } catch {
            index.close()
            throw Self.indexError(error, path: layout.indexPath)
        }
        return OpenedIndex(index: index, table: table, counters: counters, startup: startup)
    }

    /// Moves the old index aside (keeping one previous copy) and builds a new one from the files.
    private static func rebuildIndex(layout: DiskLayout, limits: DiskCacheLimits, recovery: DiskRecovery, reason: String,
                                     warn: CacheWarningSink) throws(CacheError) -> (index: DiskIndex, records: [DiskEntryRecord]) {
        let aside = layout.indexPath + ".broken"
        let hadIndex = FileOps.status(layout.indexPath) != nil
        do {
            for suffix in ["", "-wal", "-shm"] { try FileOps.remove(aside + suffix) }
            if hadIndex { try FileOps.rename(layout.indexPath, aside) }
            for suffix in ["-wal", "-shm"] where FileOps.status(layout.indexPath + suffix) != nil {
                try FileOps.rename(layout.indexPath + suffix, aside + suffix)
            }
        } catch {
            throw .directoryUnusable(directory: layout.root, reason: error.description)
        }
        let index: DiskIndex
        do { index = try DiskIndex.openOwner(path: layout.indexPath, fsync: limits.fsync) } catch {
            throw indexError(error, path: layout.indexPath)
        }
        let outcome: DiskRecovery.Outcome
        do { outcome = try recovery.run(rows: nil) } catch {
            index.close()
            throw .directoryUnusable(directory: layout.root, reason: error.description)
        }
        do { try index.apply(outcome.batch) } catch {
            index.close()
            throw indexError(error, path: layout.indexPath)
        }
        let movedAside = hadIndex ? " (the old one is kept as \(aside))" : ""
        warn("the cache index \(layout.indexPath) \(reason); rebuilt it from the files\(movedAside): \(outcome.adopted) entries recovered, \(outcome.removedFiles) files removed")
        return (index, outcome.records)
    }

    /// Whether an error means the index itself is damaged (so it is rebuilt from the files),
    /// as opposed to a full disk, a permission problem or another process holding it busy.
    static func isCorruption(_ error: any Error) -> Bool {
        if error is DiskIndexError { return true }
        guard let error = error as? DatabaseError else { return false }
        switch error.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_FORMAT, .SQLITE_SCHEMA: return true
        case .SQLITE_ERROR: return error.message?.hasPrefix("no such") == true  // a table or column missing
        default: return false
        }
    }

    static func indexError(_ error: any Error, path: String) -> CacheError {
        if let error = error as? CacheError { return error }
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL {
            return .writeFailed(path: path, reason: error.message ?? "database or disk is full", diskFull: true)
        }
        return .indexFailed(reason: "\(error)")
    }

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

    private func facts(_ record: DiskEntryRecord, isStale: Bool) -> DiskEntryFacts {
        DiskEntryFacts(checksum: record.checksum.hex, contentType: record.contentType,
                       validators: CacheValidators(etag: record.etag, lastModified: record.lastModified),
                       validated: record.validated, isStale: isStale)
    }

    private func ownerLookup(_ id: Hash256) throws(CacheError) -> ([UInt8], DiskEntryRecord, Bool)? {
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
    private func countHit(_ id: Hash256, generation: UInt64, now: Double, markVerified: Bool) -> DiskEntryRecord? {
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

    private func readOnlyLookup(_ key: CacheKey, id: Hash256) throws(CacheError) -> DiskHit? {
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
    private func dropIfUnchanged(_ record: DiskEntryRecord, reason: String) -> Bool {
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

    // MARK: Changes

    /// Stores `bytes` for `key` (replacing any previous entry), evicting least recently used
    /// entries of the same kind first so the budget is never exceeded. Throws `.entryTooLarge` for
    /// an entry bigger than its whole budget, `.writeFailed` when the disk is full or unwritable;
    /// either way the cache stays consistent.
    public func store(_ key: CacheKey, _ bytes: [UInt8], validators: CacheValidators = CacheValidators(),
                      contentType: String? = nil) throws(CacheError) {
        try requireOwner()
        guard let id = Hash256(hex: key.digest) else { return }
        let originals = key.variant.isOriginal
        let budget = limits.maxBytes(originals: originals)
        guard bytes.count <= budget else { throw .entryTooLarge(size: bytes.count, maxBytes: budget) }

        let now = clock.seconds
        let checksum = Hash256.of(bytes)
        let record = DiskEntryRecord(id: id, isOriginal: originals, size: bytes.count, checksum: checksum, contentType: contentType,
                                     etag: validators.etag, lastModified: validators.lastModified, created: now, validated: now,
                                     lastAccess: now, hits: 0)
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
        let now = clock.seconds
        return try writer.withLock { (w) throws(CacheError) -> Bool in
            guard !w.closed, let index = w.index else { throw CacheError.closed }
            var changedValidators = false
            guard let updated = state.withLock({ s in
                s.table.update(id) { record in
                    record.validated = now
                    if let validators, validators.etag != record.etag || validators.lastModified != record.lastModified {
                        record.etag = validators.etag
                        record.lastModified = validators.lastModified
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
            let validation = DiskIndexBatch.Validation(id: id, validated: now, etag: updated.etag, lastModified: updated.lastModified)
            do { try index.apply(DiskIndexBatch(validations: [validation])) } catch {
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

    // MARK: Listing and statistics

    /// Entries, filtered by host (exact, case-insensitive) and URL substring (case-insensitive),
    /// in the given order, paged with `limit` and `offset`.
    public func entries(sortedBy order: CacheEntryOrder = .lastAccess, host: String? = nil, urlContains: String? = nil,
                        limit: Int? = nil, offset: Int = 0) throws(CacheError) -> [CacheEntry] {
        let rows = try queryIndex { try $0.list(order: order, host: host, urlContains: urlContains, limit: limit, offset: offset) }
        return rows.compactMap { row in row.key.map { row.entry(key: $0, layout: layout) } }
    }

    /// One page of the listing (see `CacheEntryQuery`), with the total that passes its filters.
    public func page(_ query: CacheEntryQuery) throws(CacheError) -> CacheEntryPage {
        let page = try queryIndex { try $0.page(query) }
        var entries: [CacheEntry] = [], cursors: [CacheEntryCursor] = []
        for (row, cursor) in zip(page.rows, page.cursors) {
            guard let key = row.key else { continue }
            entries.append(row.entry(key: key, layout: layout))
            cursors.append(cursor)
        }
        return CacheEntryPage(entries: entries, variants: page.variants, total: page.total, offset: page.offset,
                              previous: page.offset > 0 ? cursors.first : nil,
                              next: page.offset + page.rows.count < page.total ? cursors.last : nil)
    }

    /// Hosts by number of entries, most first.
    public func hosts(limit: Int = 200) throws(CacheError) -> [CacheHostUsage] {
        try queryIndex { try $0.hosts(limit: limit) }
    }

    /// Every stored variant (and the original) of one URL.
    public func variants(of url: NormalizedURL) throws(CacheError) -> [CacheEntry] {
        let rows = try queryIndex { try $0.rows(url: url.value) }
        return rows.compactMap { row in row.key.map { row.entry(key: $0, layout: layout) } }
    }

    public func stats() throws(CacheError) -> DiskCacheStats {
        let now = clock.seconds
        let ttl = limits.ttl.secondsValue
        let (aggregate, indexBytes) = try queryIndex { index in (try index.aggregate(staleBefore: now - ttl), index.fileBytes) }
        let counters: DiskCounters
        if mode == .owner {
            counters = state.withLock { $0.counters }
        } else {
            counters = try queryIndex { try $0.counters() }
        }
        return DiskCacheStats(
            directory: layout.root,
            thumbnails: CacheTierUsage(entries: aggregate.thumbnails.entries, bytes: aggregate.thumbnails.bytes, maxBytes: limits.maxBytes),
            originals: CacheTierUsage(entries: aggregate.originals.entries, bytes: aggregate.originals.bytes,
                                      maxBytes: limits.originalsMaxBytes),
            ttlSeconds: ttl, staleEntries: aggregate.stale,
            oldestCreated: aggregate.oldestCreated.map(Date.init(timeIntervalSince1970:)),
            newestCreated: aggregate.newestCreated.map(Date.init(timeIntervalSince1970:)),
            leastRecentAccess: aggregate.leastRecentAccess.map(Date.init(timeIntervalSince1970:)),
            topHosts: aggregate.topHosts, sizeHistogram: aggregate.histogram,
            hits: counters.hits, misses: counters.misses, evictions: counters.evictions, indexBytes: indexBytes)
    }

    /// Totals from the owner's in-memory map (no SQL): what eviction works with.
    public var usage: (thumbnails: CacheTierUsage, originals: CacheTierUsage) {
        state.withLock { s in
            (CacheTierUsage(entries: s.table.count(originals: false), bytes: s.table.bytes(originals: false), maxBytes: limits.maxBytes),
             CacheTierUsage(entries: s.table.count(originals: true), bytes: s.table.bytes(originals: true), maxBytes: limits.originalsMaxBytes))
        }
    }

    /// Lookups and evictions since this process opened the cache (no SQL; for metrics).
    public var activity: (hits: Int, misses: Int, evictions: Int) {
        state.withLock { s in (s.counters.hits, s.counters.misses, s.counters.evictions) }
    }

    // MARK: Verification

    /// Checksums every file against the index, checks each sidecar, and (owner only) looks for
    /// files the index does not list and old temporary files. With `repair` (owner only), drops
    /// damaged entries, removes strays and rewrites bad sidecars. A read-only verify beside a running
    /// owner reports only problems that are still there when looked at twice.
    public func verify(repair: Bool = false) throws(CacheError) -> VerifyReport {
        if repair { try requireOwner() }
        if mode == .readOnly { return try readOnlyVerify() }
        return try writer.withLock { (w) throws(CacheError) -> VerifyReport in
            guard !w.closed, let index = w.index else { throw CacheError.closed }
            try flushLocked(&w)
            let rows: [DiskIndexRow]
            do { rows = try index.loadRows() } catch { throw Self.indexError(error, path: layout.indexPath) }
            var report = VerifyReport()
            var damaged: [Hash256] = []
            var sidecarsToWrite: [(Hash256, DiskSidecar)] = []
            var strays: [String] = []
            let recovery = DiskRecovery(layout: layout, recheckWindow: 0)
            for row in rows {
                guard let id = Hash256(hex: row.digest) else { continue }
                report.checkedEntries += 1
                if let problem = checkFile(row, id: id) {
                    report.problems.append(problem)
                    damaged.append(id)
                    continue
                }
                report.checkedBytes += row.size
                let sidecar = recovery.readSidecar(id)
                if sidecar?.sha256 != row.sha256 || sidecar?.size != row.size || sidecar?.url != row.url || sidecar?.variant != row.variant {
                    report.problems.append(.init(kind: .badSidecar, path: layout.sidecarPath(id), url: row.url,
                                                 detail: sidecar == nil ? "missing or unreadable" : "does not match the index"))
                    sidecarsToWrite.append((id, row.sidecar))
                }
            }
            let listed = Set(rows.compactMap { Hash256(hex: $0.digest) })
            let scan: DiskRecovery.FileScan
            do throws(FileOpError) { scan = try recovery.scan() } catch {
                throw CacheError.readFailed(path: layout.objectsPath, reason: error.description)
            }
            for id in scan.data.keys where !listed.contains(id) {
                report.problems.append(.init(kind: .orphanFile, path: layout.dataPath(id), url: nil, detail: "not in the index"))
                strays.append(layout.dataPath(id))
                strays.append(layout.sidecarPath(id))
            }
            for id in scan.sidecars where !listed.contains(id) && scan.data[id] == nil {
                report.problems.append(.init(kind: .orphanFile, path: layout.sidecarPath(id), url: nil, detail: "metadata without a file"))
                strays.append(layout.sidecarPath(id))
            }
            for path in scan.strays {
                report.problems.append(.init(kind: .orphanFile, path: path, url: nil, detail: "not a cache file"))
                strays.append(path)
            }
            // Temporary files of stores in progress are young; old ones are leftovers.
            let now = FileOps.wallSeconds()
            for name in (try? FileOps.list(layout.tmpPath)) ?? [] {
                let path = layout.tmpPath + "/" + name
                if let status = FileOps.lstatus(path), now - status.modified > 60 {
                    report.problems.append(.init(kind: .temporaryFile, path: path, url: nil, detail: "left over from an unfinished write"))
                    strays.append(path)
                }
            }
            guard repair else { return report }
            state.withLock { s in
                for id in damaged {
                    s.table.remove(id)
                    s.dirty.remove(id)
                }
            }
            for id in damaged { removeFiles(id, &w) }
            for path in strays { _ = try? FileOps.removeTree(path) }
            for (id, sidecar) in sidecarsToWrite {
                do { try recovery.writeSidecar(sidecar, id: id) } catch { warn("could not rewrite \(layout.sidecarPath(id)): \(error)") }
            }
            try commitOrThrow(DiskIndexBatch(deletes: damaged), &w)
            report.repaired = true
            return report
        }
    }

    private func readOnlyVerify() throws(CacheError) -> VerifyReport {
        let rows = try readIndex { try $0.loadRows() }
        var report = VerifyReport()
        let recovery = DiskRecovery(layout: layout, recheckWindow: 0)
        for row in rows {
            guard let id = Hash256(hex: row.digest) else { continue }
            report.checkedEntries += 1
            if let problem = checkFile(row, id: id) {
                // Confirm: the owner may have changed the entry meanwhile.
                if try readIndex({ try $0.row(digest: row.digest) }) == row, let again = checkFile(row, id: id) {
                    report.problems.append(again)
                } else {
                    _ = problem
                }
                continue
            }
            report.checkedBytes += row.size
            let sidecar = recovery.readSidecar(id)
            if sidecar?.sha256 != row.sha256 || sidecar?.size != row.size {
                if try readIndex({ try $0.row(digest: row.digest) }) == row, recovery.readSidecar(id)?.sha256 != row.sha256 {
                    report.problems.append(.init(kind: .badSidecar, path: layout.sidecarPath(id), url: row.url, detail: "missing or does not match the index"))
                }
            }
        }
        return report
    }

    private func checkFile(_ row: DiskIndexRow, id: Hash256) -> VerifyReport.Problem? {
        let path = layout.dataPath(id)
        let bytes: [UInt8]
        do { bytes = try FileOps.readAll(path) } catch {
            return .init(kind: error.isNotFound ? .missingFile : .unreadable, path: path, url: row.url,
                         detail: error.isNotFound ? "" : error.reason)
        }
        if bytes.count != row.size {
            return .init(kind: .sizeMismatch, path: path, url: row.url, detail: "\(bytes.count) bytes, the index says \(row.size)")
        }
        if Hash256.of(bytes).hex != row.sha256 {
            return .init(kind: .checksumMismatch, path: path, url: row.url, detail: "content differs from what was stored")
        }
        return nil
    }

    // MARK: Internals

    /// At most five warnings a minute about single entries (a wiped directory would otherwise
    /// give one per lookup), then how many were left out.
    private func warnAboutDrop(_ message: String) {
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

    private func requireOwner() throws(CacheError) {
        guard mode == .owner else { throw .readOnly(directory: layout.root) }
    }

    private func entry(key: CacheKey, record: DiskEntryRecord) -> CacheEntry {
        CacheEntry(key: key, fileURL: layout.fileURL(record.id), size: record.size, checksum: record.checksum.hex,
                   contentType: record.contentType, validators: CacheValidators(etag: record.etag, lastModified: record.lastModified),
                   created: Date(timeIntervalSince1970: record.created), validated: Date(timeIntervalSince1970: record.validated),
                   lastAccess: Date(timeIntervalSince1970: record.lastAccess), hits: record.hits)
    }

    private func isStale(validated: Double, now: Double) -> Bool {
        now - validated > limits.ttl.secondsValue
    }

    /// Runs a read on the index; the owner writes pending access times first so listings agree
    /// with the map.
    private func queryIndex<T>(_ body: (DiskIndex) throws -> T) throws(CacheError) -> T {
        try writer.withLock { (w) throws(CacheError) -> T in
            guard !w.closed, let index = w.index else { throw CacheError.closed }
            if mode == .owner { try flushLocked(&w) }
            do { return try body(index) } catch { throw Self.indexError(error, path: layout.indexPath) }
        }
    }

    private func readIndex<T>(_ body: (DiskIndex) throws -> T) throws(CacheError) -> T {
        try writer.withLock { (w) throws(CacheError) -> T in
            guard !w.closed, let index = w.index else { throw CacheError.closed }
            do { return try body(index) } catch { throw Self.indexError(error, path: layout.indexPath) }
        }
    }

    /// Unlinks an entry's file, then its sidecar. A failure leaves bytes the map no longer counts,
    /// so the next start reconciles.
    private func removeFiles(_ id: Hash256, _ w: inout WriterState) {
        do {
            try FileOps.remove(layout.dataPath(id))
            try FileOps.remove(layout.sidecarPath(id))
        } catch {
            w.needsReconcile = true
            warn("could not remove a cache file: \(error)")
        }
    }

    private func ensureFanout(_ id: Hash256, _ w: inout WriterState) throws(FileOpError) {
        let fanout = id.fanout
        guard !w.knownFanouts.contains(fanout) else { return }
        try FileOps.makeDirectories(layout.fanoutPath(fanout))
        w.knownFanouts.insert(fanout)
    }

    /// Best-effort index write after files already changed; on failure the next start reconciles.
    private func commit(_ batch: DiskIndexBatch, _ w: inout WriterState) {
        do { try commitOrThrow(batch, &w) } catch {
            warn("could not update the cache index (it is repaired on the next start): \(error)")
        }
    }

    private func commitOrThrow(_ batch: DiskIndexBatch, _ w: inout WriterState) throws(CacheError) {
        guard let index = w.index else { throw CacheError.closed }
        do { try index.apply(batch) } catch {
            w.needsReconcile = true
            throw Self.indexError(error, path: layout.indexPath)
        }
    }

    /// After a hit: writes the access batch if it is due and nobody holds the writer lock.
    private func flushIfDue() {
        let due = state.withLock { s in
            !s.dirty.isEmpty && (s.pendingHits >= limits.accessFlushBatch
                || FileOps.monotonicSeconds() - s.lastFlush >= limits.accessFlushInterval.secondsValue)
        }
        guard due else { return }
        writer.withLockIfAvailable { w in flushIfDue(&w) }
    }

    private func flushIfDue(_ w: inout WriterState) {
        let due = state.withLock { s in
            (s.countersDirty || !s.dirty.isEmpty) && (s.pendingHits >= limits.accessFlushBatch
                || FileOps.monotonicSeconds() - s.lastFlush >= limits.accessFlushInterval.secondsValue)
        }
        guard due, !w.closed else { return }
        do { try flushLocked(&w) } catch {
            warn("could not write access times to the cache index: \(error)")
        }
    }

    private func flushLocked(_ w: inout WriterState) throws(CacheError) {
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

    private static func writeError(_ error: FileOpError) -> CacheError {
        .writeFailed(path: error.path, reason: error.reason, diskFull: error.code == ENOSPC || error.code == EDQUOT)
    }

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
