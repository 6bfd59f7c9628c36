import ChildProcess
import Foundation
import NIOHTTP1
import ObjectStorage
import TestOrigin
import Testing
import TestSupport
import Synchronization
import ThumbPipeline

/// `cache.shared`: nodes that never made a thumbnail read it from the shared tier (a real S3
/// server, SeaweedFS) instead of downloading the original again; an eviction reaches the tier; a
/// tier that is down costs no failed request.
@Suite(.serialized)
struct SharedTierTests {
    static let token = "shared-tier-admin"

    static func node(_ server: S3TestServer) async throws -> TestDaemon {
        try await TestDaemon.start { settings in
            settings.download.s3.endpoint = try! S3Endpoint(server.endpoint)
            settings.download.s3.credentials = S3Credentials(accessKeyID: S3TestServer.accessKey, secretAccessKey: S3TestServer.secretKey)
            settings.pipeline.shared = try! SharedTierSettings("s3://thumbd-results/fleet/")
            settings.server.adminToken = Self.token
        }
    }

    @Test("A second node answers from the shared tier with no download; eviction reaches it; a dead tier fails nothing", .requires(S3TestServer.ready, "\(S3TestServer.missing)"))
    func sharedTier() async throws {
        let server = try S3TestServer.start()
        defer { server.stop() }
        try server.makeBucket("thumbd-results")
        let origin = try await TestOrigin.start(routes: ["/p/1.jpg": .image(Images.jpeg)])
        let url = origin.url("/p/1.jpg")

        let first = try await Self.node(server)
        let made = try await first.get(first.thumbnailPath(url, "size=90"))
        #expect(made.status == 200 && made.header("x-cache") == "miss")
        await first.daemon.pipeline.shared?.waitForWrites()
        #expect(try await first.metrics()["thumbd_shared_writes_total"] == 1)
        #expect(origin.requestCount("/p/1.jpg") == 1)

        let second = try await Self.node(server)
        let fromTier = try await second.get(second.thumbnailPath(url, "size=90"))
        #expect(fromTier.status == 200)
        #expect(fromTier.header("x-cache") == "shared")
        #expect(fromTier.body == made.body)
        #expect(fromTier.header("etag") == made.header("etag"))
        #expect(origin.requestCount("/p/1.jpg") == 1, "the second node downloaded the original again")
        #expect(try await second.get(second.thumbnailPath(url, "size=90")).header("x-cache") == "memory")
        // Its placeholder came along (the photo's facts travel with the object).
        let placeholder = try await second.get("/v1/placeholder?url=\(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&size=90")
        #expect(placeholder.status == 200 && String(decoding: placeholder.body, as: UTF8.self).contains("thumbhash"))
        #expect(origin.requestCount("/p/1.jpg") == 1)
        // The inspector counts the tier's hits too.
        let overview = try JSONSerialization.jsonObject(with: Data(try await second.get("/ui/api/overview").body)) as? [String: Any]
        let shared = overview?["shared"] as? [String: Any]
        #expect(shared?["location"] as? String == "s3://thumbd-results/fleet", "\(overview ?? [:])")
        #expect((shared?["counts"] as? [String: Any])?["hits"] as? Int == 1, "\(shared ?? [:])")
        #expect((overview?["activity"] as? [String: Any])?["sharedHits"] as? Int == 1)
        let alone = try JSONSerialization.jsonObject(with: Data(try await first.get("/ui/api/overview").body)) as? [String: Any]
        #expect(((alone?["shared"] as? [String: Any])?["counts"] as? [String: Any])?["writes"] as? Int == 1)

        let evicted = try await second.get("/v1/cache/entries?url=\(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                                           headers: [("Authorization", "Bearer \(Self.token)")], method: .DELETE)
        #expect(evicted.status == 200)
        #expect(String(decoding: evicted.body, as: UTF8.self).contains("\"shared_removed\":1"), "\(String(decoding: evicted.body, as: UTF8.self))")
        let third = try await Self.node(server)
        #expect(try await third.get(third.thumbnailPath(url, "size=90")).header("x-cache") == "miss")
        #expect(origin.requestCount("/p/1.jpg") == 2)
        await third.daemon.pipeline.shared?.waitForWrites()
        try await third.stop()
        // `thumbd cache evict` on a stopped node's directory reaches the tier as well.
        let cli = try ChildProcess.run("/usr/bin/env", [
            "THUMBD_CACHE_SHARED=s3://thumbd-results/fleet/", "AWS_ENDPOINT_URL_S3=\(server.endpoint)",
            "AWS_ACCESS_KEY_ID=\(S3TestServer.accessKey)", "AWS_SECRET_ACCESS_KEY=\(S3TestServer.secretKey)",
            TestPaths.builtProduct("thumbd"), "cache", "evict", url, "--cache-dir", try #require(third.cacheDirectory).path,
        ], timeoutSeconds: 60)
        #expect(cli.status == 0 && cli.stdoutText.contains("removed 1 object from the shared tier"),
                "\(cli.stdoutText)\(String(decoding: cli.stderr, as: UTF8.self))")
        let fifth = try await Self.node(server)
        #expect(try await fifth.get(fifth.thumbnailPath(url, "size=90")).header("x-cache") == "miss")
        #expect(origin.requestCount("/p/1.jpg") == 3)

        server.kill()
        let fourth = try await Self.node(server)
        let withoutTier = try await fourth.get(fourth.thumbnailPath(url, "size=90"))
        #expect(withoutTier.status == 200 && withoutTier.header("x-cache") == "miss")
        #expect(origin.requestCount("/p/1.jpg") == 4)
        await fourth.daemon.pipeline.shared?.waitForWrites()
        let metrics = try await fourth.metrics()
        #expect(metrics["thumbd_shared_errors_total{op=\"read\"}"] == 1)
        #expect(metrics["thumbd_shared_errors_total{op=\"write\"}"] == 1)
        for node in [first, second, fifth, fourth] { try await node.stop() }
        try await origin.shutdown()
    }

