import Foundation
import ImageCodecs
import ImageCore
import TestOrigin
import Testing
import ThumbCache

/// A cache with known entries for the inspector's tests: three solid-colour thumbnails (the
/// browser test finds their colours in its screenshot), a second variant and an original of the
/// red one, and two URLs that would run script if the page ever wrote a URL as markup.
enum InspectorFixture {
    static let thumb = CacheVariant(size: 200, fit: "cover", format: "jpeg", quality: 82)
    static let large = CacheVariant(size: 400, fit: "cover", format: "jpeg", quality: 82)

    static let colours: [(name: String, rgb: (UInt8, UInt8, UInt8))] = [
        ("red", (230, 20, 20)), ("green", (20, 200, 40)), ("blue", (20, 40, 230)),
    ]

    static func url(_ name: String, host: String = "shop.example") -> NormalizedURL {
        try! NormalizedURL("https://\(host)/products/\(name).jpg")
    }

    /// Script in the path, and markup that closes an attribute, both kept as given by the key.
    static let scriptURL = try! NormalizedURL("https://evil.example/<script>document.body.setAttribute('data-pwned','1')</script>.jpg")
    static let attributeURL = try! NormalizedURL("https://evil.example/a.jpg?x=\"><img/src=/x/onerror=document.body.setAttribute('data-pwned','2')>")

    static func solid(_ rgb: (UInt8, UInt8, UInt8), size: Int = 200) -> [UInt8] {
        var image = PixelBuffer(width: size, height: size)
        for i in stride(from: 0, to: image.pixels.count, by: PixelBuffer.bytesPerPixel) {
            image.pixels[i] = rgb.0
            image.pixels[i + 1] = rgb.1
            image.pixels[i + 2] = rgb.2
        }
        return try! ImageCodecs.encode(image, .jpeg(quality: 90))
    }

    /// Answers to thumbnail requests, as the inspector's figures count them: `hits` requests for the
    /// stored red thumbnail (memory hits), and `misses` for photos of a fresh origin (made now, then
    /// evicted with `token`, so the cache holds the fixture's entries alone again).
    static func answer(_ daemon: TestDaemon, hits: Int, misses: Int, token: String) async throws {
        let red = url("red").value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        for _ in 0..<hits {
            let reply = try await daemon.get("/v1/thumbnail?url=\(red)&size=200&format=jpeg&q=82&gravity=center")
            #expect(reply.status == 200 && reply.header("x-cache") == "memory", "\(reply.status) \(reply.header("x-cache") ?? "-")")
        }
        guard misses > 0 else { return }
        let origin = try await TestOrigin.start(routes: Dictionary(uniqueKeysWithValues: (0..<misses).map { ("/made-\($0).jpg", .image(solid((200, 200, 0)))) }))
        for index in 0..<misses {
            let made = origin.url("/made-\(index).jpg")
            let reply = try await daemon.get(daemon.thumbnailPath(made))
            #expect(reply.status == 200 && reply.header("x-cache") == "miss")
            // The kept original is stored after the answer: evict once it is there too.
            let madeURL = try NormalizedURL(made)
            for _ in 0..<100 where (try daemon.cache.disk?.entries().filter { $0.url == madeURL }.count ?? 2) < 2 {
                try await Task.sleep(for: .milliseconds(20))
            }
            let evicted = try await daemon.get("/v1/cache/entries?url=\(made.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                                               headers: [("Authorization", "Bearer \(token)")], method: .DELETE)
            #expect(evicted.status == 200)
        }
        try await origin.shutdown()
    }

    /// Stores the entries; returns their keys.
    @discardableResult
    static func fill(_ cache: TwoTierCache) -> [CacheKey] {
        var keys: [CacheKey] = []
        func store(_ key: CacheKey, _ bytes: [UInt8]) {
            cache.set(key, bytes, contentType: "image/jpeg")
            keys.append(key)
        }
        for colour in colours { store(CacheKey(url: url(colour.name), variant: thumb), solid(colour.rgb)) }
        store(CacheKey(url: url("red"), variant: large), solid(colours[0].rgb, size: 400))
        store(CacheKey(url: url("red"), variant: .original), solid(colours[0].rgb, size: 600))
        store(CacheKey(url: scriptURL, variant: thumb), solid((128, 128, 128), size: 64))
        store(CacheKey(url: attributeURL, variant: thumb), solid((90, 90, 90), size: 64))
        return keys
    }
}
