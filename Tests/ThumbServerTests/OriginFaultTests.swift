import Foundation
import TestOrigin
import Testing
import ThumbCache

@Suite("Origin faults: each with its problem code, nothing cached")
struct OriginFaultTests {
    struct Fault: Sendable, CustomTestStringConvertible {
        let name: String
        let route: OriginRoute
        let status: Int
        let code: String
        /// Short only where the timeout is the fault; elsewhere long enough for a loaded machine.
        var timeout: Duration = .seconds(15)
        var testDescription: String { name }
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
        Fault(name: "a redirect loop", route: .redirect(to: "/fault"), status: 502, code: "too_many_redirects"),
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
        let origin = try await TestOrigin.start(routes: ["/fault": fault.route])
        let daemon = try await TestDaemon.start {
            $0.download.maxBytes = 1_000_000
            $0.download.totalTimeout = fault.timeout
        }
        let reply = try await daemon.get(daemon.thumbnailPath(origin.url("/fault")))
        #expect(reply.status == fault.status)
        #expect(reply.problemCode == fault.code)
        #expect(reply.header("content-type") == "application/problem+json")
        #expect(daemon.cache.memory.stats.entries == 0)
        #expect(try daemon.cache.disk?.entries().isEmpty == true)
        try await daemon.stop()
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
