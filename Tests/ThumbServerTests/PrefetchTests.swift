import ThumbVariant
import AsyncHTTPClient
import Foundation
import NIOCore
import TestOrigin
import Testing
import ThumbCache
import ThumbPipeline

@Suite("Prefetch jobs")
struct PrefetchTests {
    static func page(_ origin: TestOrigin, products: [[String: Any]], number: Int = 1, hasNext: Bool = false) -> [String: Any] {
        ["page_no": number, "pages": products, "has_next": hasNext]
    }

    @Test("A page of 100 products: every thumbnail cached, counts add up; a second run downloads nothing")
    func pageOfHundred() async throws {
        var routes: [String: OriginRoute] = [:]
        for index in 0..<100 { routes["/p\(index).jpg"] = .image(Images.jpeg) }
        let origin = try await TestOrigin.start(routes: routes)
        let daemon = try await TestDaemon.start()
        let products: [[String: Any]] = (0..<100).map { ["thumbnail": origin.url("/p\($0).jpg"), "images": [["url": origin.url("/big\($0).jpg")]]] }
        let accepted = try await PrefetchJobs.post(daemon, Self.page(origin, products: products).merging(["size": 96]) { $1 })
        #expect(accepted.status == 202)
        let first = try PrefetchJobs.status(accepted)
        #expect(accepted.header("location") == "/v1/prefetch/\(first.id)")
        let done = try await PrefetchJobs.wait(daemon, first.id)
        #expect(done.state == .finished)
        #expect(done.total == 100)
        #expect(done.done == 100)
        #expect(done.failed == 0 && done.alreadyCached == 0 && done.cancelled == 0)
        #expect(done.bytes > 0)
        // Every item's placeholder, for laying the page out before any thumbnail loads.
        let placeholders = done.placeholders ?? []
        #expect(Set(placeholders.map(\.url)) == Set((0..<100).map { origin.url("/p\($0).jpg") }))
        #expect(placeholders.allSatisfy { $0.width == 640 && $0.height == 480 && $0.thumbhash != nil })
        for index in 0..<100 {
            let key = try CacheKey(url: origin.url("/p\(index).jpg"), variant: Variant(size: 96, gravity: .smart).cacheVariant)
            #expect(daemon.cache.get(key) != nil)
        }
        #expect(origin.totalRequests == 100, "thumbnails only: detail images are not fetched unless asked")

        let again = try PrefetchJobs.status(try await PrefetchJobs.post(daemon, Self.page(origin, products: products).merging(["size": 96]) { $1 }))
        let second = try await PrefetchJobs.wait(daemon, again.id)
        #expect(second.alreadyCached == 100)
        #expect(second.placeholders?.count == 100, "cached items carry their placeholders too")
        #expect(second.done == 0)
        #expect(origin.totalRequests == 100)
        let listed = try JSONSerialization.jsonObject(with: Data(try await daemon.get("/v1/prefetch").body)) as? [String: Any]
        #expect((listed?["jobs"] as? [Any])?.count == 2)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("sizes: each photo is downloaded once and decoded once for all its sizes; each size counts as a thumbnail")
    func severalSizesShareOneDecode() async throws {
        var routes: [String: OriginRoute] = [:]
        // Slow enough that every size of a photo has joined its decode before the bytes arrive.
        for index in 0..<3 { routes["/m\(index).jpg"] = .image(Images.jpeg, latency: .milliseconds(500)) }
        let origin = try await TestOrigin.start(routes: routes)
        let daemon = try await TestDaemon.start()
        let urls = (0..<3).map { origin.url("/m\($0).jpg") }
        let sizes: [Any] = [64, 128, "256x192"]
        let job = try PrefetchJobs.status(try await PrefetchJobs.post(daemon, ["urls": urls, "sizes": sizes, "gravity": "center"]))
        #expect(job.total == 9)
        let done = try await PrefetchJobs.wait(daemon, job.id)
        #expect(done.state == .finished && done.done == 9 && done.failed == 0, "\(done.failures)")
        #expect(done.placeholders?.count == 3, "one placeholder a photo")
        #expect(origin.totalRequests == 3)
        let metrics = try await daemon.metrics()
        #expect(metrics["thumbd_decode_seconds_count"] == 3)
        #expect(metrics["thumbd_shared_decodes_total"] == 6)
        for url in urls {
            for (width, height) in [(64, 64), (128, 128), (256, 192)] {
                let key = try CacheKey(url: url, variant: Variant(width: width, height: height, gravity: .center).cacheVariant)
                #expect(daemon.cache.get(key) != nil, "\(url) at \(width)x\(height)")
            }
        }
        let problems: [[String: Any]] = [
            ["urls": urls, "size": 64, "sizes": [128]],
            ["urls": urls, "sizes": []],
            ["urls": urls, "sizes": Array(1...9)],
            ["urls": urls, "sizes": [128, 128]],
            ["urls": urls, "sizes": 128],
            ["urls": urls, "sizes": [true]],
        ]
        // Two spellings of one box are one thumbnail.
        let alike = try PrefetchJobs.status(try await PrefetchJobs.post(daemon, ["urls": [urls[0]], "sizes": [64, "64x64"], "gravity": "center"]))
        #expect(alike.total == 1)
        for body in problems {
            let reply = try await PrefetchJobs.post(daemon, body)
            #expect(reply.status == 400 && reply.problemCode == "invalid_parameter", "\(body)")
        }
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("Cancelling a job of 500 slow URLs stops new downloads at once and closes the ones nobody else waits for")
    func cancelStopsDownloads() async throws {
        var routes: [String: OriginRoute] = [:]
        for index in 0..<500 { routes["/s\(index).jpg"] = .image(Images.jpeg, latency: .seconds(3)) }
        let origin = try await TestOrigin.start(routes: routes)
        let daemon = try await TestDaemon.start()
        let urls = (0..<500).map { origin.url("/s\($0).jpg") }
        let job = try PrefetchJobs.status(try await PrefetchJobs.post(daemon, ["urls": urls, "size": 64]))
        #expect(await origin.waitForTotalRequests(count: 6, timeout: .seconds(20)))
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(daemon.port)/v1/prefetch/\(job.id)")
        request.method = .DELETE
        let cancelledAt = ContinuousClock.now
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        #expect(response.status.code == 200)
        // The answer is the job's last report, sent once its work has stopped: the counts add up.
        let final = try PrefetchJobs.status(Reply(status: 200, headers: response.headers,
                                          body: Array(try await response.body.collect(upTo: 16 << 20).readableBytesView)))
        #expect(final.state == .cancelled)
        #expect(final.done + final.alreadyCached + final.failed + final.cancelled == final.total)
        #expect(final.cancelled == 500)
        try await Task.sleep(for: .milliseconds(800))
        let last = try #require(origin.lastRequestTime())
        #expect(last - cancelledAt < .milliseconds(200), "origin requests went on \(last - cancelledAt) after the DELETE")
        let received = origin.totalRequests
        // The origin sees each close when its event loop gets to it: on a loaded machine, later.
        var closed = 0
        let closesBy = ContinuousClock.now + .seconds(10)
        repeat {
            closed = (0..<500).reduce(0) { $0 + origin.earlyCloses("/s\($1).jpg") }
            if closed < received { try await Task.sleep(for: .milliseconds(50)) }
        } while closed < received && ContinuousClock.now < closesBy
        #expect(closed == received, "every download in flight was closed (\(closed) of \(received))")
        // A deleted job is forgotten.
        #expect(try await daemon.get("/v1/prefetch/\(job.id)").problemCode == "not_found")
        try await daemon.stop()
        try await origin.shutdown()
    }

    /// A job cancelled without DELETE stays listed: it says running until its work has stopped,
    /// so every report that says otherwise has counts that add up.
    @Test("After a cancel, a job reports running until its work has stopped, then cancelled with counts that add up")
    func cancelledReportsAddUp() async throws {
        var routes: [String: OriginRoute] = [:]
        for index in 0..<30 { routes["/c\(index).jpg"] = .image(Images.jpeg, latency: .milliseconds(700)) }
        let origin = try await TestOrigin.start(routes: routes)
        let daemon = try await TestDaemon.start()
        let job = try PrefetchJobs.status(try await PrefetchJobs.post(daemon, ["urls": (0..<30).map { origin.url("/c\($0).jpg") }, "sizes": [64, 96]]))
        #expect(await origin.waitForTotalRequests(count: 4, timeout: .seconds(20)))
        _ = daemon.daemon.prefetcher.cancel(job.id)
        var last = job
        for _ in 0..<200 {
            last = try PrefetchJobs.status(try await daemon.get("/v1/prefetch/\(job.id)"))
            if last.state != .running { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(last.state == .cancelled)
        #expect(last.done + last.alreadyCached + last.failed + last.cancelled == last.total && last.total == 60, "\(last)")
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("An interactive request for a URL being prefetched joins that job: one origin request")
    func interactiveJoinsPrefetch() async throws {
        let origin = try await TestOrigin.start(routes: ["/j.jpg": .image(Images.jpeg, latency: .milliseconds(800))])
        let daemon = try await TestDaemon.start()
        let url = origin.url("/j.jpg")
        let job = try PrefetchJobs.status(try await PrefetchJobs.post(daemon, ["urls": [url], "size": 80, "format": "jpeg"]))
        #expect(await origin.waitForRequests("/j.jpg", count: 1, timeout: .seconds(20)))
        let reply = try await daemon.get(daemon.thumbnailPath(url, "size=80&format=jpeg"))
        #expect(reply.status == 200)
        #expect(reply.body.starts(with: [0xFF, 0xD8]))
        let final = try await PrefetchJobs.wait(daemon, job.id)
        #expect(final.done == 1)
        #expect(origin.requestCount("/j.jpg") == 1)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("page_url follows has_next for exactly N pages, and stops at has_next: false")
    func pageURLFollowsPages() async throws {
        var routes: [String: OriginRoute] = [:]
        let origin = try await TestOrigin.start()
        for number in 1...4 {
            let products: [[String: Any]] = (0..<3).map { ["thumbnail": origin.url("/pg\(number)-\($0).jpg")] }
            let page: [String: Any] = ["page_no": number, "pages": products, "has_next": number < 3]
            routes["/list?page_no=\(number)"] = .body(bytes: Array(try JSONSerialization.data(withJSONObject: page)), contentType: "application/json")
            for index in 0..<3 { routes["/pg\(number)-\(index).jpg"] = .image(Images.jpeg) }
        }
        for (path, route) in routes { origin.setRoute(path, route) }
        let daemon = try await TestDaemon.start()

        let two = try PrefetchJobs.status(try await PrefetchJobs.post(daemon, ["page_url": origin.url("/list?page_no=1"), "pages": 2, "size": 48]))
        let twoDone = try await PrefetchJobs.wait(daemon, two.id)
        #expect(twoDone.pagesFetched == 2)
        #expect(twoDone.done == 6)
        #expect(origin.requestCount("/list") == 2)
        #expect(origin.requests("/list").map(\.uri) == ["/list?page_no=1", "/list?page_no=2"])

        let five = try PrefetchJobs.status(try await PrefetchJobs.post(daemon, ["page_url": origin.url("/list?page_no=1"), "pages": 5, "size": 48]))
        let fiveDone = try await PrefetchJobs.wait(daemon, five.id)
        #expect(fiveDone.pagesFetched == 3, "page 3 says has_next: false")
        #expect(fiveDone.total == 9)
        #expect(fiveDone.alreadyCached == 6 && fiveDone.done == 3)
        #expect(origin.requests("/list").map(\.uri).suffix(3) == ["/list?page_no=1", "/list?page_no=2", "/list?page_no=3"])
        #expect(origin.requestCount("/list") == 5)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("Broken entries are listed as failures with their codes, and the rest is made")
    func brokenEntries() async throws {
        let origin = try await TestOrigin.start(routes: [
            "/ok1.jpg": .image(Images.jpeg), "/ok2.png": .image(Images.png, contentType: "image/png"),
            "/missing.jpg": .status(404), "/corrupt.png": .image(Images.corruptPNG, contentType: "image/png"),
        ])
        let daemon = try await TestDaemon.start()
        let products: [[String: Any]] = [
            ["thumbnail": origin.url("/ok1.jpg")], ["images": []], ["thumbnail": "not a url"],
            ["thumbnail": origin.url("/missing.jpg")], ["thumbnail": origin.url("/corrupt.png")], ["thumbnail": origin.url("/ok2.png")],
            ["thumbnail": origin.url("/ok1.jpg")],
        ]
        let job = try PrefetchJobs.status(try await PrefetchJobs.post(daemon, Self.page(origin, products: products)))
        let final = try await PrefetchJobs.wait(daemon, job.id)
        #expect(final.total == 6, "the duplicate is made once")
        #expect(final.done == 2)
        #expect(final.failed == 4)
        #expect(Set(final.failures.map(\.code)) == ["missing_url", "invalid_url", "origin_status", "corrupt_image"])
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("Limits: too many URLs is 413, too many jobs at once is 429, bad bodies are 400")
    func limits() async throws {
        let origin = try await TestOrigin.start(routes: ["/slow.jpg": .image(Images.jpeg, latency: .seconds(2))])
        let daemon = try await TestDaemon.start { $0.prefetch.maxURLsPerJob = 10; $0.prefetch.maxActiveJobs = 1 }
        let tooMany = try await PrefetchJobs.post(daemon, ["urls": (0..<11).map { origin.url("/x\($0).jpg") }])
        #expect(tooMany.status == 413)
        #expect(tooMany.problemCode == "too_many_urls")
        let running = try PrefetchJobs.status(try await PrefetchJobs.post(daemon, ["urls": [origin.url("/slow.jpg")]]))
        let refused = try await PrefetchJobs.post(daemon, ["urls": [origin.url("/other.jpg")]])
        #expect(refused.status == 429)
        #expect(refused.problemCode == "too_many_jobs")
        #expect(try await PrefetchJobs.post(daemon, ["nothing": 1]).problemCode == "invalid_parameter")
        #expect(try await PrefetchJobs.post(daemon, ["urls": [origin.url("/a.jpg")], "size": 0]).problemCode == "invalid_parameter")
        #expect(try await daemon.get("/v1/prefetch/nope").status == 404)
        _ = try await PrefetchJobs.wait(daemon, running.id)
        try await daemon.stop()
        try await origin.shutdown()
    }
}

extension PrefetchTests {
    @Test("Finished jobs are kept for prefetch.keep_finished, then dropped")
    func finishedJobsExpire() async throws {
        let origin = try await TestOrigin.start(routes: ["/a.jpg": .image(Images.jpeg)])
        // Long enough that a loaded machine still polls the finished job before it goes.
        let daemon = try await TestDaemon.start { $0.prefetch.keepFinished = .seconds(6) }
        let job = try PrefetchJobs.status(try await PrefetchJobs.post(daemon, ["urls": [origin.url("/a.jpg")]]))
        _ = try await PrefetchJobs.wait(daemon, job.id)
        #expect(try await daemon.get("/v1/prefetch/\(job.id)").status == 200)
        try await Task.sleep(for: .seconds(7))
        #expect(try await daemon.get("/v1/prefetch/\(job.id)").status == 404)
        try await daemon.stop()
        try await origin.shutdown()
    }
}

extension PrefetchTests {
    @Test("Already-cached URLs are counted without reading them or pushing them into the memory tier")
    func cachedURLsAreNotPromoted() async throws {
        let origin = try await TestOrigin.start(routes: ["/a.jpg": .image(Images.jpeg), "/b.jpg": .image(Images.otherJPEG)])
        let directory = try TestDaemon.temporaryDirectory()
        let urls = [origin.url("/a.jpg"), origin.url("/b.jpg")]
        let first = try await TestDaemon.start(cacheDirectory: directory)
        let made = try await PrefetchJobs.wait(first, try PrefetchJobs.status(try await PrefetchJobs.post(first, ["urls": urls])).id)
        #expect(made.done == 2)
        try await first.stop()

        let second = try await TestDaemon.start(cacheDirectory: directory)
        let again = try await PrefetchJobs.wait(second, try PrefetchJobs.status(try await PrefetchJobs.post(second, ["urls": urls])).id)
        #expect(again.alreadyCached == 2)
        #expect(second.cache.memory.stats.entries == 0, "a prefetch of cached URLs must not fill the memory tier")
        #expect(second.cache.disk?.activity.hits == 0, "nor read their files")
        #expect(origin.totalRequests == 2)
        try await second.stop()
        try await origin.shutdown()
    }
}

extension PrefetchTests {
    @Test("DELETE forgets a job, running or ended: then GET and DELETE of its id are 404 and the listing lacks it")
    func deletedJobsAreForgotten() async throws {
        let origin = try await TestOrigin.start(routes: ["/a.jpg": .image(Images.jpeg)])
        let daemon = try await TestDaemon.start()
        let job = try PrefetchJobs.status(try await PrefetchJobs.post(daemon, ["urls": [origin.url("/a.jpg")], "size": 64]))
        let ended = try await PrefetchJobs.wait(daemon, job.id)
        #expect(ended.state == .finished && ended.done == 1)
        let deleted = try await daemon.get("/v1/prefetch/\(job.id)", method: .DELETE)
        #expect(deleted.status == 200)
        // An ended job is reported as it ended, not as cancelled.
        let report = try PrefetchJobs.status(deleted)
        #expect(report.id == job.id && report.state == .finished && report.done == 1)
        let after = try await daemon.get("/v1/prefetch/\(job.id)")
        #expect(after.status == 404 && after.problemCode == "not_found")
        let again = try await daemon.get("/v1/prefetch/\(job.id)", method: .DELETE)
        #expect(again.status == 404 && again.problemCode == "not_found")
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(try await daemon.get("/v1/prefetch").body)) as? [String: Any])
        let ids = ((listing["jobs"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        #expect(!ids.contains(job.id), "the deleted job is still listed: \(ids)")
        #expect(try await daemon.get("/v1/prefetch/0123456789ab", method: .DELETE).problemCode == "not_found")
        try await daemon.stop()
        try await origin.shutdown()
    }
}
