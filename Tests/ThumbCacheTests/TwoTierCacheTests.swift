import Foundation
@_spi(Testing) import ThumbCache
import Testing
import TestSupport

@Suite("Two-tier cache")
struct TwoTierCacheTests {
    private func make(_ dir: URL, memory: MemoryCacheLimits = MemoryCacheLimits(), disk: DiskCacheLimits = DiskTest.limits(1 << 20),
                      clock: TestClock = TestClock(), warnings: WarningLog = WarningLog()) throws -> TwoTierCache {
        let diskCache = try DiskCache.open(at: dir, limits: disk, clock: clock.clock, warn: warnings.sink)
        return TwoTierCache(memory: MemoryCache(limits: memory, stripes: 1), disk: diskCache, clock: clock.clock, warn: warnings.sink)
    }

    @Test func aStoreWritesBothTiers() throws {
        let dir = DiskTest.makeDirectory("twotier")
        defer { DiskTest.cleanUp(dir) }
        let cache = try make(dir)
        let key = DiskTest.key(1)
        cache.set(key, DiskTest.bytes(500), validators: CacheValidators(etag: "\"a\""), contentType: "image/jpeg")
        #expect(cache.memory.contains(key))
        #expect(cache.disk?.contains(key) == true)
        let hit = try #require(cache.get(key))
        #expect(hit.tier == .memory && hit.bytes == DiskTest.bytes(500) && !hit.isStale)
        #expect(hit.validators.etag == "\"a\"" && hit.contentType == "image/jpeg")
        #expect(try cache.disk?.read(key, .facts, countingHit: false)?.entry.filePath == DiskTest.dataPath(dir, key))
        #expect(cache.get(DiskTest.key(2)) == nil)
    }

    @Test("the metadata of entries the memory tier dropped is swept: thousands of misses keep it bounded")
    func droppedEntriesMetadataIsSwept() throws {
        let memory = MemoryCacheLimits(maxBytes: 1 << 20, maxEntries: 8)
        let cache = TwoTierCache(memory: MemoryCache(limits: memory, stripes: 1), disk: nil)
        let count = 5_000
        for n in 0..<count {
            cache.set(DiskTest.key(n), DiskTest.bytes(64), validators: CacheValidators(etag: "\"\(n)\""), contentType: "image/jpeg")
        }
        // At most a sweep floor per stripe, or twice what a sweep kept: far from one per miss.
        #expect(cache.rememberedMetadataCount <= 16 * 64 + 2 * memory.maxEntries)
        // What the memory tier still holds keeps its metadata: its hits answer with it.
        for n in (count - memory.maxEntries)..<count {
            let hit = try #require(cache.get(DiskTest.key(n)))
            #expect(hit.tier == .memory && hit.validators.etag == "\"\(n)\"" && hit.contentType == "image/jpeg")
        }
    }

