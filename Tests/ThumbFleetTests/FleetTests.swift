import ChildProcess
import DaemonTestSupport
import Foundation
import Synchronization
import Testing
import TestOrigin
import TestSupport

/// The fleet recipe of docs/operations.md, "A fleet behind nginx", run for real: three `thumbd serve` processes behind nginx with the
/// shipped config/nginx/thumbd.conf, a loopback origin, and nodes killed and restarted under load.
@Suite("A fleet of three nodes behind nginx", .serialized,
       .requires(FleetHarness.nginxExecutable != nil, Comment(rawValue: FleetHarness.nginxMissing)))
struct FleetTests {
    /// `count` photo URLs on the origin (the same small JPEG under distinct paths).
    static func photos(_ count: Int, origin: TestOrigin, prefix: String = "p") -> [String] {
        (0..<count).map { index in
            let path = "/\(prefix)/\(index).jpg"
            origin.setRoute(path, .image(Images.jpeg))
            return origin.url(path)
        }
    }

    static func path(of url: String) -> String { URL(string: url)!.path }

    @Test("300 photos x 2 sizes through nginx: all 200, one download per photo for the fleet, each photo on exactly one node, an even split")
    func distribution() async throws {
        try await FleetHarness.run { fleet, origin in
            let urls = Self.photos(300, origin: origin)
            // Both sizes of a photo at the same moment, as a page asks for 1x and 2x.
            let paths = urls.flatMap { [FleetHarness.thumbnailPath($0, size: 100), FleetHarness.thumbnailPath($0, size: 200)] }
            let outcome = await fleet.load(paths, concurrency: 16)
            #expect(outcome.failed == 0, "\(outcome.samples)")
            #expect(outcome.statuses[200] == 600)

            let downloads = urls.map { origin.requestCount(Self.path(of: $0)) }
            #expect(downloads.allSatisfy { $0 == 1 }, "origin requests per photo: \(Dictionary(grouping: downloads) { $0 }.mapValues(\.count))")

            let byNode = try await fleet.urlsByNode()
            let holders = urls.map { url in byNode.filter { $0.contains(url) }.count }
            #expect(holders.allSatisfy { $0 == 1 }, "every photo's entries on exactly one node")
            let split = byNode.map(\.count)
            #expect(split.allSatisfy { abs($0 - 100) <= 35 }, "photos per node: \(split)")
            // Thumbnails and originals of one photo are together: 2 sizes + the original on its node.
            let entries = try await fleet.get("/v1/cache/stats", node: 0)
            #expect(entries.status == 200)
        }
    }

    @Test("kill -9 of a node during 2,000 requests: none fails; restarted on its old directory, its photos come home from disk without an origin request")
    func nodeKilledAndRestarted() async throws {
        try await FleetHarness.run { fleet, origin in
            let urls = Self.photos(300, origin: origin)
            let warm = await fleet.load(urls.map { FleetHarness.thumbnailPath($0, size: 120) }, concurrency: 16)
            #expect(warm.failed == 0, "\(warm.samples)")
            let victim = 1
            let victimURLs = try await fleet.urlsByNode()[victim]
            #expect(!victimURLs.isEmpty)

            var generator = SeededRandom(seed: 13)
            let paths = (0..<2000).map { _ in FleetHarness.thumbnailPath(urls[Int(generator.next() % UInt64(urls.count))], size: 120) }
            let killedAt = Mutex<ContinuousClock.Instant?>(nil)
            let outcome = await fleet.load(paths, concurrency: 32) { answered in
                guard answered == 300 else { return }
                killedAt.withLock { $0 = .now }
                fleet.stop(victim, signal: SIGKILL)
            }
            #expect(killedAt.withLock { $0 } != nil, "the node was killed mid-load")
            #expect(outcome.failed == 0, "failed requests: \(outcome.failed), \(outcome.samples)")
            #expect(outcome.count == 2000)
            // nginx tries a failed node again each fail_timeout while requests come, and each try
            // during the load failed: the last one may be as late as the load's end.
            let loadEnded = ContinuousClock.now

            // Home again: once nginx's fail_timeout has passed since its last failed try, it sends
            // the node its photos, which it answers from its disk.
            let downloadsBefore = origin.totalRequests
            try fleet.start(victim)
            try await fleet.waitReady(victim)
            try await Task.sleep(until: loadEnded + FleetNginxConfig.shippedFailTimeout() + .seconds(1))
            var tiers: [String: Int] = [:]
            for url in victimURLs.sorted() {
                let reply = try await fleet.get(FleetHarness.thumbnailPath(url, size: 120))
                #expect(reply.status == 200)
                tiers[reply.header("x-cache") ?? "-", default: 0] += 1
            }
            #expect(tiers == ["disk": victimURLs.count], "answers for the restarted node's photos by tier: \(tiers)")
            #expect(origin.totalRequests == downloadsBefore, "no origin request once the node is back")
            #expect(try await fleet.urlsByNode()[victim] == victimURLs, "the restarted node kept its entries")
        }
    }