    @Test("A shared tier that hangs costs a request its read timeout, never a failure")
    func hangingTier() async throws {
        let silent = try SilentPort()
        let origin = try await TestOrigin.start(routes: ["/p/2.jpg": .image(Images.jpeg)])
        let node = try await TestDaemon.start { settings in
            settings.download.s3.endpoint = try! S3Endpoint("http://127.0.0.1:\(silent.port)")
            settings.download.s3.credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: "SECRET")
            settings.pipeline.shared = try! SharedTierSettings("s3://thumbd-results/fleet")
            settings.pipeline.shared?.readTimeout = .milliseconds(400)
        }
        let started = ContinuousClock.now
        let answer = try await node.get(node.thumbnailPath(origin.url("/p/2.jpg"), "size=80"))
        let took = ContinuousClock.now - started
        #expect(answer.status == 200 && answer.header("x-cache") == "miss")
        #expect(took >= .milliseconds(400), "the read was given up before its timeout: \(took)")
        #expect(took < .seconds(10), "the hanging tier held the answer: \(took)")
        #expect(try await node.metrics()["thumbd_shared_errors_total{op=\"read\"}"] == 1)
        try await node.stop()
        try await origin.shutdown()
        withExtendedLifetime(silent) {}
    }

    /// The case: the tier frozen (SIGSTOP) under 8 clients making misses. Nothing fails; once
    /// the breaker has opened no miss waits for the tier; thawed (SIGCONT), the tier is asked again.
    @Test("A frozen tier: the breaker opens after a few timeouts and misses answer at once; thawed, the tier is asked again", .requires(S3TestServer.ready, "\(S3TestServer.missing)"))
    func frozenTierOpensTheBreaker() async throws {
        let server = try S3TestServer.start()
        defer { server.stop() }
        try server.makeBucket("thumbd-results")
        let photos = 2000
        let origin = try await TestOrigin.start(routes: Dictionary(uniqueKeysWithValues: (0..<photos).map { ("/f/\($0).jpg", OriginRoute.image(Images.jpeg)) }))
        let timeout = Duration.seconds(2)
        let node = try await TestDaemon.start { settings in
            settings.download.s3.endpoint = try! S3Endpoint(server.endpoint)
            settings.download.s3.credentials = S3Credentials(accessKeyID: S3TestServer.accessKey, secretAccessKey: S3TestServer.secretKey)
            settings.pipeline.shared = try! SharedTierSettings("s3://thumbd-results/fleet/")
            settings.pipeline.shared?.readTimeout = timeout
            settings.pipeline.shared?.breakerWindow = .seconds(2)
        }
        #expect(try await node.get(node.thumbnailPath(origin.url("/f/0.jpg"), "size=64")).status == 200)

        server.freeze()
        let began = ContinuousClock.now
        let next = Counter(1)
        let results = try await withThrowingTaskGroup(of: [(started: Duration, took: Duration, status: Int)].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var mine: [(started: Duration, took: Duration, status: Int)] = []
                    while ContinuousClock.now - began < .seconds(8), let index = next.take(below: photos) {
                        let started = ContinuousClock.now
                        let reply = try await node.get(node.thumbnailPath(origin.url("/f/\(index).jpg"), "size=64"))
                        mine.append((started - began, ContinuousClock.now - started, reply.status))
                        // Clients that think between requests: the test measures waits on the tier, and
                        // leaves the cores to the suites beside it in the network pass.
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let metrics = try await node.metrics()
        server.thaw()

        #expect(results.allSatisfy { $0.status == 200 }, "a request failed while the tier was frozen")
        // The first reads wait their timeout; 3 of them open the breaker; reads under way then end
        // within one more timeout. Past that, no miss waits for the tier.
        let late = results.filter { $0.started > timeout * 2 + .milliseconds(500) }.map(\.took).sorted()
        #expect(late.count > 20, "too few misses after the breaker opened: \(late.count)")
        let p99 = late.isEmpty ? .zero : late[min(late.count - 1, late.count * 99 / 100)]
        print("frozen tier: \(results.count) misses, \(late.count) after the breaker opened, their p99 \(p99), slowest \(late.last ?? .zero)")
        #expect((late.last ?? .zero) < timeout, "a miss after the breaker opened waited for the tier: \(late.last ?? .zero)")
        #expect((metrics["thumbd_shared_skipped_total{op=\"read\"}"] ?? 0) >= Double(late.count))
        #expect((metrics["thumbd_shared_errors_total{op=\"read\"}"] ?? 0) < 20, "the frozen tier was asked once per miss")

        // Thawed: a probe after the window finds it answering, and misses go through it again.
        var state = ""
        for index in 0..<300 where state != "closed" {
            _ = try await node.get(node.thumbnailPath(origin.url("/f/\(photos - 1 - index).jpg"), "size=64"))
            let overview = try JSONSerialization.jsonObject(with: Data(try await node.get("/ui/api/overview").body)) as? [String: Any]
            state = ((overview?["shared"] as? [String: Any])?["counts"] as? [String: Any])?["breaker"] as? String ?? "?"
            if state != "closed" { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(state == "closed", "the breaker did not close after the tier came back")
        #expect(try await node.metrics()["thumbd_shared_breaker_open"] == 0)
        try await node.stop()
        try await origin.shutdown()
    }
}

/// Hands out 0, 1, 2, … to concurrent clients.
private final class Counter: Sendable {
    private let value: Mutex<Int>
    init(_ first: Int) { value = Mutex(first) }
    func take(below limit: Int) -> Int? {
        value.withLock { next in
            guard next < limit else { return nil }
            defer { next += 1 }
            return next
        }
    }
}
