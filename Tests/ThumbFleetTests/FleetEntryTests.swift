import ChildProcess
import DaemonTestSupport
import Foundation
import Testing
import TestOrigin
import ThumbCache
import ThumbFleet
import ThumbPipeline

/// `fleet.entry`: prefetch items go through the balancer to the node that will serve them. Here a
/// second daemon stands in for the balancer (the fleet suite runs the real nginx).
@Suite("Prefetch through the fleet's entry point")
struct FleetEntryTests {
    @Test("Items are made by the daemon behind the entry point, not by the one that got the job; its problem codes come back")
    func itemsAreMadeBehindTheEntryPoint() async throws {
        let origin = try await TestOrigin.start(routes: [
            "/a.jpg": .image(Images.jpeg), "/b.jpg": .image(Images.otherJPEG), "/gone.jpg": .status(404),
        ])
        let home = try await TestDaemon.start()
        let front = try await TestDaemon.start { $0.fleet.entry = "http://127.0.0.1:\(home.port)" }
        let urls = ["/a.jpg", "/b.jpg", "/gone.jpg"].map { origin.url($0) }
        let submitted = try await PrefetchJobs.post(front, ["urls": urls, "size": 72])
        #expect(submitted.status == 202, "\(String(decoding: submitted.body, as: UTF8.self))")
        let report = try await PrefetchJobs.wait(front, try PrefetchJobs.status(submitted).id)
        #expect(report.state == .finished)
        #expect(report.done == 2)
        #expect(report.failed == 1)
        // The home node's own problem code comes back as the item's failure.
        #expect(report.failures.map(\.code) == ["origin_status"], "\(report.failures)")
        #expect(front.cache.memory.stats.entries == 0, "the node that got the job made nothing itself")
        #expect(try front.cache.disk?.entries(limit: nil).isEmpty == true)
        let made = try home.cache.disk?.entries(limit: nil).filter { $0.key.variant != .original }.map(\.key.url.value).sorted()
        #expect(made == urls.prefix(2).sorted())
        // A second job finds them cached behind the entry point.
        let again = try await PrefetchJobs.post(front, ["urls": Array(urls.prefix(2)), "size": 72])
        let second = try await PrefetchJobs.wait(front, try PrefetchJobs.status(again).id)
        #expect(second.alreadyCached == 2 && second.done == 0)
        #expect(origin.requestCount("/a.jpg") == 1)
        try await front.stop()
        try await home.stop()
        try await origin.shutdown()
    }

    @Test("An entry point that does not answer: every item fails with entry_unreachable, the job ends, nothing is downloaded")
    func deadEntryPoint() async throws {
        let origin = try await TestOrigin.start(routes: ["/a.jpg": .image(Images.jpeg)])
        let refusing = try RefusingPort()
        let closedPort = refusing.port
        let front = try await TestDaemon.start { $0.fleet.entry = "http://127.0.0.1:\(closedPort)" }
        let urls = (0..<5).map { origin.url("/a.jpg?n=\($0)") }
        let started = ContinuousClock.now
        let submitted = try await PrefetchJobs.post(front, ["urls": urls])
        let report = try await PrefetchJobs.wait(front, try PrefetchJobs.status(submitted).id, timeout: .seconds(30))
        #expect(report.state == .finished)
        #expect(report.failed == 5)
        #expect(Set(report.failures.map(\.code)) == ["entry_unreachable"], "\(report.failures)")
        #expect(report.failures.first?.message.contains("127.0.0.1:\(closedPort)") == true)
        #expect(ContinuousClock.now - started < .seconds(15), "a refused connection fails at once")
        #expect(origin.totalRequests == 0)
        try await front.stop()
        try await origin.shutdown()
        withExtendedLifetime(refusing) {}
    }

    @Test("fleet.entry and fleet.nodes are checked when the settings are read")
    func settingsAreChecked() {
        #expect(FleetSettings.baseURL("http://10.0.0.1:8080/") == "http://10.0.0.1:8080")
        #expect(FleetSettings.baseURL("ftp://x") == nil)
        #expect(FleetSettings.baseURL("http://") == nil)
        #expect(FleetSettings.baseURL("http://a/?x=1") == nil)
        #expect(throws: FleetSettings.InvalidNode.self) { try FleetSettings.parseNodes("http://a:1,localhost:2") }
        #expect((try? FleetSettings.parseNodes("http://a:1, https://b:2")) == ["http://a:1", "https://b:2"])
    }
}
