import Foundation
import Testing
import TestSupport
import ThumbCache
import ThumbVariant

/// A cache written by an earlier thumbd (`Tests/ThumbCacheTests/Fixtures/cache-format-1`, made by
/// `thumbd serve` for one photo's 16 px PNG thumbnail) still answers the request that made it:
/// the variant parser gives the same key the old code did.
struct OlderCacheTests {
    static let fixture = TestPaths.packageRoot.appendingPathComponent("Tests/ThumbCacheTests/Fixtures/cache-format-1")
    /// A minute after the fixture was written, so its entries are fresh whenever the test runs.
    static let clock = CacheClock { Date(timeIntervalSince1970: 1_795_570_128.3531451).addingTimeInterval(60) }

    @Test func theQueryThatFilledAnOlderCacheIsAHitInIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-older-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.fixture.path) {
            try FileManager.default.copyItem(at: Self.fixture.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        let cache = try DiskCache.open(at: folder, clock: Self.clock)
        defer { cache.close() }
        let variant = try VariantParser.parse(VariantFields(query: [("size", "16"), ("format", "png"), ("gravity", "center")]),
                                              defaults: VariantDefaults())
        let key = CacheKey(url: try NormalizedURL("http://127.0.0.1:18931/photo.webp"), variant: variant.cacheVariant)
        let hit = try #require(try cache.read(key, .bytes))
        #expect(hit.bytes.count == 642 && hit.entry.contentType == "image/png")
        // A shape is another variant: not found there, not mistaken for the square.
        let card = try VariantParser.parse(VariantFields(query: [("size", "16x20"), ("format", "png"), ("gravity", "center")]),
                                           defaults: VariantDefaults())
        #expect(try cache.read(CacheKey(url: key.url, variant: card.cacheVariant), .bytes) == nil)
    }
}
