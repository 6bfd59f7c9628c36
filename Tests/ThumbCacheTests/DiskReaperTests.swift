import Foundation
@_spi(CacheFiles) @testable import ThumbCache
import Testing

/// Evicted files unlinked off the store's path: counted against the budget while they wait,
/// never unlinked after a store has put a new file in their place.
@Suite("Disk cache background unlinks")
struct DiskReaperTests {
    /// A folder of real files named by id, and a reaper that unlinks them.
    final class Folder: @unchecked Sendable {
        let url = DiskTest.makeDirectory("reaper")
        func path(_ id: Hash256) -> String { url.appendingPathComponent(id.hex).path }
        func write(_ id: Hash256, _ bytes: [UInt8]) throws { try Data(bytes).write(to: URL(fileURLWithPath: path(id))) }
        func exists(_ id: Hash256) -> Bool { FileManager.default.fileExists(atPath: path(id)) }
        func unlink(_ id: Hash256) -> Bool { (try? FileOps.remove(path(id))) != nil }
        deinit { DiskTest.cleanUp(url) }
    }

    static func id(_ i: Int) -> Hash256 { Hash256.of(Array("entry \(i)".utf8)) }

    /// A reaper whose every unlink signals `started`, then waits for `release`.
    static func heldReaper(_ folder: Folder) -> (DiskReaper, started: DispatchSemaphore, release: DispatchSemaphore) {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let reaper = DiskReaper(capacity: [false: 1 << 20, true: 0]) { id in
            started.signal()
            release.wait()
            return folder.unlink(id)
        }
        return (reaper, started, release)
    }

    @Test("victims wait up to the queue's bytes, the rest are handed back; all are unlinked and uncounted after")
    func queueIsBounded() throws {
        let folder = Folder()
        let release = DispatchSemaphore(value: 0)
        // The first unlink waits, so what is queued stays queued while the test looks.
        let first = DiskMutex(true)
        let reaper = DiskReaper(capacity: [false: 3000, true: 0]) { id in
            if first.withLock({ f in defer { f = false }; return f }) { release.wait() }
            return folder.unlink(id)
        }
        for i in 0..<5 { try folder.write(Self.id(i), DiskTest.bytes(1000, seed: UInt64(i))) }
        let victims = (0..<5).map { DiskReaper.Victim(id: Self.id($0), size: 1000, originals: false) }
        let refused = reaper.take(victims)
        #expect(refused.map(\.id) == [Self.id(3), Self.id(4)])
        #expect(reaper.pendingBytes(originals: false) == 3000)
        #expect(reaper.take([DiskReaper.Victim(id: Self.id(9), size: 1, originals: true)]).count == 1, "no queue for originals")
        release.signal()
        reaper.stop()
        #expect(reaper.pendingBytes(originals: false) == 0)
        #expect(reaper.progress == (0, 3, 0))
        #expect((0..<3).allSatisfy { !folder.exists(Self.id($0)) })
        #expect(folder.exists(Self.id(3)) && folder.exists(Self.id(4)), "handed back, not unlinked")
    }

