import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opening a cache directory: its lock, the index, and the repair after an unclean shutdown.
extension DiskCache {
    // MARK: Opening

    /// Opens the cache at `directory`.
    ///
    /// `.owner` creates the directory if needed and takes its lock (never waits: another owner
    /// gives `CacheError.ownedByAnotherProcess`). After an unclean shutdown it reconciles files and
    /// index; a missing or unreadable index is moved aside and rebuilt from the files, with a
    /// warning. `.readOnly` opens an existing index read-only and touches no file.
    ///
    /// Opening reads no entry: lookups, evictions and totals go to the index, so it takes the same
    /// few milliseconds at any size. The repair after a crash runs as `repair` says; while it
    /// runs in the background, every file is checksummed before it is first served. So does the trim
    /// of a cache found over its limits: meanwhile each store frees at least what it adds.
    public static func open(at directory: URL, limits: DiskCacheLimits = DiskCacheLimits(), mode: CacheOpenMode = .owner,
                            repair: DiskRepairTiming = .beforeOpening, warmIndex: Bool = false, clock: CacheClock = .system,
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
            let totals = (try? index.totals()) ?? DiskTotals()
            return DiskCache(directory: url, layout: layout, limits: limits, mode: mode, clock: clock, warn: warn, index: index,
                             lockFD: -1, totals: totals, counters: counters, needsReconcile: false,
                             startup: DiskStartup(kind: .readOnly))
        case .owner:
            do { try FileOps.makeDirectories(layout.root) } catch {
                throw .directoryUnusable(directory: layout.root, reason: error.reason)
            }
            let lockFD = try acquireLock(layout)
            do {
                let opened = try openOwnedIndex(layout: layout, limits: limits, clock: clock, warn: warn)
                let cache = DiskCache(directory: url, layout: layout, limits: limits, mode: mode, clock: clock, warn: warn,
                                      index: opened.index, lockFD: lockFD, totals: opened.totals, counters: opened.counters,
                                      needsReconcile: false, startup: opened.startup)
                try cache.keepBudgetsAtOpen(repair)
                if warmIndex { cache.indexWarmUp.withLock { $0 = IndexWarmUp.start(path: layout.indexPath) } }
                if let recentFrom = opened.repairRecentFrom {
                    cache.reconciler.begin(folders: 256)
                    switch repair {
                    case .beforeOpening: cache.reconcileFolders(recentFrom: recentFrom)
                    case .inBackground: cache.reconciler.start { [cache] in cache.reconcileFolders(recentFrom: recentFrom) }
                    }
                }
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

    static func acquireLock(_ layout: DiskLayout) throws(CacheError) -> Int32 {
        let fd = FileOps.openDescriptor(layout.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw .directoryUnusable(directory: layout.root, reason: "cannot open \(layout.lockPath): \(String(cString: strerror(errno)))")
        }
        if !lockExclusively(fd) {
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

    /// flock on `fd`. A lock this very process released a moment ago can still be held by a child
    /// another thread is spawning: between its clone and its exec the child shares the lock file's
    /// open description (close-on-exec closes it only at the exec), which a loaded machine can
    /// stretch to milliseconds. So when the holder named in the file is this process, it tries again
    /// for up to a second before saying the cache is in use.
    private static func lockExclusively(_ fd: Int32) -> Bool {
        for _ in 0..<100 {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            let code = errno
            guard code == EWOULDBLOCK || code == EAGAIN, readPID(fd) == getpid() else {
                errno = code
                return false
            }
            usleep(10_000)
        }
        errno = EWOULDBLOCK
        return false
    }

    static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    struct OpenedIndex {
        var index: DiskIndex
        var totals: DiskTotals
        var counters: DiskCounters
        var startup: DiskStartup
        /// Set when the folders must be reconciled: files modified since then are checksummed.
        var repairRecentFrom: Double?
    }

    static func openOwnedIndex(layout: DiskLayout, limits: DiskCacheLimits, clock: CacheClock,
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
        let recovery = DiskRecovery(layout: layout)
        var startup = DiskStartup(kind: wasClean ? .clean : sameBoot ? .processCrash : .crash)

        var index: DiskIndex?
        var rebuildReason: String?
        if FileOps.status(layout.indexPath) != nil {
            do {
                let opened = try DiskIndex.openOwner(path: layout.indexPath, fsync: limits.fsync, hotRecords: limits.hotRecords)
                index = opened
            } catch {
                // Only a damaged index is replaced; a full disk or a permission problem is reported.
                guard isCorruption(error) else {
                    index?.close()
                    throw indexError(error, path: layout.indexPath)
                }
                rebuildReason = "cannot be read (\(error))"
            }
        } else {
            let hasFiles = ((try? FileOps.list(layout.objectsPath)) ?? []).contains { fanout in
                ((try? FileOps.list(layout.fanoutPath(fanout))) ?? []).isEmpty == false
            }
            if hasFiles {
                rebuildReason = "is missing"
            } else {
                // No index, no files and no owner before: a new directory, not a crash to report.
                if !wasClean && previousBoot == nil { startup.kind = .created }
                do { index = try DiskIndex.openOwner(path: layout.indexPath, fsync: limits.fsync, hotRecords: limits.hotRecords) } catch {
                    throw indexError(error, path: layout.indexPath)
                }
            }
        }

        if let rebuildReason {
            index?.close()
            index = try rebuildIndex(layout: layout, limits: limits, reason: rebuildReason, warn: warn)
            startup.kind = .rebuilt
        }
        guard let index else { throw .indexFailed(reason: "no index") }
        var opened = OpenedIndex(index: index, totals: DiskTotals(), counters: DiskCounters(), startup: startup)
        do {
            opened.counters = try index.counters()
            opened.totals = try index.totals()
            // Writes that never finished; this process has written none yet.
            var cleared = DiskRecovery.Outcome()
            do { try recovery.clearTemporary(into: &cleared) } catch {
                throw CacheError.directoryUnusable(directory: layout.root, reason: error.reason)
            }
            if rebuildReason != nil {
                opened.repairRecentFrom = -.infinity
            } else if !wasClean && startup.kind != .created {
                // Files written within the window before the newest row may be torn by a crash of
                // the machine; after a crash of the process alone only files the index cannot vouch for.
                let window = sameBoot ? 0 : limits.recheckWindow.secondsValue
                opened.repairRecentFrom = (try index.newestCreated() ?? 0) - window
            }
        } catch {
            index.close()
            throw indexError(error, path: layout.indexPath)
        }
        return opened
    }

    /// Moves the old index aside (keeping one previous copy) and starts a new, empty one; the
    /// repair then adopts the files that prove themselves through a sidecar and removes the rest.
    static func rebuildIndex(layout: DiskLayout, limits: DiskCacheLimits, reason: String,
                             warn: CacheWarningSink) throws(CacheError) -> DiskIndex {
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
        do { index = try DiskIndex.openOwner(path: layout.indexPath, fsync: limits.fsync, hotRecords: limits.hotRecords) } catch {
            throw indexError(error, path: layout.indexPath)
        }
        let movedAside = hadIndex ? " (the old one is kept as \(aside))" : ""
        warn("the cache index \(layout.indexPath) \(reason); started a new one\(movedAside): files with metadata beside them are adopted, the rest removed")
        return index
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
}
