import Foundation
import TestOrigin
import Testing

@Suite("/metrics, /healthz and the cache listing")
struct MetricsAndStatsTests {
    @Test("/metrics parses as Prometheus text and its counters move")
    func metricsMove() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg), "/gone.jpg": .status(404)])
        let daemon = try await TestDaemon.start()
        let before = try await daemon.metrics()
        #expect(before[#"thumbd_thumbnail_responses_total{cache="miss"}"#] == 0)

        let path = daemon.thumbnailPath(origin.url("/p.jpg"))
        _ = try await daemon.get(path)
        _ = try await daemon.get(path)
        _ = try await daemon.get(path)
        _ = try await daemon.get(daemon.thumbnailPath(origin.url("/gone.jpg")))
        let reply = try await daemon.get("/metrics")
        #expect(reply.header("content-type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let after = try PrometheusText.parse(reply.body)
        #expect(after[#"thumbd_thumbnail_responses_total{cache="miss"}"#] == 1)
        #expect(after[#"thumbd_thumbnail_responses_total{cache="memory"}"#] == 2)
        #expect(after[#"thumbd_download_errors_total{code="origin_status"}"#] == 1)
        #expect((after["thumbd_download_bytes_total"] ?? 0) >= Double(Images.jpeg.count))
        #expect(after[#"thumbd_cache_entries{tier="memory"}"#] == 1)
        #expect(after[#"thumbd_cache_entries{tier="disk"}"#] == 1)
        // The original is kept once the decode has called it an image, after the answer went out.
        let kept = try await daemon.metrics(within: .seconds(5)) { $0[#"thumbd_cache_entries{tier="originals"}"#] == 1 }
        #expect(kept[#"thumbd_cache_entries{tier="originals"}"#] == 1)
        #expect((after[#"thumbd_cache_hits_total{tier="memory"}"#] ?? 0) >= 2)
        // cache.fsync: batch (the default) flushes the new files within about a second.
        let flushed = try await daemon.metrics(within: .seconds(5)) { ($0[#"thumbd_cache_flushes_total{result="ok"}"#] ?? 0) >= 1 }
        #expect((flushed[#"thumbd_cache_flushes_total{result="ok"}"#] ?? 0) >= 1)
        #expect(flushed[#"thumbd_cache_flushes_total{result="failed"}"#] == 0)
        #expect(after["thumbd_decode_seconds_count"] == 1)
        #expect(after["thumbd_resize_seconds_count"] == 1)
        #expect(after["thumbd_encode_seconds_count"] == 1)
        #expect(after["thumbd_downloads_in_flight"] == 0)
        #if os(Linux)
        #expect((after["thumbd_heap_in_use_bytes"] ?? 0) > 0)
        #expect((after["thumbd_heap_from_system_bytes"] ?? 0) >= (after["thumbd_heap_in_use_bytes"] ?? .infinity))
        #endif
        #expect((after[#"thumbd_http_request_duration_seconds_count{route="thumbnail",status="2xx"}"#] ?? 0) == 3)
        #expect((after[#"thumbd_http_request_duration_seconds_count{route="thumbnail",status="4xx"}"#] ?? 0) == 1)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("/healthz, /v1/cache/stats and /v1/cache/entries answer JSON")
    func statsAndEntries() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg), "/q.png": .image(Images.png, contentType: "image/png")])
        let daemon = try await TestDaemon.start()
        #expect(try await daemon.get("/healthz").status == 200)
        _ = try await daemon.get(daemon.thumbnailPath(origin.url("/p.jpg"), "size=64"))
        _ = try await daemon.get(daemon.thumbnailPath(origin.url("/q.png"), "size=32"))
        let stats = try JSONSerialization.jsonObject(with: Data(try await daemon.get("/v1/cache/stats").body)) as? [String: Any]
        #expect((stats?["memory"] as? [String: Any])?["entries"] as? Int == 2)
        #expect(stats?["disk"] != nil)
        #expect((stats?["pipeline"] as? [String: Any])?["workerThreads"] as? Int == 2)

        let listing = try await daemon.get("/v1/cache/entries?sort=size&limit=10")
        #expect(listing.status == 200)
        let object = try JSONSerialization.jsonObject(with: Data(listing.body)) as? [String: Any]
        let entries = try #require(object?["entries"] as? [[String: Any]])
        // Two thumbnails and the two kept originals, largest first.
        #expect(entries.count == 4)
        let sizes = entries.compactMap { $0["size"] as? Int }
        #expect(sizes == sizes.sorted(by: >))
        #expect(try await daemon.get("/v1/cache/entries?sort=colour").problemCode == "invalid_parameter")
        try await daemon.stop()
        try await origin.shutdown()
    }
}
