import DaemonTestSupport
import Foundation
import ImageCodecs
import NetworkGuard
import Testing
import TestOrigin
import TestSupport
import ThumbCache
@testable import ThumbPipeline

@Suite("Downloader: pinned addresses, limits, streaming cap, priorities")
struct DownloaderTests {
    static let jpeg: [UInt8] = try! ImageCodecs.encode(SyntheticImage.gradient(width: 200, height: 150), .jpeg(quality: 85))

    static func downloader(_ configure: (inout DownloadSettings) -> Void = { _ in }) -> Downloader {
        var settings = DownloadSettings()
        settings.policy = AddressPolicy(allowNetworks: [CIDR("127.0.0.1/32")!])
        settings.totalTimeout = .seconds(20)
        configure(&settings)
        return Downloader(settings: settings)
    }

    @Test("A name is resolved, checked, and the connection goes to the checked address with the original Host")
    func pinnedConnectionKeepsHost() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Self.jpeg, etag: "\"e1\"")])
        let downloader = Self.downloader()
        // localhost may resolve to ::1 first; only 127.0.0.1 is allowed, so that is the one used.
        let outcome = try await downloader.download(origin.url("/p.jpg", host: "localhost"))
        guard case .fetched(let body) = outcome else { throw TestFailure("expected a body") }
        #expect(body.bytes == Self.jpeg)
        #expect(body.validators.etag == "\"e1\"")
        #expect(origin.requests("/p.jpg").first?.header("host") == "localhost:\(origin.port)")
        await downloader.shutdown()
        try await origin.shutdown()
    }

    @Test("A conditional request sends the validators and a 304 comes back as notModified")
    func conditional() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Self.jpeg, etag: "\"e1\"")])
        let downloader = Self.downloader()
        let outcome = try await downloader.download(origin.url("/p.jpg"), validators: CacheValidators(etag: "\"e1\""))
        guard case .notModified(let validators) = outcome else { throw TestFailure("expected 304") }
        #expect(validators.etag == "\"e1\"")
        #expect(origin.requests("/p.jpg").first?.header("if-none-match") == "\"e1\"")
        await downloader.shutdown()
        try await origin.shutdown()
    }

    @Test("A body over the cap is cut off while streaming: the connection is closed, not read to the end")
    func capCutsTheStream() async throws {
        let origin = try await TestOrigin.start(routes: ["/endless": .endless(chunk: 32 * 1024)])
        let downloader = Self.downloader { $0.maxBytes = 256 * 1024 }
        let error = await #expect(throws: DownloadError.self) { _ = try await downloader.download(origin.url("/endless")) }
        #expect(error?.code == .originTooLarge)
        #expect(await origin.waitForEarlyClose("/endless", timeout: .seconds(20)))
        await downloader.shutdown()
        try await origin.shutdown()
    }

    @Test("At most max_per_host downloads reach one host at once")
    func perHostLimit() async throws {
        var routes: [String: OriginRoute] = [:]
        for index in 0..<6 { routes["/p\(index).jpg"] = .image(Self.jpeg, latency: .milliseconds(400)) }
        let origin = try await TestOrigin.start(routes: routes)
        let downloader = Self.downloader { $0.maxPerHost = 2 }
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<6 { group.addTask { _ = try await downloader.download(origin.url("/p\(index).jpg")) } }
            try await group.waitForAll()
        }
        // Three waves of two: the arrivals spread over at least two latencies.
        let arrivals = origin.allRequests.map { $0.at - start }.sorted()
        #expect(arrivals.count == 6)
        #expect(arrivals[2] >= .milliseconds(350), "the third request must wait for a slot: \(arrivals)")
        #expect(arrivals[4] >= .milliseconds(750), "\(arrivals)")
        await downloader.shutdown()
        try await origin.shutdown()
    }

    @Test("Waiting downloads are admitted interactive first, then prefetch")
    func interactiveFirst() async throws {
        let origin = try await TestOrigin.start(routes: [
            "/hold.jpg": .image(Self.jpeg, latency: .seconds(3)),
            "/prefetch.jpg": .image(Self.jpeg), "/interactive.jpg": .image(Self.jpeg),
        ])
        let downloader = Self.downloader { $0.maxConcurrent = 1 }
        let hold = Task { try await downloader.download(origin.url("/hold.jpg")) }
        #expect(await origin.waitForRequests("/hold.jpg", count: 1, timeout: .seconds(20)))
        // Both wait in line before the slot frees, whatever the machine's load: the order is then
        // the line's alone.
        let prefetch = Task { try await downloader.download(origin.url("/prefetch.jpg"), priority: PriorityCell(.prefetch)) }
        try await Self.waitUntil { downloader.slots.waiting == 1 }
        let interactive = Task { try await downloader.download(origin.url("/interactive.jpg"), priority: PriorityCell(.interactive)) }
        try await Self.waitUntil { downloader.slots.waiting == 2 }
        #expect(origin.allRequests.count == 1, "the slot freed before both were in line; the test needs a longer hold")
        _ = try await (hold.value, prefetch.value, interactive.value)
        let order = origin.allRequests.map(\.path)
        #expect(order == ["/hold.jpg", "/interactive.jpg", "/prefetch.jpg"])
        await downloader.shutdown()
        try await origin.shutdown()
    }

    /// Polls `condition` every 5 ms for up to 10 s.
    static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("the condition did not come true within 10 s") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test("A download waiting for a slot leaves the line when cancelled")
    func cancelWhileWaiting() async throws {
        // The slot stays taken until the test lets it go: with a 400 ms hold, a busy machine could
        // resume this test after the slot had freed and the waiting download had started (one CI run).
        let origin = try await TestOrigin.start(routes: ["/hold.jpg": .image(Self.jpeg, latency: .seconds(60)),
                                                         "/never.jpg": .image(Self.jpeg)])
        let downloader = Self.downloader { $0.maxConcurrent = 1 }
        let hold = Task { try await downloader.download(origin.url("/hold.jpg")) }
        #expect(await origin.waitForRequests("/hold.jpg", count: 1, timeout: .seconds(20)))
        let waiting = Task { try await downloader.download(origin.url("/never.jpg")) }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        // Freeing the slot would start the waiting download if it were still in line.
        hold.cancel()
        _ = try? await hold.value
        try await Task.sleep(for: .milliseconds(100))
        #expect(origin.requestCount("/never.jpg") == 0)
        #expect(downloader.inFlight == 0)
        await downloader.shutdown()
        try await origin.shutdown()
    }
}
