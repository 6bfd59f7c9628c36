import Foundation
import Testing
import ThumbCache

/// Keys and values for the memory-tier tests.
enum MemoryFixture {
    static func url(_ i: Int) -> NormalizedURL {
        try! NormalizedURL("https://img.example.com/catalog/\(i)/photo.jpg")
    }

    static func key(_ i: Int, variant v: Int = 0) -> CacheKey {
        CacheKey(url: url(i), variant: CacheVariant(size: 100 + v, fit: v.isMultiple(of: 2) ? "cover" : "contain", format: "jpeg", quality: 80))
    }

    static func bytes(_ count: Int, fill: UInt8 = 7) -> [UInt8] {
        [UInt8](repeating: fill, count: count)
    }
}

struct MemoryCacheTests {
    typealias F = MemoryFixture

    @Test("one stripe evicts exactly the least recently used entry; contains does not touch")
    func exactLRU() {
        let cache = MemoryCache(limits: .init(maxBytes: 1 << 20, maxEntries: 3), stripes: 1)
        cache.set(F.key(1), F.bytes(10))
        cache.set(F.key(2), F.bytes(10))
        cache.set(F.key(3), F.bytes(10))
        #expect(cache.get(F.key(1)) != nil)  // order now 1, 3, 2 (most recent first)
        cache.set(F.key(4), F.bytes(10))  // evicts 2
        #expect(!cache.contains(F.key(2)))
        #expect(cache.contains(F.key(1)) && cache.contains(F.key(3)) && cache.contains(F.key(4)))
        // contains(3) must not make 3 recent: 3 is now the oldest and goes next.
        #expect(cache.contains(F.key(3)))
        cache.set(F.key(5), F.bytes(10))
        #expect(!cache.contains(F.key(3)))
        #expect(cache.entries().map(\.key) == [F.key(5), F.key(4), F.key(1)])
        // A replacement counts as a use.
        cache.set(F.key(1), F.bytes(11))
        cache.set(F.key(6), F.bytes(10))
        #expect(cache.entries().map(\.key) == [F.key(6), F.key(1), F.key(5)])
        #expect(cache.stats.evictions == 3)
        #expect(cache.consistencyProblems() == [])
    }

    @Test("the byte limit evicts least recently used entries until the new one fits")
    func byteLimitLRU() {
        let cache = MemoryCache(limits: .init(maxBytes: 100, maxEntries: 100), stripes: 1)
        cache.set(F.key(1), F.bytes(40))
        cache.set(F.key(2), F.bytes(40))
        _ = cache.get(F.key(1))
        cache.set(F.key(3), F.bytes(40))  // 120 > 100: evicts 2, the least recent
        #expect(cache.entries().map(\.key) == [F.key(3), F.key(1)])
        cache.set(F.key(4), F.bytes(100))  // needs everything
        #expect(cache.entries().map(\.key) == [F.key(4)])
        let stats = cache.stats
        #expect(stats.bytes == 100 && stats.entries == 1 && stats.evictions == 3)
        #expect(cache.consistencyProblems() == [])
    }

    @Test("both limits hold after many inserts of random sizes", arguments: [1, 4, 16])
    func limitsHold(stripes: Int) {
        let limits = MemoryCacheLimits(maxBytes: 64_000, maxEntries: 200)
        let cache = MemoryCache(limits: limits, stripes: stripes)
        var rng = SystemRandomNumberGenerator()
        for i in 0..<6_000 {
            let size = Int.random(in: 0...(cache.maxEntryBytes * 3 / 4), using: &rng)
            cache.set(F.key(Int.random(in: 0..<3_000, using: &rng), variant: i % 3), F.bytes(size))
            let stats = cache.stats
            #expect(stats.bytes <= limits.maxBytes)
            #expect(stats.entries <= limits.maxEntries)
        }
        let listed = cache.entries()
        let stats = cache.stats
        #expect(listed.count == stats.entries)
        #expect(listed.reduce(0) { $0 + $1.size } == stats.bytes)
        #expect(cache.consistencyProblems() == [])
        // Small entries: the count limit is reached exactly, never passed.
        cache.removeAll()
        for i in 0..<3_000 { cache.set(F.key(i), F.bytes(1)) }
        #expect(cache.stats.entries == limits.maxEntries)
        #expect(cache.consistencyProblems() == [])
    }

