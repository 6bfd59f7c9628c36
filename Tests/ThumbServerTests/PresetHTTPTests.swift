import ThumbVariant
import Foundation
import ImageCodecs
import TestOrigin
import Testing
import TestSupport
import ThumbPipeline
import Thumbnailer

/// `preset=NAME` and `server.only_presets` on `/v1/thumbnail` and prefetch jobs.
struct PresetHTTPTests {
    static let grid = Variant(size: 48, fit: .cover, gravity: .focus(FocusPoint(x: 0.9, y: 0.5)!), trim: false, format: .jpeg, quality: 80)

    static func daemon(onlyPresets: Bool) async throws -> TestDaemon {
        try await TestDaemon.start(memoryOnly: true) { settings in
            settings.server.variants.presets = ["grid": grid]
            settings.server.variants.onlyPresets = onlyPresets
        }
    }

    @Test("a preset is its variant: the same thumbnail, key and ETag as the variant spelled out")
    func presetIsItsVariant() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(try ImageCodecs.encode(
            BoxPicture.make(width: 600, height: 400, box: (510, 160, 80, 80)), .jpeg(quality: 85)))])
        let daemon = try await Self.daemon(onlyPresets: false)
        let url = origin.url("/p.jpg")
        let byName = try await daemon.get(daemon.thumbnailPath(url, "preset=grid"))
        let spelled = try await daemon.get(daemon.thumbnailPath(url, "size=48&fit=cover&focus=0.9,0.5&format=jpeg&q=80"))
        #expect(byName.status == 200 && byName.header("x-cache") == "miss")
        #expect(spelled.header("x-cache") == "memory" && spelled.header("etag") == byName.header("etag"))
        #expect(BoxPicture.redShare(try ImageCodecs.decode(byName.body).pixels) > 0.03)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("refusals: unknown preset 400, preset beside variant parameters 400, no preset under only_presets 403", arguments: [
        (false, "preset=nope", 400, "unknown_preset"),
        (false, "preset=grid&size=100", 400, "invalid_parameter"),
        (false, "preset=grid&focus=0.5,0.5", 400, "invalid_parameter"),
        (true, "size=48", 403, "preset_required"),
        (true, "", 403, "preset_required"),
        (true, "preset=nope", 400, "unknown_preset"),
    ])
    func refusals(_ onlyPresets: Bool, _ extra: String, _ status: Int, _ code: String) async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let daemon = try await Self.daemon(onlyPresets: onlyPresets)
        let reply = try await daemon.get(daemon.thumbnailPath(origin.url("/p.jpg"), extra))
        #expect(reply.status == status && reply.problemCode == code, "\(extra): \(reply.status) \(reply.problemCode ?? "")")
        #expect(origin.totalRequests == 0)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("under only_presets a preset is served")
    func onlyPresetsServesPresets() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let daemon = try await Self.daemon(onlyPresets: true)
        #expect(try await daemon.get(daemon.thumbnailPath(origin.url("/p.jpg"), "preset=grid")).status == 200)
        try await daemon.stop()
        try await origin.shutdown()
    }
}
