import Foundation
import TestOrigin
import Testing

/// Hits answered from the connection's bytes (`RawHitAnswerer`) before NIO's decoder: the same
/// response as the decoded path, in request order with everything NIO answers, however the
/// requests arrive.
@Suite("Hits answered before HTTP decoding keep the same answers and their order")
struct RawHitPathTests {
    static func head(_ path: String, _ extra: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: t\r\n\(extra)\r\n"
    }

    /// The response's head fields other than those that differ by request (Date) or connection.
    static func fields(_ response: RawConnection.Response) -> [String] {
        response.head.components(separatedBy: "\r\n").dropFirst()
            .filter { !$0.lowercased().hasPrefix("date:") && !$0.lowercased().hasPrefix("connection:") }.sorted()
    }

    @Test("A raw hit is the decoded path's response, byte for byte but for Date, and 304 alike")
    func sameResponseBothWays() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let daemon = try await TestDaemon.start()
        let path = daemon.thumbnailPath(origin.url("/p.jpg"))
        #expect(try await daemon.get(path).header("x-cache") == "miss")
        let connection = try RawConnection(port: daemon.port)
        defer { connection.close() }
        try connection.send(Self.head(path))
        let raw = try await connection.response()
        // Connection: close keeps a request out of the raw path.
        try connection.send(Self.head(path, "Connection: close\r\n"))
        let decoded = try await connection.response()
        #expect(raw.status == 200 && decoded.status == 200)
        #expect(raw.head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(Self.fields(raw) == Self.fields(decoded))
        #expect(raw.body == decoded.body)
        #expect(raw.header("x-cache") == "memory")
        #expect(raw.header("date") != nil)

        let etag = try #require(raw.header("etag"))
        let again = try RawConnection(port: daemon.port)
        defer { again.close() }
        try again.send(Self.head(path, "If-None-Match: \(etag)\r\n"))
        let notModified = try await again.response()
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("Hits pipelined behind a slow miss wait for it; hits before it leave at once")
    func pipelinedOrder() async throws {
        let origin = try await TestOrigin.start(routes: [
            "/hot.jpg": .image(Images.jpeg), "/slow.jpg": .image(Images.otherJPEG, latency: .milliseconds(400)),
        ])
        let daemon = try await TestDaemon.start()
        let hot = daemon.thumbnailPath(origin.url("/hot.jpg"))
        let slow = daemon.thumbnailPath(origin.url("/slow.jpg"))
        #expect(try await daemon.get(hot).status == 200)
        let connection = try RawConnection(port: daemon.port)
        defer { connection.close() }
        try connection.send(Self.head(hot) + Self.head(slow) + Self.head(hot) + Self.head("/v1/cache/stats") + Self.head(hot))
        var tiers: [String] = []
        for _ in 0..<5 { tiers.append(try await connection.response().header("x-cache") ?? "none") }
        #expect(tiers == ["memory", "miss", "memory", "none", "memory"])
        // And the connection goes on in the raw path afterwards.
        try connection.send(Self.head(hot))
        #expect(try await connection.response().header("x-cache") == "memory")
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("Requests cut anywhere, a byte at a time, are answered whole")
    func requestsCutAnywhere() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let daemon = try await TestDaemon.start()
        let path = daemon.thumbnailPath(origin.url("/p.jpg"))
        let expected = try await daemon.get(path).body
        let connection = try RawConnection(port: daemon.port)
        defer { connection.close() }
        let twice = Array((Self.head(path) + Self.head(path, "Accept: image/jpeg\r\n")).utf8)
        try await onThread {
            for byte in twice {
                try connection.send(bytes: [byte])
                usleep(200)
            }
        }
        #expect(try await connection.response().body == expected)
        #expect(try await connection.response().body == expected)
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("After a request with a body the decoder reads the connection, and hits are still answered")
    func bodyHandsTheConnectionToTheDecoder() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let daemon = try await TestDaemon.start()
        let path = daemon.thumbnailPath(origin.url("/p.jpg"))
        #expect(try await daemon.get(path).status == 200)
        let connection = try RawConnection(port: daemon.port)
        defer { connection.close() }
        try connection.send("GET \(path) HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello" + Self.head(path))
        let first = try await connection.response()
        let second = try await connection.response()
        #expect(first.status == 200 && second.status == 200)
        #expect(second.header("x-cache") == "memory")
        try await daemon.stop()
        try await origin.shutdown()
    }
}
