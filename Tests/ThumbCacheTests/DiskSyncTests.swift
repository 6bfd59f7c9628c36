import Foundation
@_spi(Testing) import ThumbCache
import Testing

/// `cache.fsync: batch`, the default: stores do not wait for the disk, a background thread
/// flushes the filesystem once a second when something was written, and a clean stop flushes
/// before it vouches for the files.
@Suite("Disk cache background flush")
struct DiskSyncTests {
    static func waitFor(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    @Test("many stores, few flushes: one a second at most, none while nothing is written")
    func storesShareFlushes() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(64 << 20, fsync: .batch), warn: { _ in })
        defer { cache.close() }
        #expect(cache.backgroundFlushes == (0, 0))
        let stores = 200
        let started = Date()
        for i in 0..<stores {
            try cache.store(DiskTest.key(i), DiskTest.bytes(4000, seed: UInt64(i)), validators: CacheValidators(), contentType: "image/jpeg")
        }
        let storing = Date().timeIntervalSince(started)
        #expect(Self.waitFor(5) { cache.backgroundFlushes.completed >= 1 }, "no flush within 5 s of \(stores) stores")
        // The stores noted after that flush began get one more; a syncfs on a busy disk can take seconds.
        var afterStores = cache.backgroundFlushes
        for _ in 0..<10 {
            usleep(1_500_000)
            let now = cache.backgroundFlushes
            if now == afterStores { break }
            afterStores = now
        }
        #expect(afterStores.failed == 0)
        // At most one flush a second (and one for what came during the last): never one a store.
        #expect(afterStores.completed <= Int(storing) + 3, "\(afterStores.completed) flushes for \(stores) stores in \(storing) s")
        // Idle: no write, no flush.
        usleep(2_500_000)
        #expect(cache.backgroundFlushes.completed == afterStores.completed)
        #expect(try cache.read(DiskTest.key(7), .bytes)?.bytes == DiskTest.bytes(4000, seed: 7))
    }

    @Test("a clean stop flushes what the interval has not yet, then marks the cache clean")
    func closeFlushesFirst() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20, fsync: .batch), warn: { _ in })
        try cache.store(DiskTest.key(1), DiskTest.bytes(3000), validators: CacheValidators(), contentType: "image/jpeg")
        cache.close()
        #expect(cache.backgroundFlushes == (1, 0))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("clean-shutdown").path))
        let again = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20, fsync: .batch), warn: { _ in })
        defer { again.close() }
        #expect(again.startup.kind == .clean)
        #expect(try again.read(DiskTest.key(1), .bytes)?.bytes == DiskTest.bytes(3000))
    }

    @Test("a failed flush is logged, and the next start checks the recent files as after a crash of the machine")
    func failedFlushMeansACheckNextTime() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let warnings = WarningLog()
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20, fsync: .batch), warn: warnings.sink)
        cache.injectFlushFailure(errno: EIO)
        try cache.store(DiskTest.key(1), DiskTest.bytes(3000), validators: CacheValidators(), contentType: "image/jpeg")
        #expect(Self.waitFor(5) { cache.backgroundFlushes.failed == 1 })
        #expect(warnings.contains("could not flush the cache's new files to disk"), "\(warnings.all)")
        // Later flushes succeed again, but the failure is remembered.
        try cache.store(DiskTest.key(2), DiskTest.bytes(3000, seed: 2), validators: CacheValidators(), contentType: "image/jpeg")
        cache.close()
        #expect(cache.backgroundFlushes == (1, 1))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("clean-shutdown").path))
        let again = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20, fsync: .batch), repair: .beforeOpening, warn: { _ in })
        defer { again.close() }
        // Checked as after a crash of the machine (recent files checksummed), not of the process alone.
        #expect(again.startup.kind == .crash, "\(again.startup.kind)")
        #expect(again.usage.thumbnails.entries == 2)
        #expect(try again.verify().isClean)
    }

    @Test("data and none start no flusher; each of data's stores syncs its own file")
    func otherPoliciesHaveNoFlusher() throws {
        for policy in [FsyncPolicy.data, .none, .full] {
            let dir = DiskTest.makeDirectory()
            defer { DiskTest.cleanUp(dir) }
            let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20, fsync: policy), warn: { _ in })
            try cache.store(DiskTest.key(1), DiskTest.bytes(3000), validators: CacheValidators(), contentType: "image/jpeg")
            cache.close()
            #expect(cache.backgroundFlushes == (0, 0), "\(policy)")
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("clean-shutdown").path), "\(policy)")
        }
    }
}
