import Foundation
import TestSupport
import ThumbCache
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Real processes, real SIGKILL: a child writes entries in a loop and is killed at random
/// moments; after each kill the cache is opened, checked, and every entry it serves is compared
/// with what the child wrote for that key.
@Suite("Crash safety", .serialized)
struct CrashTests {
    static let rounds = 24

    @Test func aWriterKilledAtRandomMomentsNeverLeavesATornOrWrongEntry() throws {
        let dir = DiskTest.makeDirectory("crash")
        defer { DiskTest.cleanUp(dir) }
        var random = SeededRandom(seed: 2024)
        var served = 0, repairs = 0
        for round in 0..<Self.rounds {
            let policy: FsyncPolicy = [.data, .none, .batch][round % 3]
            let writer = try CrashWriterProcess(["write", dir.path, "\(round + 1)", policy.rawValue])
            // Every fifth round dies while it opens (and repairs) the cache; the rest while writing.
            if round % 5 == 4 {
                usleep(UInt32.random(in: 0...30_000, using: &random))
            } else {
                let ready = writer.readLine()
                try #require(ready == "ready", "round \(round): the writer did not start (\(ready ?? "no output"))")
                usleep(UInt32.random(in: 20_000...250_000, using: &random))
            }
            let status = writer.killNow()
            try #require(status == 128 + SIGKILL, "round \(round): the writer exited with \(status) before it was killed")

            let warnings = WarningLog()
            let cache = try DiskCache.open(at: dir, limits: CrashKeys.limits, warn: warnings.sink)
            if !warnings.all.isEmpty { repairs += 1 }
            #expect(!warnings.contains("rebuilt"), "round \(round): \(warnings.all)")
            let report = try cache.verify()
            #expect(report.isClean, "round \(round): \(report.problems)")
            // Every entry the cache lists is served, and is exactly what the writer stored for its key.
            let entries = try cache.entries(limit: nil)
            for entry in entries {
                let hit = try #require(try cache.read(entry.key, .bytes), "round \(round): listed but not served: \(entry.key)")
                let generation = CrashPayload.check(hit.bytes, key: entry.key)
                #expect(generation != nil, "round \(round): wrong bytes for \(entry.key)")
                if let generation { #expect(hit.entry.validators.etag == "\"g\(generation)\"", "round \(round): metadata of another write") }
                served += 1
            }
            // Totals agree with the files, and stay within the budgets.
            let usage = cache.usage
            let files = DiskTest.files(in: dir)
            #expect(files == DiskTest.Files(entries: entries.count, bytes: usage.thumbnails.bytes + usage.originals.bytes, sidecars: 0),
                    "round \(round)")
            #expect(usage.thumbnails.bytes <= CrashKeys.limits.maxBytes && usage.originals.bytes <= CrashKeys.limits.originalsMaxBytes)
            #expect(DiskTest.temporaryFiles(in: dir).isEmpty)
            // Half the time leave it as found (the next writer starts on a cleanly closed cache),
            // half the time drop the marker as if this check had crashed too.
            cache.close()
            if round % 2 == 1 { try? FileManager.default.removeItem(at: dir.appendingPathComponent("clean-shutdown")) }
        }
        #expect(served > 0)
        #expect(repairs > 0, "no kill ever landed between the steps of a write")
    }

    @Test func readersWorkWhileAnotherProcessOwnsTheCache() throws {
        let dir = DiskTest.makeDirectory("crash")
        defer { DiskTest.cleanUp(dir) }
        let owner = try CrashWriterProcess(["hold", dir.path, "5"])
        try #require(owner.readLine() == "ready")
        #expect(DiskCache.owningProcess(at: dir) == owner.pid)
        do {
            _ = try DiskCache.open(at: dir)
            Issue.record("a second owner was let in")
        } catch {
            #expect(error == .ownedByAnotherProcess(directory: DiskTestPath.standard(dir), pid: owner.pid))
            #expect(error.description.contains("process \(owner.pid)"))
        }
        let reader = try DiskCache.open(at: dir, mode: .readOnly)
        #expect(try reader.stats().thumbnails.entries == 5)
        for i in 0..<5 {
            let key = CrashKeys.key(i, 0)
            let hit = try #require(try reader.read(key, .bytes))
            #expect(CrashPayload.check(hit.bytes, key: key) == UInt64(i + 1))
        }
        #expect(try reader.verify().isClean)
        #expect(throws: CacheError.readOnly(directory: DiskTestPath.standard(dir))) { try reader.clear() }
        reader.close()
        owner.send("quit")
        #expect(owner.readLine() == "closed")
        #expect(owner.waitForExit() == 0)
        let warnings = WarningLog()
        let cache = try DiskCache.open(at: dir, limits: CrashKeys.limits, warn: warnings.sink)
        #expect(warnings.all.isEmpty)
        #expect(cache.usage.thumbnails.entries == 5)
    }

