import DaemonTestSupport
import NetworkGuard
import Testing
import TestOrigin

/// Names that do not resolve, and a resolver that takes its time. A DNS server cannot be made slow
/// without root (resolv.conf is the system's), so the slow one is the system's own seam,
/// `HostResolver`, answering after a delay.
@Suite("Origin DNS: no such name, a slow answer")
struct OriginDNSTests {
    @Test("A name that cannot resolve (.invalid, RFC 6761) is origin_unreachable (502), nothing cached, the slot free")
    func nameDoesNotResolve() async throws {
        let origin = try await TestOrigin.start(routes: [FaultAftermath.goodPath: .image(Images.jpeg)])
        let daemon = try await FaultAftermath.faultDaemon()
        let reply = try await daemon.get(daemon.thumbnailPath("http://thumbd-origin.invalid/photo.jpg"))
        try FaultAftermath.expect(reply, status: 502, code: "origin_unreachable", daemon: daemon)
        #expect(reply.body.count > 0 && String(decoding: reply.body, as: UTF8.self).contains("cannot resolve"))
        try await FaultAftermath.expectSlotFree(daemon: daemon, goodURL: origin.url(FaultAftermath.goodPath))
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("A DNS answer slower than download.timeout is origin_timeout (504) at the timeout, and holds no slot")
    func slowAnswer() async throws {
        let origin = try await TestOrigin.start(routes: ["/photo.jpg": .image(Images.jpeg), FaultAftermath.goodPath: .image(Images.jpeg)])
        let daemon = try await FaultAftermath.faultDaemon(timeout: .seconds(6)) {
            $0.download.resolver = HostResolver.fixed(["slow.test": [IPAddress("127.0.0.1")!]]).delayed(by: .seconds(60))
        }
        let start = ContinuousClock.now
        let slow = Task {
            let reply = try await daemon.get(daemon.thumbnailPath(origin.url("/photo.jpg", host: "slow.test")))
            return (reply, ContinuousClock.now)
        }
        // While the name is being looked up, the one download slot is free: a literal address (no
        // lookup) gets its photo before the slow one gives up, which it could not if the lookup
        // held the slot.
        try await Task.sleep(for: .milliseconds(500))
        let good = try await daemon.get(daemon.thumbnailPath(origin.url(FaultAftermath.goodPath)))
        let goodDone = ContinuousClock.now
        #expect(good.status == 200)
        let cachedBefore = daemon.cache.memory.stats.entries
        let (reply, slowDone) = try await slow.value
        #expect(goodDone < slowDone, "the good download waited for the slow lookup")
        #expect(reply.status == 504 && reply.problemCode == "origin_timeout")
        // At the timeout (6 s), not when the lookup would have answered (60 s); loose above for a loaded machine.
        let elapsed = slowDone - start
        #expect(elapsed >= .milliseconds(5900) && elapsed < .seconds(20), "answered after \(elapsed)")
        #expect(origin.requestCount("/photo.jpg") == 0)
        #expect(daemon.daemon.pipeline.downloader.inFlight == 0)
        #expect(daemon.cache.memory.stats.entries == cachedBefore, "the failed download left an entry")
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("A DNS answer slower than usual but within the timeout still gets the photo")
    func slowButInTime() async throws {
        let origin = try await TestOrigin.start(routes: ["/photo.jpg": .image(Images.jpeg)])
        let daemon = try await FaultAftermath.faultDaemon(timeout: .seconds(15)) {
            $0.download.resolver = HostResolver.fixed(["slow.test": [IPAddress("127.0.0.1")!]]).delayed(by: .milliseconds(800))
        }
        let start = ContinuousClock.now
        let reply = try await daemon.get(daemon.thumbnailPath(origin.url("/photo.jpg", host: "slow.test")))
        #expect(reply.status == 200, "\(reply.problemCode ?? "-")")
        #expect(ContinuousClock.now - start >= .milliseconds(800))
        #expect(origin.requests("/photo.jpg").first?.header("host") == "slow.test:\(origin.port)")
        try await daemon.stop()
        try await origin.shutdown()
    }
}