    @Test("a store takes back its waiting file: the reaper never unlinks the new one")
    func claimTakesBack() throws {
        let folder = Folder()
        let (reaper, started, release) = Self.heldReaper(folder)
        defer { reaper.stop() }
        for i in 0..<2 { try folder.write(Self.id(i), [1, 2, 3]) }
        _ = reaper.take([0, 1].map { DiskReaper.Victim(id: Self.id($0), size: 3, originals: false) })
        started.wait()  // the reaper holds entry 0 now; entry 1 waits
        #expect(reaper.claim(Self.id(1)))
        #expect(reaper.pendingBytes(originals: false) == 3, "entry 0's bytes only")
        try folder.write(Self.id(1), [7, 7])  // the new file in its place
        release.signal()
        reaper.drain()
        #expect(!folder.exists(Self.id(0)))
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path(Self.id(1)))) == Data([7, 7]))
        #expect(reaper.progress.reaped == 1)
    }

    @Test("a store of the entry being unlinked waits for that unlink, then its file stays")
    func claimWaitsForTheUnlinkInProgress() async throws {
        let folder = Folder()
        let (reaper, started, release) = Self.heldReaper(folder)
        defer { reaper.stop() }
        try folder.write(Self.id(0), [1])
        _ = reaper.take([DiskReaper.Victim(id: Self.id(0), size: 1, originals: false)])
        started.wait()
        let claimed = DiskMutex<Bool?>(nil)
        let thread = Thread {
            let taken = reaper.claim(Self.id(0))
            // What the store does next: its new file, which no unlink may remove.
            try? folder.write(Self.id(0), [2])
            claimed.withLock { $0 = taken }
        }
        thread.start()
        try await Task.sleep(for: .milliseconds(300))
        #expect(claimed.withLock { $0 } == nil, "claim returned while the unlink was still running")
        release.signal()
        let deadline = Date().addingTimeInterval(10)
        while claimed.withLock({ $0 }) == nil && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(claimed.withLock { $0 } == false, "it was being unlinked, not waiting")
        reaper.drain()
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path(Self.id(0)))) == Data([2]))
    }

    @Test("an unlink that fails is counted")
    func failuresAreCounted() {
        let reaper = DiskReaper(capacity: [false: 100, true: 100]) { _ in false }
        _ = reaper.take([DiskReaper.Victim(id: Self.id(0), size: 10, originals: true)])
        reaper.stop()
        #expect(reaper.progress == (0, 0, 1))
        #expect(reaper.pendingBytes(originals: true) == 0)
    }

    @Test("the queue is 1/1024 of a budget in whole 64 KiB, at most 16 MiB, none under 64 MiB")
    func queueSize() {
        #expect(DiskCacheLimits(maxBytes: 32 << 20).unlinkQueueBytes(originals: false) == 0)
        #expect(DiskCacheLimits(maxBytes: 64 << 20).unlinkQueueBytes(originals: false) == 64 << 10)
        #expect(DiskCacheLimits(maxBytes: 100 << 20).unlinkQueueBytes(originals: false) == 64 << 10)
        #expect(DiskCacheLimits(maxBytes: 1 << 30, originalsMaxBytes: 0).unlinkQueueBytes(originals: false) == 1 << 20)
        #expect(DiskCacheLimits(maxBytes: 1 << 30, originalsMaxBytes: 0).unlinkQueueBytes(originals: true) == 0)
        #expect(DiskCacheLimits(maxBytes: 1 << 40).unlinkQueueBytes(originals: false) == 16 << 20)
    }

    @Test("a cache that evicts in the background: objects/ never over the budget, the files and the index agree once the queue is empty")
    func cacheEvictsInTheBackground() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let limit = 64 << 20
        let size = 8 << 10
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(limit, originals: 0), warn: { _ in })
        let fit = limit / size
        for i in 0..<fit { try cache.store(DiskTest.key(i), DiskTest.bytes(size, seed: UInt64(i))) }
        #expect(cache.activity.evictions == 0)
        for i in fit..<(fit + 600) {
            try cache.store(DiskTest.key(i), DiskTest.bytes(size, seed: UInt64(i)))
            if i % 100 == 0 {
                let onDisk = DiskTest.files(in: dir)
                #expect(onDisk.bytes <= limit, "\(onDisk.bytes) bytes under objects/ over the budget of \(limit)")
            }
        }
        // A store of an entry evicted moments ago gets its file back, whatever the reaper does.
        let recent = 599
        #expect(!cache.contains(DiskTest.key(recent)))
        try cache.store(DiskTest.key(recent), DiskTest.bytes(size, seed: 99))
        #expect(cache.activity.evictions >= 600)
        #expect(cache.backgroundUnlinks.done > 0, "every victim was unlinked inline: \(cache.backgroundUnlinks)")
        cache.finishUnlinks()
        #expect(cache.backgroundUnlinks.waiting == 0 && cache.backgroundUnlinks.failed == 0)
        let usage = cache.usage.thumbnails
        #expect(DiskTest.files(in: dir) == DiskTest.Files(entries: usage.entries, bytes: usage.bytes, sidecars: 0))
        #expect(try cache.read(DiskTest.key(recent), .bytes)?.bytes == DiskTest.bytes(size, seed: 99))
        #expect(!cache.contains(DiskTest.key(0)))
        #expect(try cache.verify().isClean)
        cache.close()
        let reopened = try DiskCache.open(at: dir, limits: DiskTest.limits(limit, originals: 0), warn: { _ in })
        defer { reopened.close() }
        #expect(reopened.startup.kind == .clean)
        #expect(reopened.usage.thumbnails == usage)
    }
}
