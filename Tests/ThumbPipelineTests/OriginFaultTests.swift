import DaemonTestSupport
import Foundation
import Testing
import TestOrigin
import ThumbCache

@Suite("Origin faults: each with its problem code, nothing cached, no download slot held")
struct OriginFaultTests {
    struct Fault: Sendable, CustomTestStringConvertible {
        let name: String
        let route: OriginRoute
        let status: Int
        let code: String
        /// Short only where the timeout is the fault; elsewhere long enough for a loaded machine.
        var timeout: Duration = .seconds(15)
        /// More routes the fault needs (the hops of a redirect chain).
        var otherRoutes: [String: OriginRoute] = [:]
        var testDescription: String { name }
    }

    /// `/hop/0` redirects to `/hop/1`, and so on to `/hop/{count}`, the photo: distinct URLs, no loop.
    static func redirectChain(_ count: Int) -> [String: OriginRoute] {
        var routes: [String: OriginRoute] = ["/hop/\(count)": .image(Images.jpeg)]
        for hop in 0..<count { routes["/hop/\(hop)"] = .redirect(to: "/hop/\(hop + 1)") }
        return routes
    }

    static let faults: [Fault] = [
        Fault(name: "404", route: .status(404), status: 404, code: "origin_status"),
        Fault(name: "500", route: .status(500), status: 502, code: "origin_status"),
        Fault(name: "slow headers (timeout)", route: .delayedStatus(200, latency: .seconds(10)), status: 504, code: "origin_timeout",
              timeout: .milliseconds(1500)),
        Fault(name: "a body that stalls", route: .stall(prefix: Array(Images.jpeg.prefix(500)), contentLength: Images.jpeg.count),
              status: 504, code: "origin_timeout", timeout: .milliseconds(1500)),
        Fault(name: "a truncated body", route: .truncated(bytes: Array(Images.jpeg.prefix(2000)), declaredLength: Images.jpeg.count),
              status: 502, code: "origin_truncated"),
        Fault(name: "a body over the cap (announced)", route: .sized(length: 3_000_000, contentType: "image/jpeg"),
              status: 413, code: "origin_too_large"),
        Fault(name: "a body over the cap (streamed, no length)", route: .endless(chunk: 256 * 1024), status: 413, code: "origin_too_large"),
        // Cut at the declared length (the rest is no part of the response): a JPEG without its end.
        Fault(name: "a body longer than its Content-Length", route: .overlong(bytes: Images.jpeg, declaredLength: 2000),
              status: 422, code: "truncated_image"),
        // Chunked and endless, but slow: 10 KiB a second meets the timeout long before the byte cap.
        Fault(name: "a chunked body that never ends, slowly", route: .endless(chunk: 1024, every: .milliseconds(100)),
              status: 504, code: "origin_timeout", timeout: .milliseconds(1500)),
        Fault(name: "a body that drips one byte a second", route: .drip(bytes: Images.jpeg, every: .seconds(1)),
              status: 504, code: "origin_timeout", timeout: .milliseconds(1500)),
        Fault(name: "a redirect loop", route: .redirect(to: "/fault"), status: 502, code: "too_many_redirects"),
        Fault(name: "a chain of 20 redirects (distinct URLs)", route: .redirect(to: "/hop/0"), status: 502, code: "too_many_redirects",
              otherRoutes: redirectChain(20)),
        // Over thumbd's 32 KiB, under NIO's 80 KiB: refused by the downloader's own check.
        Fault(name: "64 KiB of response headers", route: .withHeaders(OriginHeader.filler(count: 64, valueLength: 1024), .image(Images.jpeg)),
              status: 502, code: "origin_headers_too_large"),
        // Over NIO's 80 KiB: refused by the HTTP parser, the same code.
        Fault(name: "128 KiB of response headers", route: .withHeaders(OriginHeader.filler(count: 128, valueLength: 1024), .image(Images.jpeg)),
              status: 502, code: "origin_headers_too_large"),
        Fault(name: "a redirect to the metadata address", route: .redirect(to: "http://169.254.169.254/latest/meta-data/"),
              status: 403, code: "destination_blocked"),
        Fault(name: "a redirect to 127.0.0.2 (not allow-listed)", route: .redirect(to: "http://127.0.0.2:9/x.jpg"),
              status: 403, code: "destination_blocked"),
        Fault(name: "a non-image body", route: .body(bytes: Array("<html>not an image</html>".utf8), contentType: "image/jpeg"),
              status: 415, code: "unsupported_format"),
        Fault(name: "a corrupt image", route: .body(bytes: Images.corruptPNG, contentType: "image/png"),
              status: 422, code: "corrupt_image"),
    ]

    @Test("Origin fault", arguments: faults)
    func fault(_ fault: Fault) async throws {
        var routes = fault.otherRoutes
        routes["/fault"] = fault.route
        routes[FaultAftermath.goodPath] = .image(Images.jpeg)
        let origin = try await TestOrigin.start(routes: routes)
        let daemon = try await FaultAftermath.faultDaemon(timeout: fault.timeout)
        let reply = try await daemon.get(daemon.thumbnailPath(origin.url("/fault")))
        try FaultAftermath.expect(reply, status: fault.status, code: fault.code, daemon: daemon)
        try await FaultAftermath.expectSlotFree(daemon: daemon, goodURL: origin.url(FaultAftermath.goodPath))
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("A redirect chain stops at max_redirects: the hops after it are never asked for")
    func redirectChainStopsAtTheLimit() async throws {
        let origin = try await TestOrigin.start(routes: Self.redirectChain(20))
        let daemon = try await FaultAftermath.faultDaemon()
        let reply = try await daemon.get(daemon.thumbnailPath(origin.url("/hop/0")))
        try FaultAftermath.expect(reply, status: 502, code: "too_many_redirects", daemon: daemon)
        // The first URL and five redirects, each asked once.
        #expect(origin.allRequests.map(\.path) == (0...5).map { "/hop/\($0)" })
        try await daemon.stop()
        // The same chain is good when the limit allows 20 hops: the fault above is the count alone.
        let patient = try await FaultAftermath.faultDaemon { $0.download.maxRedirects = 20 }
        #expect(try await patient.get(patient.thumbnailPath(origin.url("/hop/0"))).status == 200)
        try await patient.stop()
        try await origin.shutdown()
    }

    @Test("An image behind a wrong Content-Type works: the format comes from the bytes")
    func wrongContentType() async throws {
        let origin = try await TestOrigin.start(routes: ["/photo": .body(bytes: Images.png, contentType: "text/plain")])
        let daemon = try await TestDaemon.start()
        let reply = try await daemon.get(daemon.thumbnailPath(origin.url("/photo"), "size=50&format=jpeg"))
        #expect(reply.status == 200)
        #expect(reply.header("content-type") == "image/jpeg")
        #expect(reply.body.starts(with: [0xFF, 0xD8]))
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("Without an allow-list entry, loopback origins are refused before any connection")
    func loopbackRefusedByDefault() async throws {
        let origin = try await TestOrigin.start(routes: ["/photo.jpg": .image(Images.jpeg)])
        let daemon = try await TestDaemon.start { $0.download.policy = .init() }
        let reply = try await daemon.get(daemon.thumbnailPath(origin.url("/photo.jpg")))
        #expect(reply.status == 403)
        #expect(reply.problemCode == "destination_blocked")
        #expect(origin.totalRequests == 0)
        try await daemon.stop()
        try await origin.shutdown()
    }
}