    @Test("Rolling restart under load (SIGTERM each node, start it again, the next once nginx takes it back): no request fails")
    func rollingRestart() async throws {
        try await FleetHarness.run { fleet, origin in
            let urls = Self.photos(120, origin: origin)
            let stop = Atomic<Bool>(false)
            let load = Task { () -> FleetHarness.LoadOutcome in
                var total = FleetHarness.LoadOutcome()
                var round = 0
                while !stop.load(ordering: .relaxed) {
                    let outcome = await fleet.load(urls.map { FleetHarness.thumbnailPath($0, size: 80 + round % 3) }, concurrency: 16)
                    total.errors += outcome.errors
                    total.samples += outcome.samples.prefix(max(0, 20 - total.samples.count))
                    for (status, count) in outcome.statuses { total.statuses[status, default: 0] += count }
                    round += 1
                }
                return total
            }
            try await Task.sleep(for: .seconds(1))
            for node in 0..<3 {
                let status = fleet.stop(node, signal: SIGTERM)
                #expect(status == 0, "node \(node) exits 0 after draining: \(fleet.nodeLog(node))")
                try fleet.start(node)
                try await fleet.waitReady(node)
                // As docs/operations.md, "Restarting and upgrading", says: the next node stops only once
                // nginx has taken this one back (fail_timeout after it went away).
                try await Task.sleep(for: FleetNginxConfig.shippedFailTimeout() + .milliseconds(500))
            }
            stop.store(true, ordering: .relaxed)
            let outcome = await load.value
            #expect(outcome.count > 500, "the load kept running: \(outcome.count) requests")
            #expect(outcome.failed == 0, "failed: \(outcome.failed) of \(outcome.count): \(outcome.samples)")
        }
    }

