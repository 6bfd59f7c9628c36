import Foundation
import TestSupport
import ThumbCache
import Testing

/// The on-disk format stays readable across versions: `Fixtures/cache-format-1` is a cache directory
/// written by thumbd before the index had a migrator (format 1: `index.sqlite` with
/// `user_version` 1, and version-1 sidecars), made by `thumbd serve` for one WebP photo and its
/// 16 px PNG thumbnail, then stopped cleanly. Its owner upgrades it in place (schema 2 adds the
/// photo summary columns); its entries, made before, have none.
@Suite("Disk cache format")
struct DiskFormatTests {
    static let fixture = TestPaths.packageRoot.appendingPathComponent("Tests/ThumbCacheTests/Fixtures/cache-format-1")
    static let photo = try! NormalizedURL("http://127.0.0.1:18931/photo.webp")
    static let thumbnail = CacheKey(url: photo, variant: CacheVariant("16/cover/png/q82")!)
    static let original = CacheKey(url: photo, variant: .original)
    static let created = Date(timeIntervalSince1970: 1_795_570_128.3531451)
    /// A minute after the fixture was written, so its entries are fresh whenever the test runs.
    static let clock = CacheClock { created.addingTimeInterval(60) }

    private func copyOfFixture() throws -> URL {
        let dir = DiskTest.makeDirectory("format")
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.fixture.path) {
            try FileManager.default.copyItem(at: Self.fixture.appendingPathComponent(name), to: dir.appendingPathComponent(name))
        }
        return dir
    }

    private func expectFixtureEntries(in cache: DiskCache) throws {
        let thumb = try #require(try cache.read(Self.thumbnail, .bytes))
        #expect(thumb.bytes.count == 642 && Hash256.of(thumb.bytes) == thumb.entry.metadata.checksum)
        #expect(thumb.entry.checksum == "c99aa7d5e1b988dfebf796529aa153d7884c9bfb8077c9889923135e16c9db97")
        #expect(thumb.entry.contentType == "image/png")
        #expect(thumb.entry.validators == CacheValidators(etag: nil, lastModified: "Wed, 25 Nov 2026 01:28:45 GMT"))
        #expect(abs(thumb.entry.created.timeIntervalSince(Self.created)) < 0.001)
        #expect(!thumb.isStale)
        #expect(thumb.entry.metadata.photo == nil)
        let original = try #require(try cache.read(Self.original, .bytes))
        #expect(original.bytes.count == 338 && original.entry.contentType == "image/webp" && original.entry.isOriginal)
        #expect(Hash256.of(original.bytes).hex == "1d498434c5062caa5f43abebe075be5d4e47781e9d449ca81f837061aecf24ec")
    }

    @Test func aCacheWrittenByFormatOneOpensAndServesAsItWas() throws {
        let dir = try copyOfFixture()
        defer { DiskTest.cleanUp(dir) }
        // A reader does not change the index: it says who upgrades it.
        #expect { try DiskCache.open(at: dir, mode: .readOnly, clock: Self.clock) } throws: { error in
            "\(error)".contains("from an older thumbd")
        }

        let warnings = WarningLog()
        let cache = try DiskCache.open(at: dir, clock: Self.clock, warn: warnings.sink)
        #expect(warnings.all.isEmpty, "\(warnings.all)")
        try expectFixtureEntries(in: cache)
        #expect(try cache.verify().isClean)
        let added = DiskTest.key(1)
        try cache.store(added, DiskTest.bytes(500), validators: CacheValidators(etag: "\"x\""), contentType: "image/jpeg")
        cache.close()

        // Migrated in place: the next owner and a reader of this version both open it.
        let again = try DiskCache.open(at: dir, clock: Self.clock)
        try expectFixtureEntries(in: again)
        #expect(try again.read(added, .bytes)?.entry.validators.etag == "\"x\"")
        again.close()
        #expect(try DiskCache.open(at: dir, mode: .readOnly, clock: Self.clock).read(added, .facts) != nil)
    }

    @Test func formatOneSidecarsRebuildALostIndex() throws {
        let dir = try copyOfFixture()
        defer { DiskTest.cleanUp(dir) }
        try FileManager.default.removeItem(at: dir.appendingPathComponent("index.sqlite"))
        let warnings = WarningLog()
        let cache = try DiskCache.open(at: dir, clock: Self.clock, warn: warnings.sink)
        #expect(warnings.contains("started a new one"), "\(warnings.all)")
        #expect(warnings.contains("2 adopted from their metadata"), "\(warnings.all)")
        try expectFixtureEntries(in: cache)
        #expect(try cache.verify().isClean)
        cache.close()
    }

    /// Entries stored now have no sidecar (one file each: a sidecar per entry doubled the inodes a
    /// cache of millions needs); an older entry's sidecar goes with its entry.
    @Test func noSidecarIsWrittenAndOldOnesGoWithTheirEntries() throws {
        let dir = try copyOfFixture()
        defer { DiskTest.cleanUp(dir) }
        let cache = try DiskCache.open(at: dir, clock: Self.clock)
        let added = DiskTest.key(7)
        try cache.store(added, DiskTest.bytes(642), contentType: "image/png")
        let path = try #require(try cache.read(added, .facts)).entry.filePath
        #expect(FileManager.default.fileExists(atPath: path) && !FileManager.default.fileExists(atPath: path + ".meta"))
        let old = dir.path + "/objects/12/1214af5bde4e9d269d2176aa9850f27b834da77b83879241b6c0fde34c3e2eeb"
        #expect(FileManager.default.fileExists(atPath: old + ".meta"))
        let oldKey = try #require(try cache.entries(limit: nil).first { $0.filePath == old }?.key)
        #expect(try cache.remove(oldKey))
        #expect(!FileManager.default.fileExists(atPath: old) && !FileManager.default.fileExists(atPath: old + ".meta"))
        cache.close()
    }

}
