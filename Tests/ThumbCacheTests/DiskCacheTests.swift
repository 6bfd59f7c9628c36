import ChildProcess
import Foundation
@_spi(Testing) import ThumbCache
import Testing
import TestSupport

@Suite("Disk cache")
struct DiskCacheTests {
    @Test func storeAndLookUpExactBytesWithMetadata() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let clock = TestClock()
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), clock: clock.clock)
        let key = DiskTest.key(1)
        let bytes = DiskTest.bytes(5000)
        try cache.store(key, bytes, validators: CacheValidators(etag: "\"abc\"", lastModified: "Tue, 01 Oct 2024 10:00:00 GMT"),
                        contentType: "image/jpeg")
        let hit = try #require(try cache.read(key, .bytes))
        #expect(hit.bytes == bytes)
        #expect(!hit.isStale)
        #expect(hit.entry.key == key && hit.entry.size == 5000 && hit.entry.hits == 1)
        #expect(hit.entry.validators == CacheValidators(etag: "\"abc\"", lastModified: "Tue, 01 Oct 2024 10:00:00 GMT"))
        #expect(hit.entry.contentType == "image/jpeg")
        #expect(hit.entry.checksum.count == 64)
        // The file holds exactly the bytes: no header.
        let file = try #require(try cache.read(key, .facts, countingHit: false)?.entry.fileURL)
        #expect(file.path == DiskTest.dataPath(dir, key))
        #expect([UInt8](try Data(contentsOf: file)) == bytes)
        #expect(!FileManager.default.fileExists(atPath: file.path + ".meta"), "the index alone describes an entry: one file (one inode) each")
        #expect(try cache.read(DiskTest.key(2), .bytes) == nil)
        #expect(try cache.read(DiskTest.key(2), .facts, countingHit: false)?.entry.fileURL == nil)
        #expect(DiskTest.temporaryFiles(in: dir).isEmpty)
        cache.close()
        #expect(throws: CacheError.closed) { try cache.read(key, .bytes) }
    }

    @Test func evictsLeastRecentlyUsedFirst() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(10_000))
        let (a, b, c, d) = (DiskTest.key(1), DiskTest.key(2), DiskTest.key(3), DiskTest.key(4))
        for (i, key) in [a, b, c].enumerated() { try cache.store(key, DiskTest.bytes(3000, seed: UInt64(i))) }
        #expect(cache.lruOrder(originals: false) == [a, b, c].map(\.digest))
        _ = try cache.read(a, .bytes)  // a becomes the most recent; b is now the oldest
        #expect(cache.lruOrder(originals: false) == [b, c, a].map(\.digest))
        try cache.store(d, DiskTest.bytes(3000, seed: 9))
        #expect(!cache.contains(b))
        #expect(cache.contains(a) && cache.contains(c) && cache.contains(d))
        // 5000 more: needs two victims, c then a.
        let e = DiskTest.key(5)
        try cache.store(e, DiskTest.bytes(5000, seed: 10))
        #expect(cache.lruOrder(originals: false) == [d, e].map(\.digest))
        #expect(cache.usage.thumbnails.bytes == 8000)
        #expect(try cache.stats().evictions == 3)
    }

    /// Random operations against a reference LRU model: the same entries survive, in the same order.
    @Test func matchesAReferenceLRUModel() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let budget = 20_000
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(budget))
        var model: [(digest: String, size: Int)] = []  // least recent first
        var random = SeededRandom(seed: 7)
        for step in 0..<600 {
            let key = DiskTest.key(Int.random(in: 0..<40, using: &random))
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let size = Int.random(in: 100...4000, using: &random)
                try cache.store(key, DiskTest.bytes(size, seed: UInt64(step)))
                model.removeAll { $0.digest == key.digest }
                while model.reduce(0, { $0 + $1.size }) + size > budget { model.removeFirst() }
                model.append((key.digest, size))
            case 5..<8:
                let hit = try cache.read(key, .bytes)
                if let index = model.firstIndex(where: { $0.digest == key.digest }) {
                    #expect(hit != nil)
                    model.append(model.remove(at: index))
                } else {
                    #expect(hit == nil)
                }
            default:
                let removed = try cache.remove(key)
                #expect(removed == model.contains { $0.digest == key.digest })
                model.removeAll { $0.digest == key.digest }
            }
            #expect(cache.lruOrder(originals: false) == model.map(\.digest), "step \(step)")
            #expect(cache.usage.thumbnails.bytes <= budget)
        }
    }

    @Test func originalsHaveTheirOwnBudget() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(10_000, originals: 20_000))
        for i in 0..<3 { try cache.store(DiskTest.key(i), DiskTest.bytes(3000, seed: UInt64(i))) }
        for i in 0..<6 { try cache.store(DiskTest.key(i, variant: .original), DiskTest.bytes(4000, seed: UInt64(100 + i))) }
        // Originals evicted only originals: 6 x 4000 > 20,000, so the first one went.
        #expect(cache.usage.thumbnails == CacheTierUsage(entries: 3, bytes: 9000, maxBytes: 10_000))
        #expect(cache.usage.originals == CacheTierUsage(entries: 5, bytes: 20_000, maxBytes: 20_000))
        #expect(!cache.contains(DiskTest.key(0, variant: .original)))
        // And thumbnails evict only thumbnails.
        try cache.store(DiskTest.key(9), DiskTest.bytes(4000))
        #expect(cache.usage.originals.entries == 5)
        #expect(!cache.contains(DiskTest.key(0)) && cache.contains(DiskTest.key(1)))
        let stats = try cache.stats()
        #expect(stats.thumbnails.bytes == 9000 - 3000 + 4000 && stats.originals.bytes == 20_000)
    }

    @Test func neverAboveTheLimitWhileFillingTwiceIt() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let limit = 64 << 10
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(limit))
        var written = 0, i = 0
        var random = SeededRandom(seed: 3)
        while written < 2 * limit {
            let size = Int.random(in: 500...9000, using: &random)
            try cache.store(DiskTest.key(i), DiskTest.bytes(size, seed: UInt64(i)))
            written += size
            i += 1
            let onDisk = DiskTest.files(in: dir)
            #expect(onDisk.bytes <= limit && cache.usage.thumbnails.bytes == onDisk.bytes)
        }
        #expect(try cache.verify().isClean)
    }

    @Test func refusesEntriesLargerThanTheirBudget() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1000, originals: 0))
        #expect(throws: CacheError.entryTooLarge(size: 1001, maxBytes: 1000)) { try cache.store(DiskTest.key(1), DiskTest.bytes(1001)) }
        #expect(throws: CacheError.entryTooLarge(size: 10, maxBytes: 0)) {
            try cache.store(DiskTest.key(1, variant: .original), DiskTest.bytes(10))
        }
        try cache.store(DiskTest.key(2), DiskTest.bytes(1000))
        #expect(cache.usage.thumbnails.entries == 1)
    }

    @Test func replacingAnEntryKeepsOneCopy() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20))
        let key = DiskTest.key(1)
        try cache.store(key, DiskTest.bytes(3000, seed: 1), validators: CacheValidators(etag: "\"1\""))
        try cache.store(key, DiskTest.bytes(2000, seed: 2), validators: CacheValidators(etag: "\"2\""))
        let hit = try #require(try cache.read(key, .bytes))
        #expect(hit.bytes == DiskTest.bytes(2000, seed: 2) && hit.entry.validators.etag == "\"2\"")
        #expect(cache.usage.thumbnails == CacheTierUsage(entries: 1, bytes: 2000, maxBytes: 1 << 20))
        #expect(DiskTest.files(in: dir) == DiskTest.Files(entries: 1, bytes: 2000, sidecars: 0))
    }

    @Test func cleanReopenKeepsEntriesLRUOrderHitsAndCounters() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let warnings = WarningLog()
        let keys = (0..<4).map { DiskTest.key($0) }
        do {
            let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), warn: warnings.sink)
            for (i, key) in keys.enumerated() { try cache.store(key, DiskTest.bytes(1000 + i, seed: UInt64(i))) }
            _ = try cache.read(keys[0], .bytes)
            _ = try cache.read(keys[0], .bytes)
            _ = try cache.read(keys[2], .bytes)
            _ = try cache.read(DiskTest.key(99), .bytes)
            cache.close()
        }
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("clean-shutdown").path))
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20), warn: warnings.sink)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("clean-shutdown").path))
        #expect(warnings.all.isEmpty)
        #expect(cache.lruOrder(originals: false) == [keys[1], keys[3], keys[0], keys[2]].map(\.digest))
        #expect(try cache.read(keys[0], .facts, countingHit: false)?.entry.hits == 2)
        let stats = try cache.stats()
        #expect(stats.hits == 3 && stats.misses == 1 && stats.thumbnails.entries == 4)
        for (i, key) in keys.enumerated() { #expect(try cache.read(key, .bytes)?.bytes == DiskTest.bytes(1000 + i, seed: UInt64(i))) }
    }

    @Test func accessTimesAndHitsAreWrittenInBatches() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        var limits = DiskTest.limits(1 << 20)
        limits.accessFlushBatch = 1000
        limits.accessFlushInterval = .seconds(3600)
        let cache = try DiskCache.open(at: dir, limits: limits)
        let key = DiskTest.key(1)
        try cache.store(key, DiskTest.bytes(100))
        for _ in 0..<5 { _ = try cache.read(key, .bytes) }
        #expect(try cache.read(key, .facts, countingHit: false)?.entry.hits == 5)  // the owner's map is exact at once
        let reader = try DiskCache.open(at: dir, mode: .readOnly)
        #expect(try reader.read(key, .facts, countingHit: false)?.entry.hits == 0)  // the index has not been written yet
        try cache.flushAccessLog()
        #expect(try reader.read(key, .facts, countingHit: false)?.entry.hits == 5)
        // A batch of `accessFlushBatch` hits is written without being asked.
        var small = DiskTest.limits(1 << 20)
        small.accessFlushBatch = 3
        small.accessFlushInterval = .seconds(3600)
        reader.close()
        cache.close()
        let batched = try DiskCache.open(at: dir, limits: small)
        let reader2 = try DiskCache.open(at: dir, mode: .readOnly)
        for _ in 0..<3 { _ = try batched.read(key, .bytes) }
        #expect(try reader2.read(key, .facts, countingHit: false)?.entry.hits == 8)
    }

    @Test func ttlMarksEntriesStaleAndRefreshRevalidates() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let clock = TestClock()
        var limits = DiskTest.limits(1 << 20)
        limits.ttl = .seconds(60)
        let key = DiskTest.key(1)
        do {
            let cache = try DiskCache.open(at: dir, limits: limits, clock: clock.clock)
            try cache.store(key, DiskTest.bytes(100), validators: CacheValidators(etag: "\"v1\"", lastModified: "Mon, 01 Jan 2024 00:00:00 GMT"))
            clock.advance(59)
            #expect(try cache.read(key, .bytes)?.isStale == false)
            clock.advance(2)
            let stale = try #require(try cache.read(key, .bytes))
            #expect(stale.isStale)
            #expect(stale.entry.validators == CacheValidators(etag: "\"v1\"", lastModified: "Mon, 01 Jan 2024 00:00:00 GMT"))
            #expect(try cache.stats().staleEntries == 1)
            cache.close()
        }
        // Still stale (and still with its validators) after a restart.
        let cache = try DiskCache.open(at: dir, limits: limits, clock: clock.clock)
        #expect(try cache.read(key, .bytes)?.isStale == true)
        #expect(try cache.refresh(key, validators: CacheValidators(etag: "\"v2\"")))
        let fresh = try #require(try cache.read(key, .bytes))
        #expect(!fresh.isStale && fresh.entry.validators.etag == "\"v2\"")
        #expect(try cache.refresh(DiskTest.key(2)) == false)
        #expect(try cache.verify().isClean)  // the sidecar follows the new validators
    }

    @Test func removeRemoveAllAndClear() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20))
        let url = try NormalizedURL("https://shop.example/img/1.jpg")
        let variants = [DiskTest.thumb, CacheVariant(size: 400, fit: "contain", format: "webp", quality: 70), .original]
        for (i, variant) in variants.enumerated() { try cache.store(CacheKey(url: url, variant: variant), DiskTest.bytes(100 + i)) }
        for i in 2..<6 { try cache.store(DiskTest.key(i), DiskTest.bytes(200)) }
        #expect(try cache.remove(DiskTest.key(2)))
        #expect(try cache.remove(DiskTest.key(2)) == false)
        #expect(try cache.variants(of: url).count == 3)
        #expect(try cache.removeAll(url: url) == 3)
        #expect(try cache.variants(of: url).isEmpty)
        #expect(DiskTest.files(in: dir) == DiskTest.Files(entries: 3, bytes: 600, sidecars: 0))
        try cache.clear()
        #expect(DiskTest.files(in: dir) == DiskTest.Files())
        #expect(try cache.stats().entries == 0 && cache.usage.thumbnails.entries == 0)
        try cache.store(DiskTest.key(7), DiskTest.bytes(10))  // still usable
        #expect(try cache.read(DiskTest.key(7), .bytes) != nil)
    }

    @Test func listingsAndStatistics() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let clock = TestClock()
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 24, originals: 1 << 24), clock: clock.clock)
        let sizes = [500, 2000, 20_000, 100_000, 3_000_000]
        for (i, size) in sizes.enumerated() {
            try cache.store(DiskTest.key(i, host: i < 3 ? "a.example" : "b.example"), DiskTest.bytes(size, seed: UInt64(i)))
            clock.advance(1)
        }
        try cache.store(DiskTest.key(0, variant: .original, host: "a.example"), DiskTest.bytes(7000))
        clock.advance(1)
        for _ in 0..<3 { _ = try cache.read(DiskTest.key(1, host: "a.example"), .bytes) }
        _ = try cache.read(DiskTest.key(42), .bytes)

        let bySize = try cache.entries(sortedBy: .size)
        #expect(bySize.map(\.size) == [3_000_000, 100_000, 20_000, 7000, 2000, 500])
        #expect(try cache.entries(sortedBy: .hits, limit: 1).first?.key == DiskTest.key(1, host: "a.example"))
        #expect(try cache.entries(sortedBy: .age).first?.key == DiskTest.key(0, host: "a.example"))
        #expect(try cache.entries(sortedBy: .lastAccess).first?.key == DiskTest.key(1, host: "a.example"))
        #expect(try cache.entries(sortedBy: .size, limit: 2, offset: 1).map(\.size) == [100_000, 20_000])
        #expect(try cache.entries(host: "B.EXAMPLE").count == 2)
        #expect(try cache.entries(urlContains: "/IMG/3").map(\.size) == [100_000])
        #expect(try cache.entries(urlContains: "%").isEmpty)
        // Listings round-trip through JSON (for --json and the HTTP API).
        let json = try JSONEncoder().encode(bySize)
        #expect(try JSONDecoder().decode([CacheEntry].self, from: json) == bySize)
        #expect(String(decoding: json, as: UTF8.self).contains("\"variant\":\"0\\/original\\/source\\/q0\""))

        let stats = try cache.stats()
        #expect(stats.thumbnails.entries == 5 && stats.thumbnails.bytes == sizes.reduce(0, +))
        #expect(stats.originals.entries == 1 && stats.originals.bytes == 7000)
        #expect(stats.topHosts.map(\.host) == ["b.example", "a.example"])
        #expect(stats.topHosts.first?.bytes == 3_100_000 && stats.topHosts.last?.entries == 4)
        #expect(stats.sizeHistogram.count == CacheSizeBucket.bounds.count)
        #expect(stats.sizeHistogram.reduce(0) { $0 + $1.entries } == 6)
        #expect(stats.sizeHistogram.reduce(0) { $0 + $1.bytes } == stats.bytes)
        #expect(stats.sizeHistogram[0].entries == 1 && stats.sizeHistogram[0].label == "< 1 KiB")
        #expect(stats.sizeHistogram.last?.entries == 0 && stats.sizeHistogram.last?.label == "≥ 4 MiB")
        #expect(stats.hits == 3 && stats.misses == 1)
        #expect(stats.oldestCreated == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(stats.indexBytes > 0)
    }

    @Test func aSecondOwnerIsRefusedWithTheOwnersPID() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let first = try DiskCache.open(at: dir)
        #expect(DiskCache.owningProcess(at: dir) == getpid())
        do {
            _ = try DiskCache.open(at: dir)
            Issue.record("a second owner was let in")
        } catch {
            #expect(error == .ownedByAnotherProcess(directory: DiskTestPath.standard(dir), pid: getpid()))
            #expect(error.description.contains("in use by process \(getpid())"))
            #expect(error.description.contains(DiskTestPath.standard(dir)))
        }
        first.close()
        #expect(DiskCache.owningProcess(at: dir) == nil)
        let second = try DiskCache.open(at: dir)
        second.close()
    }

    @Test func readOnlyReadsBesideTheOwnerAndRefusesChanges() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        #expect(throws: CacheError.noCache(directory: DiskTestPath.standard(dir.appendingPathComponent("none")))) {
            try DiskCache.open(at: dir.appendingPathComponent("none"), mode: .readOnly)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("none").path))
        let owner = try DiskCache.open(at: dir)
        let key = DiskTest.key(1)
        try owner.store(key, DiskTest.bytes(1234), validators: CacheValidators(etag: "\"x\""))
        let reader = try DiskCache.open(at: dir, mode: .readOnly)
        let hit = try #require(try reader.read(key, .bytes))
        #expect(hit.bytes == DiskTest.bytes(1234) && hit.entry.validators.etag == "\"x\"")
        #expect(try reader.read(key, .facts, countingHit: false)?.entry.fileURL.path == DiskTest.dataPath(dir, key))
        #expect(try reader.entries().count == 1 && reader.contains(key))
        #expect(try reader.stats().thumbnails.bytes == 1234)
        #expect(try reader.verify().isClean)
        // Changes the owner makes after the reader opened are visible to it.
        try owner.store(DiskTest.key(2), DiskTest.bytes(10))
        #expect(try reader.read(DiskTest.key(2), .bytes)?.bytes == DiskTest.bytes(10))
        let changes: [() throws -> Void] = [
            { try reader.store(DiskTest.key(3), [1]) }, { _ = try reader.remove(key) }, { try reader.clear() },
            { _ = try reader.verify(repair: true) }, { _ = try reader.refresh(key) }, { _ = try reader.removeAll(url: key.url) },
        ]
        for attempt in changes {
            #expect(throws: CacheError.readOnly(directory: DiskTestPath.standard(dir))) { try attempt() }
        }
        reader.close()
        owner.close()
        // With no owner running (no write-ahead log on disk), a reader still opens and changes no
        // cache file; only SQLite's own -wal and -shm companions of the index may appear.
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        let filesBefore = DiskTest.files(in: dir)
        let alone = try DiskCache.open(at: dir, mode: .readOnly)
        #expect(try alone.read(key, .bytes)?.bytes == DiskTest.bytes(1234))
        alone.close()
        let added = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)).subtracting(before)
        #expect(added.isSubset(of: ["index.sqlite-wal", "index.sqlite-shm"]), "\(added)")
        #expect(DiskTest.files(in: dir) == filesBefore)
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("clean-shutdown").path))
    }

    @Test(.requires(ChildProcess.isInstalled("sqlite3"), "the sqlite3 command is not installed (make test installs it)"))
    func theIndexIsReadableWithSQLite3() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let owner = try DiskCache.open(at: dir)
        let key = DiskTest.key(5)
        try owner.store(key, DiskTest.bytes(4321), validators: CacheValidators(etag: "\"e\""), contentType: "image/jpeg")
        let checksum = try #require(try owner.read(key, .facts, countingHit: false)?.entry.checksum)
        let result = try ChildProcess.run("sqlite3", ["-readonly", dir.appendingPathComponent("index.sqlite").path,
            "SELECT url, variant, kind, file, size, sha256, etag, content_type FROM entries"], timeoutSeconds: 30)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "https://shop.example/img/5.jpg|200/cover/jpeg/q82|thumbnail|objects/\(key.digest.prefix(2))/\(key.digest)|4321|\(checksum)|\"e\"|image/jpeg\n")
    }

    /// The index loader parses hex eight digits at a time; compare it with the obvious way.
    @Test func digestParsingMatchesANaiveParser() {
        var random = SeededRandom(seed: 11)
        let digits = Array("0123456789abcdefABCDEF")
        for _ in 0..<2000 {
            let text = String((0..<64).map { _ in digits[Int.random(in: 0..<digits.count, using: &random)] })
            #expect(diskCacheCanonicalHex(text) == text.lowercased())
        }
        let valid = String(repeating: "0123456789abcdef", count: 4)
        #expect(diskCacheCanonicalHex(valid) == valid)
        // Every byte that is not a hex digit, at every position, is refused.
        let invalid: [Character] = ["g", "G", "/", ":", "@", "`", "[", "{", " ", "\u{7F}", "é", "\u{0}"]
        for position in stride(from: 0, to: 64, by: 7) {
            for character in invalid {
                var chars = Array(valid)
                chars[position] = character
                #expect(diskCacheCanonicalHex(String(chars)) == nil, "\(character) at \(position)")
            }
        }
        #expect(diskCacheCanonicalHex(String(valid.dropLast())) == nil)
        #expect(diskCacheCanonicalHex(valid + "0") == nil)
        #expect(diskCacheCanonicalHex("") == nil)
    }

    @Test func anUnusableDirectoryIsAClearError() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let file = dir.appendingPathComponent("a-file")
        try Data([1]).write(to: file)
        do {
            _ = try DiskCache.open(at: file.appendingPathComponent("cache"))
            Issue.record("opened a cache under a regular file")
        } catch {
            guard case .directoryUnusable(let path, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(path.hasSuffix("a-file/cache"))
        }
    }
}

enum DiskTestPath {
    /// The directory as the cache reports it (standardized, no trailing slash).
    static func standard(_ url: URL) -> String {
        var path = url.standardizedFileURL.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }
}