    @Test func afterKillNineOnTheSameBootOnlyUnvouchedFilesAreChecksummedAfterAMachineCrashRecentOnesAreToo() throws {
        let dir = DiskTest.makeDirectory("crash")
        defer { DiskTest.cleanUp(dir) }
        let count = 120
        for machineCrashed in [false, true] {
            let owner = try CrashWriterProcess(["hold", dir.path, "\(count)"])
            try #require(owner.readLine() == "ready")
            #expect(owner.killNow() == 128 + SIGKILL)
            if machineCrashed {
                // As after a reboot: the kernel's boot id is not the one the owner wrote down.
                let marker = dir.appendingPathComponent("owner-boot")
                #expect(FileManager.default.fileExists(atPath: marker.path))
                try Data("00000000-0000-0000-0000-000000000000\n".utf8).write(to: marker)
            }
            let cache = try DiskCache.open(at: dir, limits: CrashKeys.limits, warn: { _ in })
            let report = try cache.verify()
            #expect(report.isClean, "\(report.problems)")
            #expect(cache.usage.thumbnails.entries == count)
            if machineCrashed {
                #expect(cache.startup.kind == .crash)
                #expect(cache.startup.checksummed >= count, "every recently written file is read after a machine crash")
            } else {
                #expect(cache.startup.kind == .processCrash)
                #expect(cache.startup.checksummed < count / 10, "only files the index cannot vouch for: \(cache.startup.checksummed)")
            }
            cache.close()
            let reopened = try DiskCache.open(at: dir, limits: CrashKeys.limits, warn: { _ in })
            #expect(reopened.startup == DiskStartup(kind: .clean))
            reopened.close()
        }
    }

    /// RLIMIT_FSIZE makes the kernel refuse writes past a size: entry files, sidecars and the
    /// index itself fail for real. The cache must come out consistent.
    @Test func realWriteErrorsUnderAFileSizeLimitLeaveTheCacheConsistent() throws {
        let dir = DiskTest.makeDirectory("crash")
        defer { DiskTest.cleanUp(dir) }
        let writer = try CrashWriterProcess(["fsize", dir.path, "\(1 << 20)"])
        let summary = try #require(writer.readLine())
        #expect(writer.waitForExit() == 0)
        let counts = Dictionary(uniqueKeysWithValues: summary.split(separator: " ").compactMap { field -> (String, Int)? in
            let parts = field.split(separator: "=")
            return parts.count == 2 ? (String(parts[0]), Int(parts[1]) ?? -1) : nil
        })
        let stored = try #require(counts["stored"]), failed = try #require(counts["failed"])
        #expect(stored > 0 && failed > 0, "\(summary)")

        let cache = try DiskCache.open(at: dir, limits: DiskCacheLimits(maxBytes: 1 << 30, originalsMaxBytes: 1 << 30), warn: { _ in })
        #expect(try cache.verify().isClean)
        let entries = try cache.entries(limit: nil)
        #expect(!entries.isEmpty)
        for entry in entries {
            let hit = try #require(try cache.read(entry.key, .bytes))
            #expect(CrashPayload.check(hit.bytes, key: entry.key) != nil)
        }
        let usage = cache.usage
        #expect(DiskTest.files(in: dir) == DiskTest.Files(entries: entries.count, bytes: usage.thumbnails.bytes + usage.originals.bytes,
                                                          sidecars: 0))
        #expect(DiskTest.temporaryFiles(in: dir).isEmpty)
    }
}
