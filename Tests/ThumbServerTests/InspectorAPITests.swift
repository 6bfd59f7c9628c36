import Foundation
import TestOrigin
import Testing
import TestSupport
import ThumbCache
@testable import ThumbServer

/// The inspector's page and the JSON it reads, against a real daemon on 127.0.0.1.
@Suite struct InspectorAPITests {
    static let token = "inspector-admin-token"

    static func start(_ configure: (inout DaemonSettings) -> Void = { _ in }) async throws -> TestDaemon {
        try await TestDaemon.start { settings in
            settings.server.adminToken = token
            settings.server.activitySampleInterval = .milliseconds(200)
            configure(&settings)
        }
    }

    static func json(_ reply: Reply) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])
    }

    @Test("/ui and its files are served from the binary, with a policy that allows no inline or foreign script")
    func pageAndAssets() async throws {
        let daemon = try await Self.start()
        defer { Task { try? await daemon.stop() } }
        let page = try await daemon.get("/ui")
        #expect(page.status == 200 && page.header("content-type") == "text/html; charset=utf-8")
        #expect(String(decoding: page.body, as: UTF8.self).contains("<script src=\"/ui/inspector.js\" defer></script>"))
        let policy = try #require(page.header("content-security-policy"))
        #expect(policy.contains("script-src 'self'") && policy.contains("default-src 'none'"))
        for (path, type) in [("/ui/inspector.js", "text/javascript"), ("/ui/inspector.css", "text/css")] {
            let reply = try await daemon.get(path)
            #expect(reply.status == 200 && reply.header("content-type")?.hasPrefix(type) == true && reply.body.count > 1000)
            // Nothing from anywhere else: no absolute URL in the page's own code.
            #expect(!String(decoding: reply.body, as: UTF8.self).contains("https://"), "\(path) names an outside address")
        }
        #expect(try await daemon.get("/ui/nothing.js").status == 404)
    }

    @Test("entries: pages by cursor with totals, filters, sibling variants and an in-memory flag; bad parameters are 400")
    func entries() async throws {
        let daemon = try await Self.start()
        defer { Task { try? await daemon.stop() } }
        InspectorFixture.fill(daemon.cache)
        var seen: [String] = []
        var path = "/ui/api/entries?sort=size&limit=3"
        var offsets: [Int] = []
        while true {
            let page = try Self.json(try await daemon.get(path))
            #expect(page["total"] as? Int == 7)
            offsets.append(try #require(page["offset"] as? Int))
            let entries = try #require(page["entries"] as? [[String: Any]])
            seen += entries.map { "\($0["url"]!) \($0["variant"]!)" }
            let sizes = entries.compactMap { $0["size"] as? Int }
            #expect(sizes == sizes.sorted(by: >))
            guard let next = page["next"] as? String else { break }
            path = "/ui/api/entries?sort=size&limit=3&after=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        }
        #expect(offsets == [0, 3, 6] && Set(seen).count == 7)

        let red = try Self.json(try await daemon.get("/ui/api/entries?q=RED&sort=age"))
        let redEntries = try #require(red["entries"] as? [[String: Any]])
        #expect(redEntries.count == 3)
        let original = try #require(redEntries.first { $0["kind"] as? String == "original" })
        #expect((original["variants"] as? [String])?.count == 3)
        #expect((original["image"] as? String)?.contains("variant=200%2Fcover%2Fjpeg%2Fq82") == true, "an original shows its smallest thumbnail")
        #expect(original["inMemory"] as? Bool == true)

        let evil = try Self.json(try await daemon.get("/ui/api/entries?host=EVIL.example"))
        #expect(evil["total"] as? Int == 2)
        let last = try Self.json(try await daemon.get("/ui/api/entries?at=last&limit=5&sort=hits"))
        #expect(last["offset"] as? Int == 2 && last["next"] == nil && last["previous"] is String)
        let originals = try Self.json(try await daemon.get("/ui/api/entries?kind=original"))
        #expect(originals["total"] as? Int == 1)

        for bad in ["sort=colour", "limit=0", "limit=201", "kind=video", "after=zzz", "after=1~2&before=1~2", "reverse=maybe"] {
            let reply = try await daemon.get("/ui/api/entries?\(bad)")
            #expect(reply.status == 400 && reply.problemCode == "invalid_parameter", "\(bad): \(reply.status)")
        }
        let hosts = try #require(try JSONSerialization.jsonObject(with: Data(try await daemon.get("/ui/api/hosts").body)) as? [[String: Any]])
        #expect(hosts.compactMap { $0["host"] as? String } == ["shop.example", "evil.example"])
    }

    @Test("files: the stored bytes, revalidated by ETag, and looking at them counts no hit")
    func files() async throws {
        let daemon = try await Self.start()
        defer { Task { try? await daemon.stop() } }
        let keys = InspectorFixture.fill(daemon.cache)
        let disk = try #require(daemon.cache.disk)
        let before = disk.activity
        let entries = try #require(try Self.json(try await daemon.get("/ui/api/entries?q=green"))["entries"] as? [[String: Any]])
        let image = try #require(entries.first?["image"] as? String)
        let reply = try await daemon.get(image)
        #expect(reply.status == 200 && reply.header("content-type") == "image/jpeg")
        let stored = try #require(try disk.read(keys[1], .facts, countingHit: false)?.entry)
        #expect(SHA256.hex(reply.body) == stored.checksum)
        let etag = try #require(reply.header("etag"))
        #expect(try await daemon.get(image, headers: [("If-None-Match", etag)]).status == 304)
        #expect(disk.activity.hits == before.hits && disk.activity.misses == before.misses)
        #expect(try disk.read(keys[1], .facts, countingHit: false)?.entry.hits == 0)
        #expect(try await daemon.get("/ui/files?url=https%3A%2F%2Fshop.example%2Fnone.jpg&variant=200%2Fcover%2Fjpeg%2Fq82").status == 404)
        #expect(try await daemon.get("/ui/files?url=https%3A%2F%2Fshop.example%2Fnone.jpg&variant=big").status == 400)
    }

    @Test("the admin token unlocks the page's session check and evictions by URL and by host; without it they are refused")
    func adminActions() async throws {
        let daemon = try await Self.start()
        defer { Task { try? await daemon.stop() } }
        InspectorFixture.fill(daemon.cache)
        let bearer = [("Authorization", "Bearer \(Self.token)")]
        #expect(try await daemon.get("/ui/api/session").status == 401)
        #expect(try await daemon.get("/ui/api/session", headers: [("Authorization", "Bearer wrong")]).status == 401)
        #expect(try await daemon.get("/ui/api/session", headers: bearer).status == 204)

        #expect(try await daemon.get("/v1/cache/entries?host=evil.example", method: .DELETE).status == 401)
        #expect(try await daemon.get("/v1/cache/entries?host=evil.example", headers: [("Authorization", "Bearer nope")], method: .DELETE).status == 401)
        let byHost = try await daemon.get("/v1/cache/entries?host=EVIL.example", headers: bearer, method: .DELETE)
        #expect(byHost.status == 200)
        #expect((try Self.json(byHost)["removed"] as? [String: Int]) == ["memory": 2, "disk": 2])
        let green = InspectorFixture.url("green").value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let one = try await daemon.get("/v1/cache/entries?url=\(green)&variant=200%2Fcover%2Fjpeg%2Fq82", headers: bearer, method: .DELETE)
        #expect((try Self.json(one)["removed"] as? [String: Int]) == ["memory": 1, "disk": 1])
        #expect(try Self.json(one)["variant"] as? String == "200/cover/jpeg/q82")
        #expect(try await daemon.get("/v1/cache/entries?url=\(green)&variant=huge", headers: bearer, method: .DELETE).status == 400)
        let red = InspectorFixture.url("red").value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let byURL = try await daemon.get("/v1/cache/entries?url=\(red)", headers: bearer, method: .DELETE)
        #expect((try Self.json(byURL)["removed"] as? [String: Int]) == ["memory": 3, "disk": 3])
        #expect(try daemon.cache.disk?.entries().map(\.url) == [InspectorFixture.url("blue")])
        for bad in ["", "?host=", "?host=a/b", "?url=x&host=y"] {
            #expect(try await daemon.get("/v1/cache/entries\(bad)", headers: bearer, method: .DELETE).status == 400, "\(bad)")
        }

        let off = try await TestDaemon.start()
        defer { Task { try? await off.stop() } }
        let overview = try Self.json(try await off.get("/ui/api/overview"))
        #expect(overview["adminEnabled"] as? Bool == false)
        let disabled = try await off.get("/ui/api/session", headers: bearer)
        #expect(disabled.status == 403 && disabled.problemCode == "admin_disabled")
    }

    @Test("overview: tiers against limits, activity, and samples of the last hour taken by the daemon")
    func overview() async throws {
        let daemon = try await Self.start()
        defer { Task { try? await daemon.stop() } }
        let keys = InspectorFixture.fill(daemon.cache)
        try await InspectorFixture.answer(daemon, hits: 5, misses: 1, token: Self.token)
        _ = daemon.cache.get(CacheKey(url: InspectorFixture.url("absent"), variant: InspectorFixture.thumb))
        var sampledHits = 0
        var overview: [String: Any] = [:]
        for _ in 0..<50 where sampledHits < 5 {
            try await Task.sleep(for: .milliseconds(100))
            overview = try Self.json(try await daemon.get("/ui/api/overview"))
            let history = overview["history"] as? [[String: Any]] ?? []
            sampledHits = history.reduce(0) { $0 + ($1["memoryHits"] as? Int ?? 0) + ($1["diskHits"] as? Int ?? 0) }
        }
        #expect(sampledHits == 5)
        // The memory tier's hits reached the entry's own count.
        let top = try #require(try Self.json(try await daemon.get("/ui/api/entries?sort=hits&limit=1"))["entries"] as? [[String: Any]])
        #expect(top.first?["url"] as? String == keys[0].url.value && top.first?["hits"] as? Int == 5)
        let usage = try #require(daemon.cache.disk?.usage)
        let disk = try #require(overview["disk"] as? [String: Int])
        #expect(disk["entries"] == usage.thumbnails.entries && disk["bytes"] == usage.thumbnails.bytes && disk["maxBytes"] == usage.thumbnails.maxBytes)
        #expect((overview["originals"] as? [String: Int])?["entries"] == 1)
        #expect((overview["memory"] as? [String: Int])?["entries"] == 7)
        // Answers by the tier that answered; the tiers' own lookups (the memory tier's 5 hits; every
        // tier the miss and the absent key went through) apart.
        let activity = try #require(overview["activity"] as? [String: Int])
        #expect(activity["memoryHits"] == 5 && activity["diskHits"] == 0 && activity["misses"] == 1, "\(activity)")
        #expect(activity["memoryLookupHits"] == 5 && (activity["lookupMisses"] ?? 0) >= 2, "\(activity)")
        #expect(abs((overview["hitRatio"] as? Double ?? 0) - 5.0 / 6.0) < 1e-9)
        #expect(overview["downloadsInFlight"] as? Int == 0 && overview["prefetch"] as? [Any] != nil)

        let off = try await TestDaemon.start { $0.server.inspector = false }
        defer { Task { try? await off.stop() } }
        #expect(try await off.get("/ui").status == 404)
        #expect(try await off.get("/ui/api/overview").status == 404)
    }
}

/// Issue 43's reading: 6 thumbnails asked twice each are 6 misses and 6 memory hits, and the
/// inspector says 50 %, as `thumbd_thumbnail_responses_total` does, whatever the tiers looked up.
@Suite struct InspectorHitRatioTests {
    @Test func sixThumbnailsAskedTwiceEachRead50Percent() async throws {
        let origin = try await TestOrigin.start(routes: Dictionary(uniqueKeysWithValues: (0..<6).map { ("/p/\($0).jpg", OriginRoute.image(Images.jpeg)) }))
        let daemon = try await TestDaemon.start()
        for _ in 0..<2 {
            for index in 0..<6 { #expect(try await daemon.get(daemon.thumbnailPath(origin.url("/p/\(index).jpg"), "size=120")).status == 200) }
        }
        let overview = try InspectorAPITests.json(try await daemon.get("/ui/api/overview"))
        #expect(overview["hitRatio"] as? Double == 0.5, "\(overview["activity"] ?? "")")
        let activity = try #require(overview["activity"] as? [String: Int])
        #expect(activity["memoryHits"] == 6 && activity["misses"] == 6)
        #expect((activity["lookupMisses"] ?? 0) > 6, "the tiers' lookups (thumbnails and originals) are counted apart")
        let metrics = try await daemon.metrics()
        #expect(metrics["thumbd_thumbnail_responses_total{cache=\"memory\"}"] == 6 && metrics["thumbd_thumbnail_responses_total{cache=\"miss\"}"] == 6)
        try await daemon.stop()
        try await origin.shutdown()
    }
}

@Suite struct ActivityHistoryTests {
    @Test("the ring keeps an hour of deltas, oldest first, and a counter that restarts counts from zero")
    func ring() {
        let history = ActivityHistory(interval: .seconds(600))  // an hour is 6 samples
        #expect(history.capacity == 6)
        history.record(CacheActivity(memoryHits: 10))
        #expect(history.samples.isEmpty)
        for i in 1...8 {
            history.record(CacheActivity(memoryHits: 10 + i * i, misses: i), at: Date(timeIntervalSince1970: Double(i)))
        }
        #expect(history.samples.map(\.time) == [3, 4, 5, 6, 7, 8])
        #expect(history.samples.map(\.activity.memoryHits) == [5, 7, 9, 11, 13, 15])
        #expect(history.samples.map(\.activity.misses) == [1, 1, 1, 1, 1, 1])
        history.record(CacheActivity(memoryHits: 4), at: Date(timeIntervalSince1970: 9))
        #expect(history.samples.last?.activity.memoryHits == 4)
        #expect(CacheActivity(memoryHits: 3, diskHits: 1, misses: 4).hitRatio == 0.5 && CacheActivity().hitRatio == nil)
        #expect(CacheActivity(memoryHits: 1, sharedHits: 1, misses: 2, memoryLookupHits: 50, lookupMisses: 90).hitRatio == 0.5,
                "lookups do not count in the hit ratio")
    }
}
