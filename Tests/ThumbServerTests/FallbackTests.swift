import Foundation
import ImageCodecs
import ImageCore
import TestOrigin
import Testing
import TestSupport
import ThumbPipeline
import ThumbServer
import ThumbVariant

/// `server.fallback_image`: where a photo cannot be had, the picture in the asked variant with
/// `X-Thumbd-Error`, never cached under the photo's key; a client's own mistake keeps its problem.
struct FallbackTests {
    /// A solid picture written to a temporary PNG file, as an operator's fallback file would be.
    static func pictureFile(red: UInt8, green: UInt8, blue: UInt8) throws -> String {
        let pixels = [UInt8]((0..<(640 * 480)).flatMap { _ in [red, green, blue, 255] })
        let bytes = try ImageCodecs.encode(PixelBuffer(width: 640, height: 480, hasAlpha: false, pixels: pixels), .png)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-fallback-\(UUID().uuidString).png").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func centre(_ reply: Reply) throws -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let pixels = try ImageCodecs.decode(reply.body).pixels
        return pixels.pixel(x: pixels.width / 2, y: pixels.height / 2)
    }

    @Test("a missing or broken photo answers the picture in the asked shape and format, with its code and a short max-age; size=0 and a blocked destination keep their problems")
    func fallbackStandsInForPhotosThatCannotBeHad() async throws {
        let green = try Self.pictureFile(red: 0, green: 200, blue: 0)
        defer { try? FileManager.default.removeItem(atPath: green) }
        let origin = try await TestOrigin.start(routes: ["/broken.jpg": .image([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x41, count: 300)),
                                                         "/gone.jpg": .status(404)])
        let daemon = try await TestDaemon.start(memoryOnly: true) { settings in
            settings.server.fallback.picture = try! FallbackPicture(path: green)
        }

        let missing = try await daemon.get(daemon.thumbnailPath(origin.url("/gone.jpg"), "size=300x400&format=webp"))
        #expect(missing.status == 200)
        #expect(missing.header("content-type") == "image/webp")
        #expect(missing.header("x-thumbd-error") == "origin_status")
        #expect(missing.header("cache-control") == "public, max-age=60")
        #expect(missing.header("x-cache") == "fallback")
        let image = try ImageCodecs.decode(missing.body).pixels
        #expect((image.width, image.height) == (300, 400))
        let pixel = try Self.centre(missing)
        #expect(pixel.g > 150 && pixel.r < 40 && pixel.b < 40, "\(pixel)")

        let broken = try await daemon.get(daemon.thumbnailPath(origin.url("/broken.jpg"), "size=120"), headers: [("Accept", "image/avif,image/webp,*/*")])
        #expect(broken.status == 200 && ["corrupt_image", "truncated_image"].contains(broken.header("x-thumbd-error") ?? ""),
                "\(broken.status) \(broken.header("x-thumbd-error") ?? "-")")
        #expect(broken.header("vary") == "Accept")
        #expect(try ImageCodecs.decode(broken.body).pixels.width == 120)

        // The client's own mistakes keep their problem documents.
        let bad = try await daemon.get(daemon.thumbnailPath(origin.url("/gone.jpg"), "size=0"))
        #expect(bad.status == 400 && bad.header("content-type") == "application/problem+json")
        let blocked = try await daemon.get(daemon.thumbnailPath("http://10.1.2.3/p.jpg", "size=120"))
        #expect(blocked.status == 403 && blocked.problemCode == "destination_blocked", "\(blocked.status) \(blocked.problemCode ?? "-")")

        // Never cached under the photo's key: once the photo is there, it is made.
        origin.setRoute("/gone.jpg", .image(Images.jpeg))
        let found = try await daemon.get(daemon.thumbnailPath(origin.url("/gone.jpg"), "size=300x400&format=webp"))
        #expect(found.status == 200 && found.header("x-cache") == "miss" && found.header("x-thumbd-error") == nil)
        #expect(found.body != missing.body)
        // The picture's own thumbnail is cached per variant.
        let again = try await daemon.get(daemon.thumbnailPath(origin.url("/other-missing.jpg"), "size=300x400&format=webp"))
        #expect(again.status == 200 && again.body == missing.body)
        let metrics = try await daemon.metrics()
        #expect(metrics["thumbd_fallback_responses_total{code=\"origin_status\"}"] == 2)

        // A prefetch report counts the failed items the picture would stand in for.
        let job = try PrefetchJobs.status(try await PrefetchJobs.post(daemon, [
            "urls": [origin.url("/still-gone.jpg"), origin.url("/broken.jpg"), "http://10.1.2.3/p.jpg", origin.url("/gone.jpg")], "size": 90]))
        let report = try await PrefetchJobs.wait(daemon, job.id)
        #expect(report.failed == 3 && report.fellBack == 2 && report.done == 1, "\(report)")
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("fallback_status and fallback_max_age are the answer's; a preset's own picture wins for that preset")
    func statusAgeAndPresetPicture() async throws {
        let green = try Self.pictureFile(red: 0, green: 200, blue: 0)
        let blue = try Self.pictureFile(red: 0, green: 0, blue: 220)
        defer { for file in [green, blue] { try? FileManager.default.removeItem(atPath: file) } }
        let origin = try await TestOrigin.start(routes: ["/gone.jpg": .status(410)])
        let daemon = try await TestDaemon.start(memoryOnly: true) { settings in
            settings.server.fallback.picture = try! FallbackPicture(path: green)
            settings.server.fallback.presetPictures = ["avatar": try! FallbackPicture(path: blue)]
            settings.server.fallback.status = 404
            settings.server.fallback.maxAgeSeconds = 5
            settings.server.variants.presets = ["avatar": Variant(size: 64, fit: .cover, gravity: .center, trim: false, format: .png, quality: 80)]
        }
        let plain = try await daemon.get(daemon.thumbnailPath(origin.url("/gone.jpg"), "size=90&format=png"))
        #expect(plain.status == 404 && plain.header("cache-control") == "public, max-age=5" && plain.header("content-type") == "image/png")
        #expect(try Self.centre(plain).g > 150)
        let avatar = try await daemon.get(daemon.thumbnailPath(origin.url("/gone.jpg"), "preset=avatar"))
        #expect(avatar.status == 404 && avatar.header("x-thumbd-error") == "origin_status")
        let pixel = try Self.centre(avatar)
        #expect(pixel.b > 180 && pixel.g < 40, "\(pixel)")
        #expect(try ImageCodecs.decode(avatar.body).pixels.width == 64)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("an unreadable fallback file is refused when the settings are made")
    func unreadablePictureIsRefused() throws {
        #expect(throws: FallbackPictureError.self) { try FallbackPicture(path: "/nonexistent/thumbd-fallback.png") }
        let text = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-fallback-\(UUID().uuidString).png").path
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: text))
        defer { try? FileManager.default.removeItem(atPath: text) }
        #expect(throws: FallbackPictureError.self) { try FallbackPicture(path: text) }
    }
}
