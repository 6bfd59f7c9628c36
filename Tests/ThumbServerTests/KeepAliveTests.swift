import Foundation
import TestOrigin
import Testing

@Suite("Misses keep the connection; a client that leaves still cancels its miss")
struct KeepAliveTests {
    @Test("Misses, an error, placeholders and a hit on one keep-alive connection, then a pipelined miss and hit")
    func missesKeepTheConnection() async throws {
        let origin = try await TestOrigin.start(routes: [
            "/a.jpg": .image(Images.jpeg), "/b.jpg": .image(Images.otherJPEG, latency: .milliseconds(300)),
            "/c.jpg": .image(Images.otherJPEG), "/gone.jpg": .status(404),
        ])
        let daemon = try await TestDaemon.start()
        let connection = try RawConnection(port: daemon.port)
        defer { connection.close() }
        func ask(_ path: String) async throws -> RawConnection.Response {
            try connection.send("GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n")
            return try await connection.response()
        }
        let miss = try await ask(daemon.thumbnailPath(origin.url("/a.jpg")))
        #expect(miss.status == 200 && miss.header("x-cache") == "miss" && miss.header("connection") == nil, "\(miss.head)")
        #expect(miss.body.starts(with: [0xFF, 0xD8]))
        let failed = try await ask(daemon.thumbnailPath(origin.url("/gone.jpg")))
        #expect(failed.status == 404 && failed.problemCode == "origin_status" && failed.header("connection") == nil, "\(failed.head)")
        let placeholderMiss = try await ask(PlaceholderTests.placeholderPath(daemon, origin.url("/c.jpg")))
        #expect(placeholderMiss.status == 200 && placeholderMiss.header("connection") == nil, "\(placeholderMiss.head)")
        let placeholderHit = try await ask(PlaceholderTests.placeholderPath(daemon, origin.url("/a.jpg")))
        #expect(placeholderHit.status == 200 && placeholderHit.header("connection") == nil)
        let hit = try await ask(daemon.thumbnailPath(origin.url("/a.jpg")))
        #expect(hit.header("x-cache") == "memory" && hit.body == miss.body)
        // Pipelined: the slow miss first, then a hit that must wait its turn; the connection stays.
        try connection.send("GET \(daemon.thumbnailPath(origin.url("/b.jpg"))) HTTP/1.1\r\nHost: t\r\n\r\n"
            + "GET \(daemon.thumbnailPath(origin.url("/a.jpg"))) HTTP/1.1\r\nHost: t\r\n\r\n")
        let first = try await connection.response()
        let second = try await connection.response()
        #expect(first.header("x-cache") == "miss" && first.body.starts(with: [0xFF, 0xD8]), "\(first.head)")
        #expect(second.header("x-cache") == "memory" && second.body == miss.body, "\(second.head)")
        #expect(try await ask(daemon.thumbnailPath(origin.url("/b.jpg"))).header("x-cache") == "memory")
        #expect(origin.requestCount("/a.jpg") == 1 && origin.requestCount("/b.jpg") == 1)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("A client that closes its keep-alive connection mid-miss cancels the download", arguments: [false, true])
    func leavingMidMissCancels(afterAnAnsweredMiss: Bool) async throws {
        let origin = try await TestOrigin.start(routes: [
            "/first.jpg": .image(Images.otherJPEG),
            "/slow.jpg": .stall(prefix: Array(Images.jpeg.prefix(100)), contentLength: Images.jpeg.count),
        ])
        // The download would end by itself only long after the wait below.
        let daemon = try await TestDaemon.start { $0.download.totalTimeout = .seconds(120) }
        let connection = try RawConnection(port: daemon.port)
        if afterAnAnsweredMiss {
            try connection.send("GET \(daemon.thumbnailPath(origin.url("/first.jpg"))) HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await connection.response().status == 200)
        }
        try connection.send("GET \(daemon.thumbnailPath(origin.url("/slow.jpg"))) HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(await origin.waitForRequests("/slow.jpg", count: 1, timeout: .seconds(20)))
        connection.close()
        #expect(await origin.waitForEarlyClose("/slow.jpg", timeout: .seconds(10)), "the origin should see its connection closed")
        let deadline = ContinuousClock.now + .seconds(10)
        while daemon.daemon.pipeline.jobsInFlight > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(daemon.daemon.pipeline.jobsInFlight == 0)
        try await daemon.stop()
        try await origin.shutdown()
    }
}
