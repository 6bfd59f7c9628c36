import DaemonTestSupport
import Foundation
import Testing
import TestOrigin

@Suite("One job per thumbnail, cancelled when nobody waits")
struct CoalescingTests {
    @Test("100 concurrent requests for one URL: one origin request, identical bytes")
    func hundredConcurrentRequests() async throws {
        let origin = try await TestOrigin.start(routes: ["/photo.jpg": .image(Images.jpeg, latency: .milliseconds(400))])
        let daemon = try await TestDaemon.start()
        let path = daemon.thumbnailPath(origin.url("/photo.jpg"), "size=96")
        let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
            for _ in 0..<100 { group.addTask { try await daemon.get(path) } }
            return try await group.reduce(into: [Reply]()) { $0.append($1) }
        }
        #expect(origin.requestCount("/photo.jpg") == 1)
        #expect(replies.count == 100)
        #expect(replies.allSatisfy { $0.status == 200 })
        #expect(Set(replies.map(\.body)).count == 1)
        #expect(replies[0].body.starts(with: [0xFF, 0xD8]))
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("A client that disconnects mid-miss cancels the origin download")
    func disconnectCancelsDownload() async throws {
        let origin = try await TestOrigin.start(routes: ["/slow.jpg": .stall(prefix: Array(Images.jpeg.prefix(100)), contentLength: Images.jpeg.count)])
        // The download would end by itself only long after the wait below.
        let daemon = try await TestDaemon.start { $0.download.totalTimeout = .seconds(120) }
        let path = daemon.thumbnailPath(origin.url("/slow.jpg"))
        let client = Task { try await daemon.get(path) }
        // Once the origin has the request, the daemon is waiting on the download.
        #expect(await origin.waitForRequests("/slow.jpg", count: 1, timeout: .seconds(20)))
        client.cancel()
        #expect(await origin.waitForEarlyClose("/slow.jpg", timeout: .seconds(10)), "the origin should see its connection closed")
        #expect(daemon.daemon.pipeline.jobsInFlight == 0)
        #expect(daemon.cache.memory.stats.entries == 0)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("With two waiters, one disconnecting leaves the other's answer intact")
    func oneOfTwoWaitersLeaves() async throws {
        let origin = try await TestOrigin.start(routes: ["/shared.jpg": .image(Images.jpeg, latency: .milliseconds(1200))])
        let daemon = try await TestDaemon.start()
        let path = daemon.thumbnailPath(origin.url("/shared.jpg"))
        let leaving = Task { try await daemon.get(path) }
        let staying = Task { try await daemon.get(path) }
        #expect(await origin.waitForRequests("/shared.jpg", count: 1, timeout: .seconds(20)))
        try await Self.waitUntilJoined(daemon, waiters: 1)
        leaving.cancel()
        let reply = try await staying.value
        #expect(reply.status == 200)
        #expect(reply.header("x-cache") == "miss")
        #expect(reply.body.starts(with: [0xFF, 0xD8]))
        #expect(origin.requestCount("/shared.jpg") == 1)
        #expect(origin.earlyCloses("/shared.jpg") == 0)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("When every job slot is taken, a new miss gets 503 busy with Retry-After")
    func busyWhenJobsAreFull() async throws {
        let origin = try await TestOrigin.start(routes: [
            "/a.jpg": .image(Images.jpeg, latency: .milliseconds(800)),
            "/b.jpg": .image(Images.otherJPEG),
        ])
        let daemon = try await TestDaemon.start { $0.pipeline.maxJobs = 1; $0.server.retryAfterSeconds = 2 }
        let first = Task { try await daemon.get(daemon.thumbnailPath(origin.url("/a.jpg"))) }
        #expect(await origin.waitForRequests("/a.jpg", count: 1, timeout: .seconds(20)))
        let refused = try await daemon.get(daemon.thumbnailPath(origin.url("/b.jpg")))
        #expect(refused.status == 503)
        #expect(refused.problemCode == "busy")
        #expect(refused.header("retry-after") == "2")
        #expect(origin.requestCount("/b.jpg") == 0)
        // Joining the job already under way is not refused.
        let joined = try await daemon.get(daemon.thumbnailPath(origin.url("/a.jpg")))
        #expect(joined.status == 200)
        #expect(try await first.value.status == 200)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("Two sizes of one new URL at once share one download of the original", arguments: [false, true])
    func variantsShareOneDownload(memoryOnly: Bool) async throws {
        let origin = try await TestOrigin.start(routes: ["/pair.jpg": .image(Images.jpeg, latency: .milliseconds(500))])
        let daemon = try await TestDaemon.start(memoryOnly: memoryOnly)
        let url = origin.url("/pair.jpg")
        let sizes = [64, 128, 96, 160]
        let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
            for size in sizes { group.addTask { try await daemon.get(daemon.thumbnailPath(url, "size=\(size)")) } }
            return try await group.reduce(into: [Reply]()) { $0.append($1) }
        }
        #expect(replies.allSatisfy { $0.status == 200 && $0.header("x-cache") == "miss" })
        #expect(Set(replies.map(\.body)).count == sizes.count, "each size is its own thumbnail")
        #expect(origin.requestCount("/pair.jpg") == 1, "one download for every size asked at the same time")
        // A size asked afterwards comes from the kept original (disk tier), not the origin.
        if !memoryOnly {
            let later = try await daemon.get(daemon.thumbnailPath(url, "size=48"))
            #expect(later.status == 200)
            #expect(origin.requestCount("/pair.jpg") == 1)
        }
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("One size leaving a shared download does not cancel it for the other; the last to leave does")
    func sharedDownloadCancelledOnlyByTheLast() async throws {
        let origin = try await TestOrigin.start(routes: [
            "/kept.jpg": .image(Images.jpeg, latency: .milliseconds(1200)),
            "/dropped.jpg": .stall(prefix: Array(Images.jpeg.prefix(100)), contentLength: Images.jpeg.count),
        ])
        let daemon = try await TestDaemon.start { $0.download.totalTimeout = .seconds(20) }
        let kept = origin.url("/kept.jpg")
        let leaving = Task { try await daemon.get(daemon.thumbnailPath(kept, "size=64")) }
        let staying = Task { try await daemon.get(daemon.thumbnailPath(kept, "size=128")) }
        #expect(await origin.waitForRequests("/kept.jpg", count: 1, timeout: .seconds(20)))
        try await Self.waitUntilSharing(daemon, downloads: 1)
        leaving.cancel()
        let reply = try await staying.value
        #expect(reply.status == 200)
        #expect(origin.requestCount("/kept.jpg") == 1)
        #expect(origin.earlyCloses("/kept.jpg") == 0, "the other size still needed the download")

        let dropped = origin.url("/dropped.jpg")
        let first = Task { try await daemon.get(daemon.thumbnailPath(dropped, "size=64")) }
        let second = Task { try await daemon.get(daemon.thumbnailPath(dropped, "size=128")) }
        #expect(await origin.waitForRequests("/dropped.jpg", count: 1, timeout: .seconds(20)))
        try await Self.waitUntilSharing(daemon, downloads: 2)
        first.cancel()
        second.cancel()
        #expect(await origin.waitForEarlyClose("/dropped.jpg", timeout: .seconds(20)), "nobody waits: the download closes")
        #expect(origin.requestCount("/dropped.jpg") == 1)
        #expect(daemon.daemon.pipeline.jobsInFlight == 0)
        try await daemon.stop()
        try await origin.shutdown()
    }

    /// Until `waiters` requests have joined a thumbnail job another request started: the state the
    /// cancellation below needs, waited for instead of a time.
    static func waitUntilJoined(_ daemon: TestDaemon, waiters: Double) async throws {
        let name = "thumbd_coalesced_waiters_total"
        let metrics = try await daemon.metrics(within: .seconds(10), interval: .milliseconds(5)) { ($0[name] ?? 0) >= waiters }
        #expect((metrics[name] ?? 0) >= waiters, "\(name) is \(metrics[name] ?? 0)")
    }

    /// Until `downloads` jobs have joined the download of an original another size started.
    static func waitUntilSharing(_ daemon: TestDaemon, downloads: Double) async throws {
        let name = "thumbd_shared_downloads_total"
        let metrics = try await daemon.metrics(within: .seconds(10), interval: .milliseconds(5)) { ($0[name] ?? 0) >= downloads }
        #expect((metrics[name] ?? 0) >= downloads, "\(name) is \(metrics[name] ?? 0)")
    }
}
