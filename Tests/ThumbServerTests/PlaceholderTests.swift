import Foundation
import ImageCodecs
import ImageCore
import ImagePlaceholder
import TestOrigin
import Testing
import TestSupport
import ThumbCache
import ThumbPipeline

/// Placeholders and colour handling through the daemon: what a page needs before its thumbnails
/// load, and the header that says how a photo's colours were handled.
@Suite("GET /v1/placeholder and X-Thumbd-Color")
struct PlaceholderTests {
    static func placeholderPath(_ daemon: TestDaemon, _ url: String, _ extra: String = "size=64") -> String {
        daemon.thumbnailPath(url, extra).replacingOccurrences(of: "/v1/thumbnail?", with: "/v1/placeholder?")
    }

    @Test("A rotated phone photo: upright size, a ThumbHash of its shape, then the thumbnail is a hit")
    func placeholderOfARotatedPhoto() async throws {
        // 600x400 upright, stored 400x600 with EXIF orientation 6 as a phone writes it.
        let upright = PhonePhoto.synthetic(width: 600, height: 400, seed: 3)
        let photo = try PhonePhoto.jpeg(upright: upright, orientation: .right)
        let origin = try await TestOrigin.start(routes: ["/phone.jpg": .image(photo)])
        let daemon = try await TestDaemon.start()
        let path = Self.placeholderPath(daemon, origin.url("/phone.jpg"))
        let reply = try await daemon.get(path)
        #expect(reply.status == 200)
        #expect(reply.header("content-type") == "application/json")
        let answer = try JSONDecoder().decode(Placeholder.self, from: Data(reply.body))
        #expect(answer.width == 600 && answer.height == 400)
        #expect(answer.color == "srgb")
        let hash = try #require(answer.thumbhash.flatMap { Data(base64Encoded: $0) })
        // The hash carries the ratio in sevenths (3:2 comes back as 7:5); the preview drawn for the
        // answer's exact size is the photo's shape.
        let carried = try #require(ThumbHash.aspectRatio([UInt8](hash)))
        #expect(carried == 7.0 / 5)
        let preview = try #require(ThumbHash.decode([UInt8](hash), aspectRatio: Double(answer.width) / Double(answer.height)))
        let ratio = Double(preview.width) / Double(preview.height)
        #expect(abs(ratio - 1.5) / 1.5 < 0.05, "the preview's aspect ratio \(ratio) is not the photo's 1.5")
        #expect(answer.averageColor?.count == 7 && answer.averageColor?.hasPrefix("#") == true)

        // The placeholder's job made the thumbnail: asking for it is a hit, and nothing more is downloaded.
        let thumbnail = try await daemon.get(daemon.thumbnailPath(origin.url("/phone.jpg")))
        #expect(thumbnail.status == 200 && thumbnail.header("x-cache") == "memory")
        let again = try JSONDecoder().decode(Placeholder.self, from: Data(try await daemon.get(path).body))
        #expect(again.thumbhash == answer.thumbhash && again.width == 600)
        #expect(origin.requestCount("/phone.jpg") == 1)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("A bad URL and a broken image get the thumbnail route's problem codes")
    func failuresAreProblems() async throws {
        let origin = try await TestOrigin.start(routes: ["/broken.png": .image(Images.corruptPNG, contentType: "image/png")])
        let daemon = try await TestDaemon.start()
        let broken = try await daemon.get(Self.placeholderPath(daemon, origin.url("/broken.png")))
        #expect(broken.status == 422)
        #expect(String(decoding: broken.body, as: UTF8.self).contains("corrupt_image"))
        let bad = try await daemon.get("/v1/placeholder?url=ftp%3A%2F%2Fx")
        #expect(bad.status == 400)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("A photo with a wide-gamut profile: converted, and every tier says so")
    func colourHeaderOnEveryTier() async throws {
        let profile = try TestPaths.bytes(URL(fileURLWithPath: "/usr/share/color/icc/ghostscript/rommrgb.icc"))
        let tagged = ICCTagging.jpeg(Images.jpeg, profile: profile)
        let origin = try await TestOrigin.start(routes: ["/wide.jpg": .image(tagged), "/plain.jpg": .image(Images.jpeg)])
        let directory = try TestDaemon.temporaryDirectory()
        let first = try await TestDaemon.start(cacheDirectory: directory)
        let path = first.thumbnailPath(origin.url("/wide.jpg"), "size=64&format=jpeg")
        let miss = try await first.get(path)
        #expect(miss.header("x-cache") == "miss")
        let header = try #require(miss.header("x-thumbd-color"))
        #expect(header.hasPrefix("converted; from=\""), "\(header)")
        let memory = try await first.get(path)
        #expect(memory.header("x-cache") == "memory" && memory.header("x-thumbd-color") == header)
        let plain = try await first.get(first.thumbnailPath(origin.url("/plain.jpg"), "size=64&format=jpeg"))
        #expect(plain.status == 200 && plain.header("x-thumbd-color") == nil)
        // The converted thumbnail differs from one made from the same samples read as sRGB.
        #expect(miss.body != plain.body)
        try await first.stop()

        let second = try await TestDaemon.start(cacheDirectory: directory)
        let disk = try await second.get(path)
        #expect(disk.header("x-cache") == "disk" && disk.header("x-thumbd-color") == header)
        try await second.stop()
        try await origin.shutdown()
    }
}
