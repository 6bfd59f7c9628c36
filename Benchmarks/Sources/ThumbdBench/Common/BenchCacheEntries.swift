import Foundation
import ThumbCache
import ThumbVariant

/// The entries the cache benchmarks fill a cache with: thumbnails of URLs on a loopback origin
/// that never answers (port 9), at the variant a daemon with its embedded defaults gives
/// `?size=200&format=jpeg`, so a request for one of them is a hit and any other URL a miss.
enum BenchCacheEntries {
    static let variant: CacheVariant = {
        let fields = VariantFields(query: [("size", "200"), ("format", "jpeg")])
        // The embedded defaults parse this query: a failure is a bug in this benchmark.
        return (try? VariantParser.parse(fields, defaults: VariantDefaults()).cacheVariant)
            ?? CacheVariant(size: 200, fit: "cover", format: "jpeg", quality: 82)
    }()

    static func url(_ i: Int) -> String { "http://127.0.0.1:9/bench/\(i % 64)/\(i).jpg" }

    static func key(_ i: Int) -> CacheKey {
        CacheKey(url: try! NormalizedURL(url(i)), variant: variant)
    }

    /// The daemon's path for entry `i`.
    static func requestPath(_ i: Int) -> String {
        "/v1/thumbnail?url=" + (url(i).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") + "&size=200&format=jpeg"
    }

    /// Entry `i`: 1,000 to 4,000 bytes, different for every `i` (a thumbnail's size, and one block
    /// of the file system, like the 10 KB thumbnails of a real node).
    @Sendable static func make(_ i: Int) -> DiskBulkEntry {
        var state = UInt64(truncatingIfNeeded: i) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        let size = 1000 + Int(next() % 3001)
        var bytes = [UInt8](repeating: 0, count: size)
        for j in stride(from: 0, to: size, by: 8) {
            withUnsafeBytes(of: next()) { word in for k in 0..<min(8, size - j) { bytes[j + k] = word[k] } }
        }
        return DiskBulkEntry(key: key(i), bytes: bytes, contentType: "image/jpeg", validators: CacheValidators(etag: "\"\(i)\""))
    }
}