    @Test("hits answered from memory reach the disk entry's hits, last access and LRU place, not the disk's hit count")
    func memoryHitsAreRecordedOnDisk() throws {
        let dir = DiskTest.makeDirectory("twotier")
        defer { DiskTest.cleanUp(dir) }
        let clock = TestClock()
        let cache = try make(dir, clock: clock)
        let disk = try #require(cache.disk)
        let (hot, cold) = (DiskTest.key(1), DiskTest.key(2))
        cache.set(hot, DiskTest.bytes(100))
        clock.advance(1)
        cache.set(cold, DiskTest.bytes(100))
        #expect(disk.lruOrder(originals: false) == [hot.digest, cold.digest])  // least recent first
        clock.advance(10)
        for _ in 0..<5 { #expect(cache.get(hot)?.tier == .memory) }
        let diskHits = disk.activity.hits
        cache.recordMemoryHits()
        let entry = try #require(try disk.read(hot, .facts, countingHit: false)?.entry)
        #expect(entry.hits == 5 && entry.lastAccess.timeIntervalSince1970 == 1_700_000_011)
        #expect(disk.lruOrder(originals: false) == [cold.digest, hot.digest], "the hot entry is no longer next to go")
        #expect(disk.activity.hits == diskHits)
        cache.recordMemoryHits()  // nothing new
        #expect(try disk.read(hot, .facts, countingHit: false)?.entry.hits == 5 && disk.read(cold, .facts, countingHit: false)?.entry.hits == 0)
        // Written to the index, so a listing (and a reader beside the daemon) sees them.
        #expect(try disk.entries(sortedBy: .hits).first?.hits == 5)
        #expect(cache.memory.consistencyProblems().isEmpty)
    }

    @Test func aDiskHitIsPromotedToMemory() throws {
        let dir = DiskTest.makeDirectory("twotier")
        defer { DiskTest.cleanUp(dir) }
        let cache = try make(dir)
        let key = DiskTest.key(1)
        cache.set(key, DiskTest.bytes(700), validators: CacheValidators(etag: "\"p\""), contentType: "image/webp")
        cache.memory.removeAll()  // as if the memory tier had evicted it
        let fromDisk = try #require(cache.get(key))
        #expect(fromDisk.tier == .disk && fromDisk.bytes == DiskTest.bytes(700))
        #expect(fromDisk.validators.etag == "\"p\"" && fromDisk.contentType == "image/webp")
        #expect(cache.memory.contains(key))
        let fromMemory = try #require(cache.get(key))
        #expect(fromMemory.tier == .memory && fromMemory.bytes == DiskTest.bytes(700))
        #expect(fromMemory.validators.etag == "\"p\"" && fromMemory.contentType == "image/webp")
    }

    @Test func entriesTheMemoryTierEvictsAreStillServedFromDisk() throws {
        let dir = DiskTest.makeDirectory("twotier")
        defer { DiskTest.cleanUp(dir) }
        let cache = try make(dir, memory: MemoryCacheLimits(maxBytes: 1 << 20, maxEntries: 2))
        let keys = (0..<3).map { DiskTest.key($0) }
        for (i, key) in keys.enumerated() { cache.set(key, DiskTest.bytes(100, seed: UInt64(i))) }
        #expect(!cache.memory.contains(keys[0]) && cache.memory.contains(keys[2]))
        let hit = try #require(cache.get(keys[0]))
        #expect(hit.tier == .disk && hit.bytes == DiskTest.bytes(100, seed: 0))
        #expect(cache.memory.contains(keys[0]) && !cache.memory.contains(keys[1]))  // promotion evicted the oldest
        #expect(cache.get(keys[1])?.tier == .disk)
    }

    @Test func theTTLMarksEntriesStaleInBothTiersAndRefreshRevalidates() throws {
        let dir = DiskTest.makeDirectory("twotier")
        defer { DiskTest.cleanUp(dir) }
        let clock = TestClock()
        var limits = DiskTest.limits(1 << 20)
        limits.ttl = .seconds(300)
        let cache = try make(dir, disk: limits, clock: clock)
        #expect(cache.ttl == .seconds(300))
        let key = DiskTest.key(1)
        let validators = CacheValidators(etag: "\"v1\"", lastModified: "Wed, 02 Oct 2024 08:00:00 GMT")
        cache.set(key, DiskTest.bytes(100), validators: validators)
        clock.advance(299)
        #expect(cache.get(key)?.isStale == false)
        clock.advance(2)
        let staleInMemory = try #require(cache.get(key))
        #expect(staleInMemory.tier == .memory && staleInMemory.isStale && staleInMemory.validators == validators)
        cache.memory.removeAll()
        let staleOnDisk = try #require(cache.get(key))
        #expect(staleOnDisk.tier == .disk && staleOnDisk.isStale && staleOnDisk.validators == validators)
        // Revalidated (304 with a new ETag): fresh in both tiers, with the new validator.
        #expect(cache.refresh(key, validators: CacheValidators(etag: "\"v2\"")))
        let fresh = try #require(cache.get(key))
        #expect(fresh.tier == .memory && !fresh.isStale && fresh.validators.etag == "\"v2\"")
        cache.memory.removeAll()
        let freshOnDisk = try #require(cache.get(key))
        #expect(freshOnDisk.tier == .disk && !freshOnDisk.isStale && freshOnDisk.validators.etag == "\"v2\"")
        #expect(cache.refresh(DiskTest.key(9)) == false)
    }

    @Test func aFullDiskIsLoggedAndTheMemoryTierKeepsServing() throws {
        let dir = DiskTest.makeDirectory("twotier")
        defer { DiskTest.cleanUp(dir) }
        let warnings = WarningLog()
        let cache = try make(dir, warnings: warnings)
        cache.disk?.injectFault(at: .writeTemporary, errno: ENOSPC)
        for i in 0..<3 { cache.set(DiskTest.key(i), DiskTest.bytes(300, seed: UInt64(i))) }
        #expect(cache.diskFailures == 3)
        #expect(warnings.all.count == 1, "\(warnings.all)")  // one line a minute, not one per failure
        #expect(warnings.contains("the disk is full"))
        for i in 0..<3 {
            let hit = try #require(cache.get(DiskTest.key(i)))
            #expect(hit.tier == .memory && hit.bytes == DiskTest.bytes(300, seed: UInt64(i)))
        }
        #expect(cache.disk?.usage.thumbnails.entries == 0)
        #expect(try cache.disk?.verify().isClean == true)
        cache.disk?.injectFault(at: nil)
        cache.set(DiskTest.key(5), DiskTest.bytes(10))
        #expect(cache.disk?.contains(DiskTest.key(5)) == true)
    }

    @Test func anUnusableDirectoryLeavesAMemoryOnlyCache() throws {
        let dir = DiskTest.makeDirectory("twotier")
        defer { DiskTest.cleanUp(dir) }
        let file = dir.appendingPathComponent("not-a-directory")
        try Data([0]).write(to: file)
        let warnings = WarningLog()
        let cache = try TwoTierCache.open(diskDirectory: file.appendingPathComponent("cache"), warn: warnings.sink)
        #expect(!cache.hasDisk)
        #expect(warnings.contains("serving from memory only"))
        cache.set(DiskTest.key(1), [1, 2, 3])
        #expect(cache.get(DiskTest.key(1))?.bytes == [1, 2, 3])
        #expect(cache.get(DiskTest.key(1))?.tier == .memory)
    }

    @Test func aDirectoryOwnedByAnotherCacheIsAnError() throws {
        let dir = DiskTest.makeDirectory("twotier")
        defer { DiskTest.cleanUp(dir) }
        let owner = try DiskCache.open(at: dir)
        defer { owner.close() }
        #expect(throws: CacheError.ownedByAnotherProcess(directory: DiskTestPath.standard(dir), pid: getpid())) {
            try TwoTierCache.open(diskDirectory: dir, warn: { _ in })
        }
    }

