import Foundation
import TestOrigin
import Testing

@Suite("Hits answered in the connection pipeline keep HTTP's order and semantics")
struct FastPathTests {
    @Test("Pipelined requests are answered in order: a miss, then a hit on the same connection")
    func pipelinedOrder() async throws {
        let origin = try await TestOrigin.start(routes: [
            "/slow.jpg": .image(Images.jpeg, latency: .milliseconds(300)), "/fast.jpg": .image(Images.otherJPEG),
        ])
        let daemon = try await TestDaemon.start()
        let fast = daemon.thumbnailPath(origin.url("/fast.jpg"))
        let slow = daemon.thumbnailPath(origin.url("/slow.jpg"))
        #expect(try await daemon.get(fast).header("x-cache") == "miss")
        // The hit (second) must not overtake the miss (first), though it could be answered at once.
        let request = "GET \(slow) HTTP/1.1\r\nHost: t\r\n\r\nGET \(fast) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        let raw = try await RawHTTP.exchange(port: daemon.port, request)
        let heads = raw.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(400) }
        #expect(heads.count >= 1)
        #expect(heads.first?.contains("X-Cache: miss") == true, "\(heads)")
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("A hit with Connection: close is answered, then the connection closes; 304 has no body")
    func connectionCloseAndNotModified() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let daemon = try await TestDaemon.start()
        let path = daemon.thumbnailPath(origin.url("/p.jpg"))
        let first = try await daemon.get(path)
        let etag = try #require(first.header("etag"))
        let raw = try await RawHTTP.exchange(port: daemon.port, "GET \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(raw.hasPrefix("HTTP/1.1 200 OK"))
        #expect(raw.contains("X-Cache: memory"))
        #expect(raw.contains("Date: "))
        #expect(raw.utf8.count > first.body.count)
        let notModified = try await RawHTTP.exchange(port: daemon.port,
                                                     "GET \(path) HTTP/1.1\r\nHost: t\r\nIf-None-Match: \(etag)\r\nConnection: close\r\n\r\n")
        #expect(notModified.hasPrefix("HTTP/1.1 304 Not Modified"))
        // HTTP/1.0 without keep-alive: answered in 1.0, and the connection closes at once.
        let start = ContinuousClock.now
        let old = try await RawHTTP.exchange(port: daemon.port, "GET \(path) HTTP/1.0\r\n\r\n")
        #expect(old.hasPrefix("HTTP/1.0 200 OK"))
        #expect(old.contains("Connection: close"))
        #expect(ContinuousClock.now - start < .seconds(5), "the server must close, not wait for the client's timeout")
        #expect(notModified.hasSuffix("\r\n\r\n"), "a 304 carries no body")
        try await daemon.stop()
        try await origin.shutdown()
    }
}

extension FastPathTests {
    @Test("With the memory tier off, disk hits are sent from their files: same bytes, ETag, 304, counted")
    func diskHitsFromFiles() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg), "/q.png": .image(Images.png, contentType: "image/png")])
        let daemon = try await TestDaemon.start {
            $0.memoryLimits = .init(maxBytes: 0, maxEntries: 0)
        }
        for name in ["/p.jpg", "/q.png"] {
            let path = daemon.thumbnailPath(origin.url(name), "size=72")
            let miss = try await daemon.get(path)
            #expect(miss.header("x-cache") == "miss")
            // The first disk hit reads and checks the file; later ones send it as it is.
            for _ in 0..<3 {
                let hit = try await daemon.get(path)
                #expect(hit.status == 200)
                #expect(hit.header("x-cache") == "disk")
                #expect(hit.body == miss.body)
                #expect(hit.header("etag") == miss.header("etag"))
                #expect(hit.header("content-length") == String(miss.body.count))
            }
            let notModified = try await daemon.get(path, headers: [("If-None-Match", miss.header("etag") ?? "")])
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
        }
        #expect(daemon.cache.memory.stats.entries == 0)
        let metrics = try await daemon.metrics()
        #expect(metrics[#"thumbd_thumbnail_responses_total{cache="disk"}"#] == 8)
        try await daemon.stop()
        try await origin.shutdown()
    }
}