    @Test("A prefetch job sent to one node leaves each thumbnail on the node nginx sends that URL to")
    func prefetchWarmsTheOwners() async throws {
        try await FleetHarness.run { fleet, origin in
            let urls = Self.photos(60, origin: origin, prefix: "prefetch")
            // The variant spelled out as the checks below ask for it (`thumbnailPath` writes every
            // parameter; the nodes' default gravity is smart).
            let body = try JSONSerialization.data(withJSONObject: ["urls": urls, "size": 150, "gravity": "center"] as [String: Any])
            let submitted = try await fleet.get("/v1/prefetch", node: 0, method: .POST,
                                                headers: [("Content-Type", "application/json")], body: Array(body))
            #expect(submitted.status == 202 || submitted.status == 200, "\(String(decoding: submitted.body, as: UTF8.self))")
            let id = try #require((try JSONSerialization.jsonObject(with: Data(submitted.body)) as? [String: Any])?["id"] as? String)
            var report: [String: Any] = [:]
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                let status = try await fleet.get("/v1/prefetch/\(id)", node: 0)
                report = (try JSONSerialization.jsonObject(with: Data(status.body)) as? [String: Any]) ?? [:]
                if report["state"] as? String != "running" { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(report["state"] as? String == "finished")
            #expect(report["done"] as? Int == 60, "\(report)")
            #expect(report["failed"] as? Int == 0)

            let byNode = try await fleet.urlsByNode()
            #expect(urls.allSatisfy { url in byNode.filter { $0.contains(url) }.count == 1 }, "each on exactly one node")
            #expect(byNode.filter { !$0.isEmpty }.count > 1, "spread over the fleet, not all made on the node that got the job")
            // nginx sends each URL to the node that made it: every request is a hit, no origin request.
            let downloads = origin.totalRequests
            for url in urls {
                let reply = try await fleet.get(FleetHarness.thumbnailPath(url, size: 150))
                #expect(reply.status == 200)
                #expect(reply.header("x-cache") != "miss", "\(url) was made on another node than its owner")
            }
            #expect(origin.totalRequests == downloads)
        }
    }

    @Test("Evicting a host reaches every node (a dead one is reported); DELETE ?url= through nginx reaches the owner; with no node up nginx answers 503 no_node")
    func fleetAdministration() async throws {
        try await FleetHarness.run { fleet, origin in
            let urls = Self.photos(30, origin: origin, prefix: "admin")
            #expect(await fleet.load(urls.map { FleetHarness.thumbnailPath($0, size: 90) }, concurrency: 8).failed == 0)

            // One URL through nginx: the owner removes its thumbnail and original.
            let owner = try await fleet.urlsByNode().firstIndex { $0.contains(urls[0]) }!
            let deleted = try await fleet.get("/v1/cache/entries?" + URLSignerQuery.url(urls[0]), method: .DELETE,
                                              headers: [("Authorization", "Bearer \(FleetHarness.adminToken)")])
            #expect(deleted.status == 200, "\(String(decoding: deleted.body, as: UTF8.self))")
            #expect(try await fleet.urlsByNode()[owner].contains(urls[0]) == false)

            // The whole host, from the command line, over the three nodes and a dead fourth.
            fleet.stop(2, signal: SIGKILL)
            let nodes = fleet.nodePorts.map { "http://127.0.0.1:\($0)" }.joined(separator: ",")
            let evict = try ChildProcess.run(ServeProcess.executable, ["cache", "evict", "--host", "127.0.0.1:\(origin.port)", "--nodes", nodes,
                                                                        "--token", FleetHarness.adminToken, "--json"], timeoutSeconds: 60)
            #expect(evict.status == 1, "a dead node makes the command fail: \(evict.stdoutText) \(evict.stderrText)")
            let report = try JSONSerialization.jsonObject(with: Data(evict.stdout)) as? [String: Any]
            let answers = report?["nodes"] as? [[String: Any]] ?? []
            #expect(answers.count == 3)
            #expect(answers[2]["code"] as? String == "node_unreachable", "\(answers)")
            #expect(answers[0]["removed"] != nil && answers[1]["removed"] != nil, "the live nodes still evicted: \(answers)")
            #expect(report?["failedNodes"] as? Int == 1)
            for node in 0..<2 { #expect(try await fleet.urls(onNode: node).isEmpty, "node \(node) holds nothing of the host") }

            let stats = try ChildProcess.run(ServeProcess.executable, ["cache", "stats", "--nodes", nodes], timeoutSeconds: 60)
            #expect(stats.status == 1)
            #expect(stats.stdoutText.contains("fleet (2 of 3 nodes)"), "\(stats.stdoutText)")

            // No node at all: nginx's own failure, as a problem document clients can act on.
            for node in 0..<2 { fleet.stop(node, signal: SIGKILL) }
            let none = try await fleet.get(FleetHarness.thumbnailPath(urls[1], size: 90))
            #expect(none.status == 503)
            #expect(none.problemCode == "no_node" || String(decoding: none.body, as: UTF8.self).contains("no_node"))
        }
    }

    @Test("The edge cache answers hot thumbnails itself, keeps AVIF, WebP and JPEG apart for format=auto, and keeps an evicted copy until its max-age")
    func edgeCache() async throws {
        try await FleetHarness.run(edgeCache: true) { fleet, origin in
            let url = Self.photos(1, origin: origin, prefix: "edge")[0]
            let path = FleetHarness.thumbnailPath(url, size: 110)
            let webp = [("Accept", "image/webp,image/*,*/*;q=0.8")]
            let avif = [("Accept", "image/avif,image/webp,image/*,*/*;q=0.8")]
            let first = try await fleet.get(path)
            #expect(first.status == 200 && first.header("x-edge-cache") == "MISS" && first.header("x-cache") == "miss")
            let second = try await fleet.get(path)
            #expect(second.header("x-edge-cache") == "HIT", "\(second.headers)")
            #expect(second.body == first.body)
            #expect(second.header("etag") == first.header("etag"))
            // format=auto varies by Accept: a browser that takes WebP gets WebP, kept beside the JPEG.
            let asWebP = try await fleet.get(path, headers: webp)
            #expect(asWebP.header("x-edge-cache") == "MISS")
            #expect(asWebP.header("content-type") == "image/webp")
            #expect(try await fleet.get(path, headers: webp).header("x-edge-cache") == "HIT")
            let asAVIF = try await fleet.get(path, headers: avif)
            #expect(asAVIF.header("x-edge-cache") == "MISS" && asAVIF.header("content-type") == "image/avif")
            #expect(try await fleet.get(path, headers: avif).header("x-edge-cache") == "HIT")
            let jpegAgain = try await fleet.get(path)
            #expect(jpegAgain.header("content-type") == "image/jpeg" && jpegAgain.header("x-edge-cache") == "HIT")
            // The cost docs/operations.md, "The edge cache (optional)", names: an eviction empties the node, not the edge.
            let evicted = try await fleet.get("/v1/cache/entries?" + URLSignerQuery.url(url), method: .DELETE,
                                              headers: [("Authorization", "Bearer \(FleetHarness.adminToken)")])
            #expect(evicted.status == 200)
            #expect(try await fleet.get(path).header("x-edge-cache") == "HIT")
            #expect(origin.requestCount(Self.path(of: url)) == 1, "the node downloaded the photo once for every format")
            // Errors are never kept at the edge.
            let missing = origin.url("/edge/missing.jpg")
            origin.setRoute("/edge/missing.jpg", .status(404))
            for _ in 0..<2 {
                let reply = try await fleet.get(FleetHarness.thumbnailPath(missing, size: 110))
                #expect(reply.status == 404 && reply.header("x-edge-cache") != "HIT")
            }
            #expect(origin.requestCount("/edge/missing.jpg") == 2)
        }
    }
}

/// `url=` written as the fleet's clients write it.
enum URLSignerQuery {
    static func url(_ url: String) -> String {
        String(FleetHarness.thumbnailPath(url, size: 1).dropFirst("/v1/thumbnail?".count).split(separator: "&").first { $0.hasPrefix("url=") }!)
    }
}
