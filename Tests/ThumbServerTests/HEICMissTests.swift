import Foundation
import ImageCodecs
import TestOrigin
import Testing
import TestSupport

/// The daemon's miss path with an origin that serves `image/heic` (an iPhone photo as uploaded):
/// thumbnails come back as JPEG, WebP or AVIF by `format` and `Accept`, never as HEIC.
@Suite(.requires(HEIFEnc.available, Comment(rawValue: HEIFEnc.missing ?? "")))
struct HEICMissTests {
    @Test func heicFromTheOrigin() async throws {
        let heic = try HEIFEnc.encode(PhonePhoto.synthetic(width: 320, height: 240, seed: 3))
        let origin = try await TestOrigin.start(routes: ["/IMG_0001.HEIC": .image(heic, contentType: "image/heic")])
        let daemon = try await TestDaemon.start()
        let auto = daemon.thumbnailPath(origin.url("/IMG_0001.HEIC"), "size=64&format=auto")
        for (accept, type) in [("image/avif,image/webp,*/*", "image/avif"), ("image/webp,*/*", "image/webp"), ("*/*", "image/jpeg")] {
            let answer = try await daemon.get(auto, headers: [("Accept", accept)])
            #expect(answer.status == 200, "\(accept)")
            #expect(answer.header("content-type") == type, "\(accept)")
            let decoded = try ImageCodecs.decode(answer.body)
            #expect(decoded.pixels.width == 64 && decoded.pixels.height == 64)
        }
        let png = try await daemon.get(daemon.thumbnailPath(origin.url("/IMG_0001.HEIC"), "size=32&format=png"))
        #expect(png.status == 200 && png.header("content-type") == "image/png")
        let placeholder = try await daemon.get(PlaceholderTests.placeholderPath(daemon, origin.url("/IMG_0001.HEIC")))
        #expect(placeholder.status == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(placeholder.body)) as? [String: Any])
        #expect(json["width"] as? Int == 320 && json["height"] as? Int == 240)
        // A HEIC cut short is refused with the stable code, as problem+json.
        let cutOrigin = try await TestOrigin.start(routes: ["/cut.heic": .image(Array(heic.prefix(heic.count / 2)), contentType: "image/heic")])
        let cut = try await daemon.get(daemon.thumbnailPath(cutOrigin.url("/cut.heic"), "size=64&format=jpeg"))
        #expect(cut.status >= 400 && cut.status < 600)
        #expect(String(decoding: cut.body, as: UTF8.self).contains("truncated_image"), "\(String(decoding: cut.body, as: UTF8.self))")
        try await daemon.stop()
        try await origin.shutdown()
        try await cutOrigin.shutdown()
    }
}
