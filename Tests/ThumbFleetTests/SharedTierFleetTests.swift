import ChildProcess
import DaemonTestSupport
import Foundation
import Synchronization
import Testing
import TestOrigin
import TestSupport

/// The fleet with one shared result tier (cache.shared on a real SeaweedFS on loopback): a node
/// that dies is replaced by an empty one, a node is added, and the fleet downloads no original again.
@Suite("A fleet with a shared tier", .serialized,
       .requires(FleetHarness.nginxExecutable != nil, Comment(rawValue: FleetHarness.nginxMissing)),
       .requires(S3TestServer.ready, Comment(rawValue: S3TestServer.missing)))
struct SharedTierFleetTests {
    static let bucket = "fleet-tier"

    @Test("kill -9 of a node, an empty node in its place, a fourth node added (nginx reloaded): no request fails, no original is downloaded again, an eviction reaches the tier")
    func newNodesStartWarm() async throws {
        let store = try S3TestServer.start()
        defer { store.stop() }
        try store.makeBucket(Self.bucket)
        let tier = [
            "THUMBD_CACHE_SHARED": "s3://\(Self.bucket)/fleet",
            "AWS_ACCESS_KEY_ID": S3TestServer.accessKey, "AWS_SECRET_ACCESS_KEY": S3TestServer.secretKey,
            "AWS_ENDPOINT_URL_S3": store.endpoint, "AWS_REGION": "us-east-1",
            // This test is about nodes that start warm, and counts every thumbnail written to the
            // tier: a breaker opened by a slow first second of a busy machine's SeaweedFS would skip
            // writes (one CI run: three 2 s reads timed out as the load began). How the daemon meets
            // a slow or frozen tier is SharedTierTests'.
            "THUMBD_CACHE_SHARED_TIMEOUT": "10",
        ]
        try await FleetHarness.run(spareNodes: 1, extraEnvironment: tier) { fleet, origin in
            let urls = FleetTests.photos(120, origin: origin, prefix: "tier")
            let paths = urls.map { FleetHarness.thumbnailPath($0, size: 110) }
            let warm = await fleet.load(paths, concurrency: 16)
            #expect(warm.failed == 0, "\(warm.samples)")
            try await waitUntilWritten(paths.count, fleet: fleet, nodes: 0..<3)
            #expect(try store.count(bucket: Self.bucket, prefix: "fleet/") == paths.count)
            let downloads = origin.totalRequests
            #expect(downloads == urls.count)

            let byNode = try await fleet.urlsByNode()
            let victim = byNode.indices.max { byNode[$0].count < byNode[$1].count }!
            var generator = SeededRandom(seed: 31)
            let randomPaths = { (count: Int) in (0..<count).map { _ in paths[Int(generator.next() % UInt64(paths.count))] } }

            // The node dies under load; its photos move to the neighbours, who read the tier.
            let killed = Mutex<ContinuousClock.Instant?>(nil)
            let failover = await fleet.load(randomPaths(1500), concurrency: 16) { answered in
                guard answered == 200 else { return }
                killed.withLock { $0 = .now }
                fleet.stop(victim, signal: SIGKILL)
            }
            #expect(failover.failed == 0, "during the kill: \(failover.samples)")
            #expect(killed.withLock { $0 } != nil, "the node was killed mid-load")
            // nginx's last failed try of the dead node may be as late as the load's end.
            let loadEnded = ContinuousClock.now

            // An empty node in its place: once nginx tries it again, it answers from the tier.
            try fleet.start(victim, emptyDirectory: true)
            try await fleet.waitReady(victim)
            try await Task.sleep(until: loadEnded + FleetNginxConfig.shippedFailTimeout() + .seconds(1))
            let replaced = await fleet.load(randomPaths(1500), concurrency: 16)
            #expect(replaced.failed == 0, "after the replacement: \(replaced.samples)")
            #expect(try await fleet.metric("thumbd_shared_hits_total", node: victim) > 0, "the replacement read the tier")
            #expect(try await fleet.metric("thumbd_download_bytes_total", node: victim) == 0, "the replacement downloaded no original")

            // A fourth node, added while the load runs. nginx's reload closes the kept-alive
            // connections its old workers hold: a request caught on one is sent again, as browsers do.
            async let added = fleet.addNode()
            let grown = await fleet.load(randomPaths(3000), concurrency: 16, resendClosedConnections: true)
            let fourth = try await added
            let after = await fleet.load(paths, concurrency: 16, resendClosedConnections: true)
            #expect(grown.failed == 0 && after.failed == 0, "while adding a node: \(grown.samples) \(after.samples)")
            // Each resend found a connection nginx had closed: no more than the client's pool holds.
            #expect(grown.resent + after.resent <= 64, "requests sent again: \(grown.resent + after.resent)")
            #expect(try await fleet.metric("thumbd_thumbnail_responses_total", node: fourth) > 0, "nginx sends the fourth node requests")
            #expect(try await fleet.metric("thumbd_shared_hits_total", node: fourth) > 0, "the fourth node read the tier")
            #expect(try await fleet.metric("thumbd_download_bytes_total", node: fourth) == 0, "the fourth node downloaded no original")
            #expect(origin.totalRequests == downloads, "no original downloaded again: \(origin.totalRequests - downloads) more origin requests")

            // An eviction on the node that holds a photo removes its object from the tier: the next
            // request, wherever it lands, makes the thumbnail anew.
            let held = try #require(try await fleet.urls(onNode: fourth).sorted().first)
            let deleted = try await fleet.get("/v1/cache/entries?" + URLSignerQuery.url(held), node: fourth, method: .DELETE,
                                              headers: [("Authorization", "Bearer \(FleetHarness.adminToken)")])
            let report = try JSONSerialization.jsonObject(with: Data(deleted.body)) as? [String: Any]
            #expect(deleted.status == 200 && report?["shared_removed"] as? Int == 1, "\(String(decoding: deleted.body, as: UTF8.self))")
            #expect(try store.count(bucket: Self.bucket, prefix: "fleet/") == paths.count - 1)
            let again = try await fleet.get(FleetHarness.thumbnailPath(held, size: 110))
            #expect(again.status == 200 && again.header("x-cache") == "miss", "X-Cache \(again.header("x-cache") ?? "-")")
            #expect(origin.totalRequests == downloads + 1)
        }
    }

    /// Until the nodes have written `count` thumbnails to the tier (they write after answering).
    private func waitUntilWritten(_ count: Int, fleet: FleetHarness, nodes: Range<Int>) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        var written = 0.0
        while ContinuousClock.now < deadline {
            written = 0
            for node in nodes { written += try await fleet.metric("thumbd_shared_writes_total", node: node) }
            if written >= Double(count) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        var why: [String] = []
        for name in ["thumbd_shared_errors_total", "thumbd_shared_writes_dropped_total", "thumbd_shared_skipped_total", "thumbd_shared_breaker_open"] {
            var total = 0.0
            for node in nodes { total += try await fleet.metric(name, node: node) }
            why.append("\(name) \(total)")
        }
        throw TestFailure("the nodes wrote \(Int(written)) of \(count) thumbnails to the shared tier in 60 s (\(why.joined(separator: ", "))); "
                          + "node 0's log: \(fleet.nodeLog(0))")
    }
}