    @Test("stripe shares add up to the limits exactly, remainders included")
    func sharesAddUp() {
        let cache = MemoryCache(limits: .init(maxBytes: 1_000_003, maxEntries: 10), stripes: 4)
        for i in 0..<2_000 { cache.set(F.key(i), F.bytes(1)) }
        #expect(cache.stats.entries == 10)  // shares 3, 3, 2, 2
        #expect(cache.maxEntryBytes == 250_000)
        #expect(cache.consistencyProblems() == [])
    }

    @Test("a replacement updates the byte count and may evict others, never itself")
    func replacementAccounting() {
        let cache = MemoryCache(limits: .init(maxBytes: 100, maxEntries: 10), stripes: 1)
        cache.set(F.key(1), F.bytes(30, fill: 1))
        cache.set(F.key(2), F.bytes(30, fill: 2))
        cache.set(F.key(1), F.bytes(10, fill: 3))
        var stats = cache.stats
        #expect(stats.bytes == 40 && stats.entries == 2 && stats.replacements == 1 && stats.insertions == 2)
        #expect(cache.get(F.key(1)) == F.bytes(10, fill: 3))
        cache.set(F.key(1), F.bytes(90, fill: 4))  // 120 would be over: 2 goes, 1 stays
        stats = cache.stats
        #expect(stats.bytes == 90 && stats.entries == 1 && stats.evictions == 1)
        #expect(cache.get(F.key(1)) == F.bytes(90, fill: 4))
        cache.set(F.key(1), F.bytes(100, fill: 5))  // exactly the limit
        #expect(cache.stats.bytes == 100)
        #expect(cache.consistencyProblems() == [])
    }

    @Test("an entry larger than its stripe's byte share is refused, and the older one removed")
    func oversizedRefused() {
        let cache = MemoryCache(limits: .init(maxBytes: 400, maxEntries: 100), stripes: 4)
        #expect(cache.maxEntryBytes == 100)
        cache.set(F.key(1), F.bytes(101))
        #expect(!cache.contains(F.key(1)))
        cache.set(F.key(1), F.bytes(100))
        #expect(cache.contains(F.key(1)))
        cache.set(F.key(1), F.bytes(5_000))  // stale bytes must not survive a refused update
        #expect(!cache.contains(F.key(1)))
        let stats = cache.stats
        #expect(stats.rejections == 2 && stats.insertions == 1 && stats.removals == 1 && stats.entries == 0 && stats.bytes == 0)
        #expect(cache.consistencyProblems() == [])

        let none = MemoryCache(limits: .init(maxBytes: 1_000, maxEntries: 0), stripes: 1)
        none.set(F.key(1), F.bytes(1))
        #expect(!none.contains(F.key(1)) && none.stats.rejections == 1)
    }

    @Test("get hands out the stored buffer itself, not a copy")
    func noCopy() {
        let cache = MemoryCache(stripes: 2)
        let stored = F.bytes(4096)
        cache.set(F.key(1), stored)
        let got = cache.get(F.key(1))
        let a = stored.withUnsafeBufferPointer { $0.baseAddress }
        let b = got?.withUnsafeBufferPointer { $0.baseAddress }
        #expect(a == b)
    }

    @Test("remove and removeAll(url:) take every variant of one URL and nothing else")
    func removeVariants() {
        let cache = MemoryCache(limits: .init(maxBytes: 1 << 24, maxEntries: 10_000), stripes: 16)
        for v in 0..<6 { cache.set(F.key(1, variant: v), F.bytes(10)) }
        for v in 0..<3 { cache.set(F.key(2, variant: v), F.bytes(10)) }
        #expect(cache.remove(F.key(1, variant: 5)))
        #expect(!cache.remove(F.key(1, variant: 5)))
        #expect(cache.removeAll(url: F.url(1)) == 5)
        #expect((0..<6).allSatisfy { !cache.contains(F.key(1, variant: $0)) })
        #expect((0..<3).allSatisfy { cache.contains(F.key(2, variant: $0)) })
        #expect(cache.removeAll(url: F.url(1)) == 0)
        #expect(cache.stats.entries == 3 && cache.stats.removals == 6)
        #expect(cache.consistencyProblems() == [])
    }

