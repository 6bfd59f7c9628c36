import Foundation
import Synchronization
import Testing
@testable import ThumbCache

/// A cache found over its limits at open (a lowered cache.disk_max_mib): a tool trims it before it
/// returns; the daemon opens at once and trims in the background, oldest first, while every store
/// frees at least what it adds.
@Suite(.serialized) struct DiskTrimTests {
    static let entries = 4000
    static let size = 2048

    /// A cache of `entries` entries of `size` bytes, the oldest first.
    static func filled() throws -> URL {
        let directory = DiskTest.makeDirectory("trim")
        let cache = try DiskCache.open(at: directory, limits: DiskCacheLimits(maxBytes: 1 << 40, originalsMaxBytes: 0, fsync: .none), warn: { _ in })
        try cache.bulkFill(count: entries, chunk: 1000) { i in DiskBulkEntry(key: DiskTest.key(i), bytes: DiskTest.bytes(size, seed: UInt64(i + 1))) }
        cache.close()
        return directory
    }

    @Test func aToolTrimsBeforeOpeningReturns() throws {
        let directory = try Self.filled()
        defer { DiskTest.cleanUp(directory) }
        let half = Self.entries * Self.size / 2
        let cache = try DiskCache.open(at: directory, limits: DiskCacheLimits(maxBytes: half, originalsMaxBytes: 0, fsync: .none), warn: { _ in })
        #expect(cache.usage.thumbnails.bytes <= half && cache.usage.thumbnails.entries >= Self.entries / 2 - 1)
        #expect(cache.trimProgress == DiskTrimProgress(bytesOverAtStart: 0, bytesOver: 0, finished: true))
        cache.close()
    }

    @Test func theDaemonOpensAtOnceAndTrimsOldestFirstWhileStoresFreeWhatTheyAdd() throws {
        let directory = try Self.filled()
        defer { DiskTest.cleanUp(directory) }
        let half = Self.entries * Self.size / 2
        let warnings = LockedLines()
        let cache = try DiskCache.open(at: directory, limits: DiskCacheLimits(maxBytes: half, originalsMaxBytes: 0, fsync: .none),
                                       repair: .inBackground, warn: { warnings.append($0) })
        let atOpen = cache.trimProgress
        #expect(atOpen.bytesOverAtStart > 0 && atOpen.bytesOverAtStart <= half)
        #expect(warnings.lines.first?.contains("cache over its limits") == true, "\(warnings.lines)")

        // Stores while the trim runs: the total never grows past where it was.
        var highest = cache.usage.thumbnails.bytes
        for i in 0..<200 {
            try cache.store(DiskTest.key(Self.entries + i), DiskTest.bytes(Self.size, seed: 99_000 + UInt64(i)), contentType: "image/jpeg")
            let now = cache.usage.thumbnails.bytes
            #expect(now <= highest, "a store grew the cache while it was over its limit: \(now) > \(highest)")
            highest = min(highest, now)
        }
        let deadline = Date().addingTimeInterval(60)
        while !cache.trimProgress.finished, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        let done = cache.trimProgress
        #expect(done.finished && done.bytesOver == 0 && done.fractionDone == 1)
        #expect(cache.usage.thumbnails.bytes <= half)
        #expect(warnings.lines.contains { $0.contains("cache trimmed to its limits") }, "\(warnings.lines)")
        // Oldest first: the newest of the fill and every new store are still there.
        #expect(try cache.read(DiskTest.key(Self.entries - 1), .facts, countingHit: false) != nil)
        #expect(try cache.read(DiskTest.key(Self.entries + 199), .facts, countingHit: false) != nil)
        #expect(try cache.read(DiskTest.key(0), .facts, countingHit: false) == nil)
        let report = try cache.verify()
        #expect(report.isClean, "\(report.problems.prefix(3))")
        cache.close()
    }

    /// The eviction order walked page by page lists every entry once, oldest first: the cursor keeps
    /// the last access time whole (a REAL, with its fraction).
    @Test func theOldestEntriesArePagedEachOnce() throws {
        let directory = try Self.filled()
        defer { DiskTest.cleanUp(directory) }
        let cache = try DiskCache.open(at: directory, limits: DiskCacheLimits(maxBytes: 1 << 40, originalsMaxBytes: 0, fsync: .none), warn: { _ in })
        var seen: [Hash256] = []
        var cursor: DiskIndex.UseCursor?
        while true {
            let page = try cache.index.oldest(originals: false, limit: 32, after: cursor)
            if page.rows.isEmpty { break }
            seen += page.rows.map(\.id)
            cursor = page.cursor
        }
        #expect(seen.count == Self.entries && Set(seen).count == Self.entries)
        #expect(seen.first?.hex == DiskTest.key(0).digest && seen.last?.hex == DiskTest.key(Self.entries - 1).digest)
        cache.close()
    }

    @Test func closeStopsATrimUnderWay() throws {
        let directory = try Self.filled()
        defer { DiskTest.cleanUp(directory) }
        let cache = try DiskCache.open(at: directory, limits: DiskCacheLimits(maxBytes: Self.size * 10, originalsMaxBytes: 0, fsync: .none),
                                       repair: .inBackground, warn: { _ in })
        cache.close()
        // Reopened as a tool: what the trim left is trimmed now, and the cache is sound.
        let again = try DiskCache.open(at: directory, limits: DiskCacheLimits(maxBytes: Self.size * 10, originalsMaxBytes: 0, fsync: .none), warn: { _ in })
        #expect(again.usage.thumbnails.bytes <= Self.size * 10)
        #expect(try again.verify().isClean)
        again.close()
    }
}

/// The cache's log lines, as a sink collects them from any thread.
final class LockedLines: Sendable {
    private let stored = Mutex<[String]>([])
    func append(_ line: String) { stored.withLock { $0.append(line) } }
    var lines: [String] { stored.withLock { $0 } }
}
