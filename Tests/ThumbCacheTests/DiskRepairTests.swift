import Foundation
@_spi(Testing) import ThumbCache
import Testing

/// A lost, corrupt or disagreeing index; damaged files; write errors.
@Suite("Disk cache repair")
struct DiskRepairTests {
    /// 12 thumbnails and 4 originals with validators and content types.
    private func populate(_ dir: URL) throws -> [(CacheKey, [UInt8])] {
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20))
        var stored: [(CacheKey, [UInt8])] = []
        for i in 0..<16 {
            let key = DiskTest.key(i, variant: i % 4 == 3 ? .original : DiskTest.thumb)
            let bytes = DiskTest.bytes(300 + 97 * i, seed: UInt64(i))
            try cache.store(key, bytes, validators: CacheValidators(etag: "\"e\(i)\"", lastModified: i % 2 == 0 ? "Mon, 01 Jan 2024 00:00:00 GMT" : nil),
                            contentType: "image/x-\(i)")
            stored.append((key, bytes))
        }
        cache.close()
        return stored
    }

    private func expectAll(_ stored: [(CacheKey, [UInt8])], in cache: DiskCache) throws {
        for (i, (key, bytes)) in stored.enumerated() {
            let hit = try #require(try cache.read(key, .bytes), "entry \(i)")
            #expect(hit.bytes == bytes)
            #expect(hit.entry.validators.etag == "\"e\(i)\"")
            #expect(hit.entry.validators.lastModified == (i % 2 == 0 ? "Mon, 01 Jan 2024 00:00:00 GMT" : nil))
            #expect(hit.entry.contentType == "image/x-\(i)")
        }
    }

    /// What a crash looks like to the next start: no clean-shutdown marker.
    private func forgetCleanShutdown(_ dir: URL) throws {
        try FileManager.default.removeItem(at: dir.appendingPathComponent("clean-shutdown"))
    }

    /// Without its index a file cannot be told from a stray (entries have no sidecar now): the
    /// cache starts empty, removes the files, and works on.
    @Test func aDeletedIndexStartsANewCacheAndTheFilesGo() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let stored = try populate(dir)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: dir.appendingPathComponent("index.sqlite" + suffix).path) }
        let warnings = WarningLog()
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), warn: warnings.sink)
        #expect(cache.startup.kind == .rebuilt)
        #expect(warnings.contains("is missing; started a new one"), "\(warnings.all)")
        #expect(warnings.contains("0 adopted from their metadata, 0 index rows dropped, 16 stray or damaged files removed"), "\(warnings.all)")
        try expectNoneAndWorking(stored, in: cache, dir: dir)
    }

    private func expectNoneAndWorking(_ stored: [(CacheKey, [UInt8])], in cache: DiskCache, dir: URL) throws {
        for (key, _) in stored { #expect(try cache.read(key, .bytes) == nil) }
        #expect(cache.usage.thumbnails.entries == 0 && cache.usage.originals.entries == 0)
        #expect(DiskTest.files(in: dir) == DiskTest.Files(entries: 0, bytes: 0, sidecars: 0))
        try cache.store(stored[0].0, stored[0].1)
        #expect(try cache.read(stored[0].0, .bytes)?.bytes == stored[0].1)
        #expect(try cache.verify().isClean)
    }

    @Test(arguments: ["garbage", "truncated"])
    func aCorruptIndexIsMovedAsideAndRebuilt(_ damage: String) throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let stored = try populate(dir)
        let index = dir.appendingPathComponent("index.sqlite")
        if damage == "garbage" {
            try Data(DiskTest.bytes(8192)).write(to: index)
        } else {
            let handle = try FileHandle(forWritingTo: index)
            try handle.truncate(atOffset: 1000)
            try handle.close()
        }
        let warnings = WarningLog()
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), warn: warnings.sink)
        #expect(warnings.contains("started a new one (the old one is kept as"), "\(warnings.all)")
        #expect(FileManager.default.fileExists(atPath: index.path + ".broken"))
        try expectNoneAndWorking(stored, in: cache, dir: dir)
    }

    @Test func aTruncatedFileIsDetectedOnLookupAndDropped() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let stored = try populate(dir)
        let (victim, _) = stored[5]
        try truncate(DiskTest.dataPath(dir, victim), to: 100)
        let warnings = WarningLog()
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), warn: warnings.sink)
        #expect(warnings.all.isEmpty)  // a clean start trusts the index…
        #expect(try cache.read(victim, .bytes) == nil)  // …but a lookup checks the size
        #expect(warnings.contains("has 100 bytes"), "\(warnings.all)")
        #expect(!cache.contains(victim) && !FileManager.default.fileExists(atPath: DiskTest.dataPath(dir, victim)))
        for i in [0, 4, 6, 15] { #expect(try cache.read(stored[i].0, .bytes)?.bytes == stored[i].1) }
        #expect(try cache.verify().isClean)
    }

    @Test func aTruncatedFileFoundAfterACrashIsDroppedAtOpen() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let stored = try populate(dir)
        try forgetCleanShutdown(dir)
        try truncate(DiskTest.dataPath(dir, stored[2].0), to: 10)
        let warnings = WarningLog()
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), warn: warnings.sink)
        #expect(warnings.contains("was not closed cleanly"), "\(warnings.all)")
        #expect(!cache.contains(stored[2].0))
        #expect(cache.usage.thumbnails.entries + cache.usage.originals.entries == 15)
        #expect(try cache.verify().isClean)
    }

    @Test func sameSizeCorruptionIsCaughtByTheChecksum() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let stored = try populate(dir)
        for index in [1, 7] {
            var bytes = stored[index].1
            bytes[bytes.count / 2] ^= 0xFF
            try Data(bytes).write(to: URL(fileURLWithPath: DiskTest.dataPath(dir, stored[index].0)))
        }
        let warnings = WarningLog()
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), warn: warnings.sink)
        #expect(try cache.read(stored[1].0, .bytes) == nil)
        #expect(warnings.contains("does not match its checksum"))
        let report = try cache.verify()
        #expect(report.problems.map(\.kind) == [.checksumMismatch])
        #expect(report.problems.first?.url == stored[7].0.url.value)
        let repaired = try cache.verify(repair: true)
        #expect(repaired.repaired && repaired.problems.count == 1)
        #expect(try cache.verify().isClean)
        #expect(!cache.contains(stored[7].0) && cache.contains(stored[8].0))
    }

    @Test func verifyFindsAndRepairsEveryKindOfProblem() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let stored = try populate(dir)
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20))
        let objects = dir.appendingPathComponent("objects")
        // A missing file, a short file, an orphan (file and sidecar without a row), a stray name,
        // a broken sidecar of an older format, and an old temporary file.
        try FileManager.default.removeItem(atPath: DiskTest.dataPath(dir, stored[0].0))
        try truncate(DiskTest.dataPath(dir, stored[1].0), to: 3)
        let orphan = DiskTest.key(500)
        let orphanPath = objects.appendingPathComponent("\(orphan.digest.prefix(2))/\(orphan.digest)")
        try FileManager.default.createDirectory(at: orphanPath.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: orphanPath)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: orphanPath.path + ".meta"))
        try Data([9]).write(to: objects.appendingPathComponent("\(stored[2].0.digest.prefix(2))/notes.txt"))
        try Data("not json".utf8).write(to: URL(fileURLWithPath: DiskTest.dataPath(dir, stored[3].0) + ".meta"))
        let leftover = dir.appendingPathComponent("tmp/leftover")
        try Data([0]).write(to: leftover)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: leftover.path)

        let report = try cache.verify()
        #expect(report.checkedEntries == 16)
        let kinds = report.problems.map(\.kind.rawValue).sorted()
        #expect(kinds == ["badSidecar", "missingFile", "orphanFile", "orphanFile", "sizeMismatch", "temporaryFile"], "\(report.problems)")
        #expect(!report.repaired)
        let repaired = try cache.verify(repair: true)
        #expect(repaired.repaired && repaired.problems.count == 6)
        #expect(try cache.verify().isClean)
        #expect(!cache.contains(stored[0].0) && !cache.contains(stored[1].0))
        #expect(try cache.read(stored[3].0, .bytes)?.bytes == stored[3].1)  // the broken sidecar went, the entry stayed
        #expect(DiskTest.files(in: dir) == DiskTest.Files(entries: 14, bytes: cache.usage.thumbnails.bytes + cache.usage.originals.bytes, sidecars: 0))
        #expect(DiskTest.temporaryFiles(in: dir).isEmpty)
    }

    /// The states a crash can leave between the steps of a store, made by hand: a row committed
    /// whose file was never renamed in, a file whose row a crash of the machine lost, a file torn
    /// to other bytes of the same size, an older format's sidecar alone, an unfinished write.
    @Test(arguments: [DiskRepairTiming.beforeOpening, .inBackground])
    func reconcileAfterACrashKeepsWhatTheIndexVouchesFor(_ timing: DiskRepairTiming) throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let stored = try populate(dir)
        let lostRow = DiskTest.key(900)
        let lostRowPath = DiskTest.dataPath(dir, lostRow)
        try? FileManager.default.createDirectory(atPath: (lostRowPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(DiskTest.bytes(777, seed: 900)).write(to: URL(fileURLWithPath: lostRowPath))
        let lonelySidecar = DiskTest.dataPath(dir, DiskTest.key(901)) + ".meta"
        try? FileManager.default.createDirectory(atPath: (lonelySidecar as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: lonelySidecar))
        var torn = stored[5].1
        torn[torn.count / 2] ^= 0xff
        try Data(torn).write(to: URL(fileURLWithPath: DiskTest.dataPath(dir, stored[5].0)))
        try Data(DiskTest.bytes(99)).write(to: dir.appendingPathComponent("tmp/abc.123.7"))
        try FileManager.default.removeItem(atPath: DiskTest.dataPath(dir, stored[6].0))
        try forgetCleanShutdown(dir)

        let warnings = WarningLog()
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), repair: timing, warn: warnings.sink)
        // Served at once either way: a torn file is never answered, whether the repair got to it or not.
        #expect(try cache.read(stored[5].0, .bytes) == nil)
        #expect(try cache.read(stored[6].0, .bytes) == nil)
        #expect(try cache.read(stored[7].0, .bytes)?.bytes == stored[7].1)
        cache.waitForRepair()
        #expect(cache.repairProgress.finished && cache.repairProgress.foldersDone == 256)
        #expect(warnings.contains("repair finished"), "\(warnings.all)")
        #expect(!cache.contains(stored[5].0) && !cache.contains(stored[6].0))
        #expect(!FileManager.default.fileExists(atPath: lostRowPath) && !FileManager.default.fileExists(atPath: lonelySidecar))
        #expect(DiskTest.temporaryFiles(in: dir).isEmpty)
        #expect(try cache.verify().isClean)
        let usage = cache.usage
        #expect(DiskTest.files(in: dir) == DiskTest.Files(entries: 14, bytes: usage.thumbnails.bytes + usage.originals.bytes, sidecars: 0))
        cache.close()
        #expect(try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20)).startup.kind == .clean)
    }

    /// A write that fails at each step (full disk, failed rename, failed index commit) leaves
    /// files, index and totals in agreement, and the cache keeps working.
    @Test(arguments: [DiskFaultPoint.writeTemporary, .rename, .indexCommit])
    func aWriteErrorLeavesTheCacheConsistent(_ point: DiskFaultPoint) throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let warnings = WarningLog()
        let limit = 10_000
        var survivors: [(CacheKey, [UInt8])] = []
        do {
            let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(limit), warn: warnings.sink)
            for i in 0..<4 {
                let bytes = DiskTest.bytes(2400, seed: UInt64(i))
                try cache.store(DiskTest.key(i), bytes)
                survivors.append((DiskTest.key(i), bytes))
            }
            cache.injectFault(at: point, errno: ENOSPC, count: 1)
            // Needs two victims (when the failure comes after eviction, they are gone for good).
            do {
                try cache.store(DiskTest.key(10), DiskTest.bytes(4000))
                Issue.record("the store did not fail")
            } catch {
                switch (point, error) {
                case (.writeTemporary, .writeFailed(_, _, let diskFull)): #expect(diskFull)
                case (.rename, .writeFailed): break
                case (.indexCommit, .indexFailed): break
                default: Issue.record("unexpected error \(error)")
                }
            }
            #expect(!cache.contains(DiskTest.key(10)))
            if point != .writeTemporary { survivors.removeFirst(2) }
            #expect(try cache.verify().isClean)
            let usage = cache.usage.thumbnails
            #expect(usage.entries == survivors.count)
            #expect(DiskTest.files(in: dir) == DiskTest.Files(entries: survivors.count, bytes: usage.bytes, sidecars: 0))
            #expect(DiskTest.temporaryFiles(in: dir).isEmpty)
            for (key, bytes) in survivors { #expect(try cache.read(key, .bytes)?.bytes == bytes) }
            try cache.store(DiskTest.key(11), DiskTest.bytes(400))  // the next store works (and fits)
            survivors.append((DiskTest.key(11), DiskTest.bytes(400)))
            #expect(cache.usage.thumbnails.entries == survivors.count)
            cache.close()
        }
        let reopened = try DiskCache.open(at: dir, limits: DiskTest.limits(limit), warn: warnings.sink)
        #expect(warnings.all.isEmpty, "\(warnings.all)")
        for (key, bytes) in survivors { #expect(try reopened.read(key, .bytes)?.bytes == bytes) }
        #expect(try reopened.verify().isClean)
    }

    /// Someone empties the directory while the owner runs: lookups miss (with a few warnings,
    /// not one per entry), and the next store recreates the folders it needs.
    @Test func filesRemovedUnderARunningOwnerAreMissesAndStoresCarryOn() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let warnings = WarningLog()
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), warn: warnings.sink)
        for i in 0..<20 { try cache.store(DiskTest.key(i), DiskTest.bytes(100, seed: UInt64(i))) }
        try FileManager.default.removeItem(at: dir.appendingPathComponent("tmp"))
        try FileManager.default.removeItem(at: dir.appendingPathComponent("objects"))
        for i in 0..<20 { #expect(try cache.read(DiskTest.key(i), .bytes) == nil) }
        #expect(warnings.all.count == 5, "\(warnings.all)")
        #expect(cache.usage.thumbnails.entries == 0)
        try cache.store(DiskTest.key(100), DiskTest.bytes(300))
        #expect(try cache.read(DiskTest.key(100), .bytes)?.bytes == DiskTest.bytes(300))
        #expect(try cache.verify().isClean)
    }

    @Test func limitsThatShrankAreAppliedAtOpen() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        _ = try populate(dir)
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(2000, originals: 1500))
        #expect(cache.usage.thumbnails.bytes <= 2000 && cache.usage.originals.bytes <= 1500)
        let usage = cache.usage
        #expect(DiskTest.files(in: dir).bytes == usage.thumbnails.bytes + usage.originals.bytes)
        #expect(try cache.verify().isClean)
    }

    private func truncate(_ path: String, to size: UInt64) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: size)
        try handle.close()
    }
}