    @Test("removeAll(url:) finds variants in every scan chunk")
    func removeVariantsAcrossChunks() {
        let cache = MemoryCache(limits: .init(maxBytes: 1 << 24, maxEntries: 10_000), stripes: 1)
        let filler = MemoryCache.scanChunk * 3
        cache.set(F.key(0, variant: 0), F.bytes(1))
        for i in 1...filler { cache.set(F.key(i), F.bytes(1)) }
        cache.set(F.key(0, variant: 1), F.bytes(1))  // slot past the first chunks
        cache.remove(F.key(5))
        cache.set(F.key(0, variant: 2), F.bytes(1))  // reuses a freed slot in the first chunk
        #expect(cache.removeAll(url: F.url(0)) == 3)
        #expect(cache.stats.entries == filler - 1)
        #expect(cache.consistencyProblems() == [])
    }

    @Test("counters add up over a scripted sequence; removeAll empties but keeps counting")
    func statsAddUp() {
        let cache = MemoryCache(limits: .init(maxBytes: 1_000, maxEntries: 2), stripes: 1)
        #expect(cache.get(F.key(1)) == nil)  // miss
        cache.set(F.key(1), F.bytes(5))  // insertion
        cache.set(F.key(2), F.bytes(6))  // insertion
        #expect(cache.get(F.key(1)) != nil)  // hit
        #expect(cache.get(F.key(1)) != nil)  // hit
        cache.set(F.key(3), F.bytes(7))  // insertion, evicts 2
        cache.set(F.key(3), F.bytes(8))  // replacement
        #expect(cache.get(F.key(2)) == nil)  // miss
        cache.set(F.key(4), F.bytes(5_000))  // rejection
        #expect(cache.remove(F.key(1)))  // removal
        _ = cache.contains(F.key(3))  // counts nothing
        var stats = cache.stats
        #expect(stats == MemoryCacheStats(
            entries: 1, bytes: 8, maxEntries: 2, maxBytes: 1_000, stripes: 1, hits: 2, misses: 2,
            insertions: 3, replacements: 1, evictions: 1, removals: 1, rejections: 1))
        #expect(stats.hitRatio == 0.5)
        cache.removeAll()
        stats = cache.stats
        #expect(stats.entries == 0 && stats.bytes == 0 && stats.removals == 2 && stats.hits == 2)
        #expect(stats.entries == stats.insertions - stats.evictions - stats.removals)
        cache.set(F.key(1), F.bytes(5))  // usable again after clearing
        #expect(cache.get(F.key(1)) == F.bytes(5))
        #expect(cache.consistencyProblems() == [])
    }

    @Test("stripe counts: powers of two, at least 16 by default, fewer for tiny limits")
    func stripeCounts() {
        let standard = MemoryCache()
        #expect(standard.stripeCount >= 16 && standard.stripeCount & (standard.stripeCount - 1) == 0)
        #expect(standard.limits == MemoryCacheLimits(maxBytes: 128 << 20, maxEntries: 100_000))
        #expect(standard.stats.maxBytes == 128 << 20)
        #expect(MemoryCache(stripes: 3).stripeCount == 4)
        #expect(MemoryCache(stripes: 1).stripeCount == 1)
        #expect(MemoryCache(limits: .init(maxBytes: 4 << 20, maxEntries: 100_000)).stripeCount == 4)
        #expect(MemoryCache(limits: .init(maxBytes: 1 << 30, maxEntries: 40)).stripeCount == 2)
        #expect(MemoryCache(limits: .init(maxBytes: 0, maxEntries: 0)).stripeCount == 1)
    }

    @Test("keys built separately are equal and hash alike; other variants and URLs differ")
    func keyIdentity() {
        let a = F.key(1, variant: 0)
        let b = F.key(1, variant: 0)
        #expect(a == b && a.hashValue == b.hashValue && a.digest == b.digest)
        #expect(F.key(1, variant: 1) != a && F.key(2, variant: 0) != a)
        #expect(Set((0..<50).flatMap { i in (0..<4).map { F.key(i, variant: $0) } }).count == 200)
        let cache = MemoryCache(stripes: 8)
        cache.set(a, F.bytes(3))
        #expect(cache.get(b) == F.bytes(3) && cache.get(F.key(1, variant: 1)) == nil)
    }

    @Test("stats encode as JSON and back")
    func statsCodable() throws {
        let cache = MemoryCache(limits: .init(maxBytes: 1_000, maxEntries: 10), stripes: 2)
        cache.set(F.key(1), F.bytes(3))
        _ = cache.get(F.key(1))
        let stats = cache.stats
        let data = try JSONEncoder().encode(stats)
        #expect(try JSONDecoder().decode(MemoryCacheStats.self, from: data) == stats)
    }
}
