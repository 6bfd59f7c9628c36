import Foundation
@testable import ThumbCache
import Testing

/// The owner's in-memory copy of the index rows being served: a hit reads it instead of SQLite,
/// so it must never say anything the index no longer says.
@Suite("Disk cache hot records")
struct HotRecordsTests {
    static func id(_ i: Int) -> Hash256 { Hash256.of(Array("entry \(i)".utf8)) }

    static func record(_ i: Int, hits: Int = 0, etag: String? = nil) -> DiskEntryRecord {
        let metadata = EntryMetadata(size: 100 + i, checksum: Hash256.of(Array("bytes \(i)".utf8)), contentType: "image/jpeg",
                                     validators: CacheValidators(etag: etag, lastModified: nil),
                                     created: Date(timeIntervalSince1970: 1000), validated: Date(timeIntervalSince1970: 1000))
        return DiskEntryRecord(id: id(i), isOriginal: false, metadata: metadata, lastAccess: 1000, hits: hits)
    }

    /// `DiskIndex.apply`'s order around its commit.
    static func apply(_ batch: DiskIndexBatch, to hot: HotRecords, committed: Bool = true, whileWriting: () -> Void = {}) {
        hot.willApply(batch)
        whileWriting()
        hot.applied(batch, committed: committed)
    }

    @Test func aRowReadBeforeAChangeToItsStripeIsNotKept() {
        let hot = HotRecords(capacity: 64)
        let since = hot.changeCount(Self.id(1))
        // The index changed the row while the lookup was reading the old one.
        Self.apply(DiskIndexBatch(revalidations: [(Self.id(1), Self.record(1, etag: "new").metadata)]), to: hot)
        hot.remember(Self.record(1, etag: "old"), since: since)
        #expect(hot.record(Self.id(1)) == nil)
        // Read after the change: kept.
        hot.remember(Self.record(1, etag: "new"), since: hot.changeCount(Self.id(1)))
        #expect(hot.record(Self.id(1))?.metadata.etag == "new")
    }

    /// A lookup that reads the row after a batch of hits is committed, and would keep it before the
    /// batch's own update of the table, would count those hits twice.
    @Test func aRowReadWhileABatchIsCommittedIsNotKept() {
        let hot = HotRecords(capacity: 64)
        let since = hot.changeCount(Self.id(2))
        var batch = DiskIndexBatch()
        batch.accesses = [.init(id: Self.id(2), lastAccess: 2000, addedHits: 3)]
        Self.apply(batch, to: hot) {
            // Committed: SQLite has 8 hits now; the lookup reads them and tries to keep them.
            #expect(hot.changeCount(Self.id(2)) == nil, "nothing read during a commit is kept")
            hot.remember(Self.record(2, hits: 8), since: since)
        }
        #expect(hot.record(Self.id(2)) == nil, "kept as \(String(describing: hot.record(Self.id(2))?.hits)) hits")
        hot.remember(Self.record(2, hits: 8), since: hot.changeCount(Self.id(2)))
        #expect(hot.record(Self.id(2))?.hits == 8)
    }

    @Test func eachChangeUpdatesOrDropsTheKeptRow() {
        let hot = HotRecords(capacity: 64)
        for i in 0..<4 { hot.remember(Self.record(i, hits: 5), since: hot.changeCount(Self.id(i))) }
        #expect(hot.count == 4)
        var batch = DiskIndexBatch()
        batch.accesses = [.init(id: Self.id(0), lastAccess: 2000, addedHits: 3)]
        batch.revalidations = [(Self.id(1), Self.record(1, etag: "\"v2\"").metadata)]
        batch.deletes = [Self.id(2)]
        Self.apply(batch, to: hot)
        #expect(hot.record(Self.id(0))?.hits == 8 && hot.record(Self.id(0))?.lastAccess == 2000)
        #expect(hot.record(Self.id(1))?.metadata.etag == "\"v2\"")
        #expect(hot.record(Self.id(2)) == nil && hot.record(Self.id(3)) != nil)
        // An older access time never moves a row back.
        var older = DiskIndexBatch()
        older.accesses = [.init(id: Self.id(0), lastAccess: 1500, addedHits: 1)]
        Self.apply(older, to: hot)
        #expect(hot.record(Self.id(0))?.lastAccess == 2000 && hot.record(Self.id(0))?.hits == 9)
        // A failed commit leaves the index unknown here: everything goes.
        Self.apply(DiskIndexBatch(deletes: [Self.id(9)]), to: hot, committed: false)
        #expect(hot.count == 0)
    }

    @Test func itHoldsNoMoreThanItsCapacity() {
        let hot = HotRecords(capacity: 64)
        for i in 0..<2000 { hot.remember(Self.record(i), since: hot.changeCount(Self.id(i))) }
        #expect(hot.count <= 64 && hot.count >= 32)
        let none = HotRecords(capacity: 0)
        none.remember(Self.record(1), since: none.changeCount(Self.id(1)))
        #expect(none.count == 0)
    }

    /// Through the cache: a hit is answered from the copy, and every kind of change to the entry
    /// is seen by the next hit.
    @Test func hitsSeeEveryChangeOfTheirEntry() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20))
        defer { cache.close() }
        let key = DiskTest.key(1)
        let first = DiskTest.bytes(900, seed: 1)
        try cache.store(key, first, validators: CacheValidators(etag: "\"a\"", lastModified: nil))
        #expect(try cache.read(key, .bytes)?.bytes == first)
        #expect(cache.index.hot.record(try #require(Hash256(hex: key.digest))) != nil)
        #expect(try cache.refresh(key, validators: CacheValidators(etag: "\"b\"", lastModified: nil)))
        #expect(try cache.read(key, .bytes)?.entry.metadata.etag == "\"b\"")
        let second = DiskTest.bytes(700, seed: 2)
        try cache.store(key, second)
        let replaced = try #require(try cache.read(key, .bytes))
        #expect(replaced.bytes == second && replaced.entry.metadata.checksum == Hash256.of(second))
        #expect(try cache.remove(key))
        #expect(try cache.read(key, .bytes) == nil)
        #expect(!cache.contains(key))
    }

    /// Readers on many threads while the entry is revalidated again and again: once the changes
    /// stop, every reader sees the last one (no row read before a change outlives it).
    @Test func noStaleRowOutlivesConcurrentChanges() async throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let cache = try DiskCache.open(at: dir, limits: DiskTest.limits(1 << 20))
        defer { cache.close() }
        let keys = (0..<4).map { DiskTest.key($0) }
        for key in keys { try cache.store(key, DiskTest.bytes(600, seed: 3), validators: CacheValidators(etag: "\"0\"", lastModified: nil)) }
        let rounds = 300
        await withTaskGroup(of: Void.self) { group in
            for reader in 0..<4 {
                group.addTask {
                    for i in 0..<(rounds * 4) { _ = try? cache.read(keys[(i + reader) % keys.count], .facts) }
                }
            }
            group.addTask {
                for round in 1...rounds {
                    for key in keys { _ = try? cache.refresh(key, validators: CacheValidators(etag: "\"\(round)\"", lastModified: nil)) }
                }
            }
        }
        for key in keys {
            #expect(try cache.read(key, .facts)?.entry.metadata.etag == "\"\(rounds)\"")
            #expect(try cache.read(key, .bytes)?.entry.metadata.etag == "\"\(rounds)\"")
        }
    }
}
