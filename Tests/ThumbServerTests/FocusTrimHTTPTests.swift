import Foundation
import ImageCodecs
import ImageCore
import TestOrigin
import Testing
import TestSupport

/// `focus=` and `trim=` on `/v1/thumbnail`: each is its own variant, with its own ETag, and equal
/// requests written differently share one cache entry.
struct FocusTrimHTTPTests {
    /// A red square at the right of a white 3:2 frame, outside its centred square (x 100..500).
    static func photo() throws -> [UInt8] {
        try ImageCodecs.encode(BoxPicture.make(width: 600, height: 400, box: (510, 160, 80, 80)), .jpeg(quality: 85))
    }

    static func redShare(_ bytes: [UInt8]) throws -> Double { BoxPicture.redShare(try ImageCodecs.decode(bytes).pixels) }

    @Test("focus and trim are variants: own bytes, own ETag, one key per point however it is written")
    func focusAndTrimAreVariants() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(try Self.photo())])
        let daemon = try await TestDaemon.start(memoryOnly: true)
        let url = origin.url("/p.jpg")
        let centre = try await daemon.get(daemon.thumbnailPath(url, "size=64&format=jpeg&gravity=center"))
        let focus = try await daemon.get(daemon.thumbnailPath(url, "size=64&format=jpeg&focus=0.83,0.5"))
        let sameFocus = try await daemon.get(daemon.thumbnailPath(url, "size=64&format=jpeg&focus=0.8300,0.50"))
        let trimmed = try await daemon.get(daemon.thumbnailPath(url, "size=64&format=jpeg&gravity=center&trim=1"))
        #expect(centre.status == 200 && focus.status == 200 && trimmed.status == 200)
        #expect(Set([centre.header("etag"), focus.header("etag"), trimmed.header("etag")]).count == 3)
        #expect(sameFocus.header("x-cache") == "memory" && sameFocus.header("etag") == focus.header("etag"))
        // The centre crop misses the red square; the focus keeps it; trimming makes it fill the thumbnail.
        #expect(try Self.redShare(centre.body) < 0.01)
        #expect(try Self.redShare(focus.body) > 0.03)
        #expect(try Self.redShare(trimmed.body) > 0.9)
        try await daemon.stop()
        try await origin.shutdown()
    }
}
