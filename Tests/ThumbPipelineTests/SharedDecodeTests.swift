import DaemonTestSupport
import Foundation
import ImageCodecs
import ImageCore
import ImageQuality
import Testing
import TestOrigin
import TestSupport

@Suite("The sizes of one photo asked together share one decode")
struct SharedDecodeTests {
    /// Three sizes of one photo asked while its download is under way: one download, one decode
    /// (the two other jobs use it: `thumbd_shared_decodes_total` 2), and each size's pixels those of
    /// the same size asked alone (a second photo of the same bytes, its sizes asked one at a time).
    @Test func threeSizesOneDecode() async throws {
        let photo = try ImageCodecs.encode(SyntheticImage.gradient(width: 900, height: 600), .jpeg(quality: 90))
        let origin = try await TestOrigin.start(routes: [
            "/together.jpg": .image(photo, latency: .milliseconds(1500)),
            "/alone.jpg": .image(photo),
        ])
        let daemon = try await TestDaemon.start()
        // Centre crops: a smart crop shares only the decode it would have had alone (`DecodedPhoto.serves`).
        let sizes = ["size=60&gravity=center", "size=150x100&gravity=center", "size=400&gravity=center"]
        let together = origin.url("/together.jpg")
        let tasks = sizes.map { size in Task { try await daemon.get(daemon.thumbnailPath(together, size + "&format=png")) } }
        try await CoalescingTests.waitUntilSharing(daemon, downloads: Double(sizes.count - 1))
        var shared = [Reply]()
        for task in tasks { shared.append(try await task.value) }
        #expect(shared.allSatisfy { $0.status == 200 })
        #expect(origin.requestCount("/together.jpg") == 1)
        let name = "thumbd_shared_decodes_total"
        let metrics = try await daemon.metrics(within: .seconds(5)) { ($0[name] ?? 0) >= Double(sizes.count - 1) }
        #expect(metrics[name] == Double(sizes.count - 1), "\(name) is \(metrics[name] ?? 0)")

        let alone = origin.url("/alone.jpg")
        for (size, reply) in zip(sizes, shared) {
            let single = try await daemon.get(daemon.thumbnailPath(alone, size + "&format=png"))
            #expect(single.status == 200)
            let a = try ImageCodecs.decode(reply.body).pixels, b = try ImageCodecs.decode(single.body).pixels
            try #require(a.width == b.width && a.height == b.height, "\(size): \(a.width)x\(a.height) shared, \(b.width)x\(b.height) alone")
            let ssim = SSIM.compare(a, b)
            #expect(ssim >= 0.995, "\(size): SSIM \(ssim)")
        }
        let after = try await daemon.metrics()
        #expect(after[name] == Double(sizes.count - 1), "sizes asked one at a time decode alone")
        #expect(daemon.daemon.pipeline.decodeGroups == 0, "every photo's decode is dropped once its jobs are done")
        try await daemon.stop()
        try await origin.shutdown()
    }
}