    @Test func removalsReachBothTiers() throws {
        let dir = DiskTest.makeDirectory("twotier")
        defer { DiskTest.cleanUp(dir) }
        let cache = try make(dir)
        let url = try NormalizedURL("https://shop.example/img/1.jpg")
        let variants = [DiskTest.thumb, CacheVariant(size: 64, fit: "cover", format: "png", quality: 0), .original]
        for variant in variants { cache.set(CacheKey(url: url, variant: variant), [1, 2, 3]) }
        cache.set(DiskTest.key(2), [4])
        cache.set(DiskTest.key(3), [5])
        #expect(cache.remove(DiskTest.key(2)))
        #expect(cache.get(DiskTest.key(2)) == nil)
        #expect(cache.removeAll(url: url) == CacheRemoval(memory: 3, disk: 3))
        for variant in variants { #expect(cache.get(CacheKey(url: url, variant: variant)) == nil) }
        cache.clear()
        #expect(cache.get(DiskTest.key(3)) == nil)
        #expect(DiskTest.files(in: dir) == DiskTest.Files())
    }

    @Test func manyTasksAtOnceKeepBothTiersConsistent() async throws {
        let dir = DiskTest.makeDirectory("twotier")
        defer { DiskTest.cleanUp(dir) }
        let warnings = WarningLog()
        let limits = DiskCacheLimits(maxBytes: 128 << 10, originalsMaxBytes: 64 << 10, fsync: .none)
        let disk = try DiskCache.open(at: dir, limits: limits, warn: warnings.sink)
        let cache = TwoTierCache(memory: MemoryCache(limits: MemoryCacheLimits(maxBytes: 64 << 10, maxEntries: 40)), disk: disk,
                                 warn: warnings.sink)
        let deadline = Date().addingTimeInterval(1.5)
        let problems = await withTaskGroup(of: [String].self) { group in
            for task in 0..<8 {
                group.addTask {
                    var random = SeededRandom(seed: UInt64(100 + task))
                    var problems: [String] = []
                    var generation = UInt64(task + 1) << 40
                    var operations = 0
                    while operations < 200 || Date() < deadline {
                        operations += 1
                        let key = CrashKeys.key(Int.random(in: 0..<24, using: &random), Int.random(in: 0..<4, using: &random))
                        switch Int.random(in: 0..<100, using: &random) {
                        case 0..<35:
                            generation += 1
                            cache.set(key, CrashPayload.make(digest: key.digest, generation: generation, bodyLength: Int.random(in: 50...3000, using: &random)))
                        case 35..<85:
                            if let hit = cache.get(key), CrashPayload.check(hit.bytes, key: key) == nil {
                                problems.append("wrong bytes from \(hit.tier) for \(key)")
                            }
                        case 85..<93:
                            cache.remove(key)
                        case 93..<96:
                            cache.removeAll(url: key.url)
                        default:
                            cache.refresh(key)
                        }
                        if operations % 8 == 0 { await Task.yield() }
                    }
                    return problems
                }
            }
            return await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        #expect(cache.diskFailures == 0 && warnings.all.isEmpty, "\(warnings.all.prefix(5))")
        #expect(try disk.verify().isClean)
        let usage = disk.usage
        #expect(DiskTest.files(in: dir).bytes == usage.thumbnails.bytes + usage.originals.bytes)
        cache.close()
    }
}
