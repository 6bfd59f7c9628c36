import Foundation
import Testing
import ThumbCache

/// Keyset pages against the same listing sorted in Swift: walking every page forward, backward,
/// from the last page, with filters and reversed orders, must give each entry exactly once, in order.
@Suite struct DiskPagingTests {
    /// 240 entries on three hosts, sizes with many ties, a few originals, hits on some.
    static func makeCache(_ dir: URL) throws -> DiskCache {
        let clock = TestClock()
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 26, originals: 1 << 26), clock: clock.clock)
        for i in 0..<240 {
            let host = ["a.example", "b.example", "c.example:8080"][i % 3]
            let variant = i % 17 == 0 ? CacheVariant.original : DiskTest.thumb
            try cache.store(DiskTest.key(i, variant: variant, host: host), DiskTest.bytes(100 + (i * 37) % 11 * 10, seed: UInt64(i)))
            if i % 5 == 0 { clock.advance(1) }  // ties in created_at too
        }
        for i in stride(from: 0, to: 240, by: 7) {
            let host = ["a.example", "b.example", "c.example:8080"][i % 3]
            for _ in 0..<(i % 4) { _ = try cache.read(DiskTest.key(i, variant: i % 17 == 0 ? .original : DiskTest.thumb, host: host), .bytes) }
            clock.advance(1)
        }
        return cache
    }

    /// The sort values of every entry that passes `query`'s filters, in the order promised (ties go
    /// by row id, which the test cannot see: values, count and distinctness are compared instead).
    static func expected(_ all: [CacheEntry], _ query: CacheEntryQuery) -> [Double] {
        let kept = all.filter { entry in
            (query.host == nil || entry.url.host == query.host)
                && (query.urlContains == nil || entry.url.value.lowercased().contains(query.urlContains!.lowercased()))
                && (query.kind == nil || (entry.isOriginal ? CacheEntryQuery.Kind.original : .thumbnail) == query.kind)
        }
        let sorted = kept.map { sortValue($0, query.order) }.sorted()
        return query.reversed ? sorted.reversed() : sorted
    }

    /// Ascending in the order's natural direction.
    static func sortValue(_ entry: CacheEntry, _ order: CacheEntryOrder) -> Double {
        switch order {
        case .size: return -Double(entry.size)
        case .age: return entry.created.timeIntervalSince1970
        case .hits: return -Double(entry.hits)
        case .lastAccess: return -entry.lastAccess.timeIntervalSince1970
        case .evictionOrder: return entry.lastAccess.timeIntervalSince1970
        }
    }

    static func walkForward(_ cache: DiskCache, _ base: CacheEntryQuery) throws -> [CacheEntryPage] {
        var pages: [CacheEntryPage] = []
        var query = base
        query.position = .first
        while true {
            let page = try cache.page(query)
            pages.append(page)
            guard let next = page.next else { return pages }
            query.position = .after(next)
            #expect(pages.count < 1000)
        }
    }

    static func walkBackward(_ cache: DiskCache, _ base: CacheEntryQuery) throws -> [CacheEntryPage] {
        var pages: [CacheEntryPage] = []
        var query = base
        query.position = .last
        while true {
            let page = try cache.page(query)
            pages.insert(page, at: 0)
            guard let previous = page.previous else { return pages }
            query.position = .before(previous)
            #expect(pages.count < 1000)
        }
    }

    @Test("pages walked forward and backward cover the listing once, in order, with offsets and totals",
          arguments: [CacheEntryOrder.size, .age, .hits, .lastAccess, .evictionOrder])
    func everyOrder(order: CacheEntryOrder) throws {
        let dir = DiskTest.makeDirectory("paging")
        defer { DiskTest.cleanUp(dir) }
        let cache = try Self.makeCache(dir)
        let all = try cache.entries()
        #expect(all.count == 240)
        let queries = [
            CacheEntryQuery(order: order, limit: 25),
            CacheEntryQuery(order: order, reversed: true, limit: 25),
            CacheEntryQuery(order: order, host: "B.example", limit: 7),
            CacheEntryQuery(order: order, urlContains: "/1", limit: 30),  // 111 matches < 4 × 30: the scan plan
            CacheEntryQuery(order: order, host: "c.example:8080", urlContains: "IMG/2", limit: 3),
            CacheEntryQuery(order: order, kind: .original, limit: 4),
            CacheEntryQuery(order: order, urlContains: "nothing-like-this", limit: 10),
        ]
        for base in queries {
            var query = base
            if let host = query.host { query.host = host.lowercased() }
            let expected = Self.expected(all, query)
            for pages in [try Self.walkForward(cache, base), try Self.walkBackward(cache, base)] {
                let entries = pages.flatMap(\.entries)
                #expect(Set(entries.map(\.key)).count == entries.count, "an entry appeared twice: \(base)")
                #expect(entries.map { Self.sortValue($0, order) } == expected, "\(base): out of order or incomplete")
                var offset = 0
                for page in pages {
                    #expect(page.total == expected.count)
                    #expect(page.offset == offset, "\(base): offset \(page.offset), expected \(offset)")
                    #expect(page.entries.count <= base.limit)
                    offset += page.entries.count
                }
                #expect(pages.first?.previous == nil && pages.last?.next == nil)
            }
        }
    }

    @Test("a page lists every variant of its URLs, and cursors survive their text form")
    func variantsAndCursors() throws {
        let dir = DiskTest.makeDirectory("paging")
        defer { DiskTest.cleanUp(dir) }
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 24))
        let large = CacheVariant(size: 400, fit: "contain", format: "webp", quality: 80)
        try cache.store(DiskTest.key(1), DiskTest.bytes(300))
        try cache.store(DiskTest.key(1, variant: large), DiskTest.bytes(200))
        try cache.store(DiskTest.key(2), DiskTest.bytes(100))
        let page = try cache.page(CacheEntryQuery(order: .size, limit: 1))
        #expect(page.entries.map(\.size) == [300] && page.total == 3 && page.next != nil && page.previous == nil)
        #expect(page.variants[DiskTest.key(1).url.value] == ["200/cover/jpeg/q82", "400/contain/webp/q80"])
        let cursor = try #require(page.next)
        #expect(CacheEntryCursor(cursor.description) == cursor)
        #expect(CacheEntryCursor("12~x") == nil && CacheEntryCursor("nan~1") == nil && CacheEntryCursor("") == nil)
        let second = try cache.page(CacheEntryQuery(order: .size, limit: 1, position: .after(cursor)))
        #expect(second.entries.map(\.size) == [200] && second.offset == 1 && second.previous != nil)
        #expect(try cache.hosts().map(\.host) == ["shop.example"] && cache.hosts().first?.entries == 3)
    }

    @Test("removeAll(.host) takes that host's entries from both tiers and nothing else")
    func removeHost() throws {
        let dir = DiskTest.makeDirectory("paging")
        defer { DiskTest.cleanUp(dir) }
        let cache = TwoTierCache(memory: MemoryCache(), disk: try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 24)))
        for i in 0..<6 { cache.set(DiskTest.key(i, host: i < 4 ? "gone.example" : "kept.example"), DiskTest.bytes(100)) }
        cache.set(DiskTest.key(9, variant: .original, host: "gone.example"), DiskTest.bytes(50))
        #expect(cache.removeAll(.host("gone.example")) == CacheRemoval(memory: 5, disk: 5))
        #expect(try cache.disk?.entries().map(\.url.host) == ["kept.example", "kept.example"])
        #expect(cache.get(DiskTest.key(4, host: "kept.example")) != nil && cache.get(DiskTest.key(0, host: "gone.example")) == nil)
        #expect(DiskTest.files(in: dir).entries == 2)
    }
}
