import AsyncHTTPClient
import Foundation
import ImageCodecs
import ImageCore
import Logging
import NIOCore
import NIOHTTP1
import NetworkGuard
import TestSupport
import ThumbCache
import ThumbServer

/// A daemon running inside the test process on an ephemeral port, with its own temporary cache
/// directory and the loopback origin (127.0.0.1 only) allow-listed.
public final class TestDaemon: Sendable {
    public let daemon: Daemon
    public let port: Int
    public let cacheDirectory: URL?
    private let task: Task<Void, any Error>

    public static func start(cacheDirectory: URL? = nil, memoryOnly: Bool = false,
                      _ configure: (inout DaemonSettings) -> Void = { _ in }) async throws -> TestDaemon {
        var settings = DaemonSettings()
        settings.server.port = 0
        settings.server.accessLog = false
        settings.server.drainGrace = .zero
        settings.server.drainTimeout = .seconds(5)
        settings.download.policy = AddressPolicy(allowNetworks: [CIDR("127.0.0.1/32")!])
        settings.download.totalTimeout = .seconds(15)
        settings.pipeline.workerThreads = 2
        settings.cacheDirectory = memoryOnly ? nil : try (cacheDirectory ?? temporaryDirectory())
        configure(&settings)
        var logger = Logger(label: "thumbd-test")
        logger.logLevel = .error
        let daemon = try Daemon(settings: settings, logger: logger)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let task = Task { try await daemon.run { port in continuation.yield(port) } }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestFailure("the daemon did not start") }
        return TestDaemon(daemon: daemon, port: port, cacheDirectory: settings.cacheDirectory, task: task)
    }

    private init(daemon: Daemon, port: Int, cacheDirectory: URL?, task: Task<Void, any Error>) {
        self.daemon = daemon
        self.port = port
        self.cacheDirectory = cacheDirectory
        self.task = task
    }

    public func stop() async throws {
        await daemon.stop()
        try await task.value
    }

    public var cache: TwoTierCache { daemon.cache }

    /// `/v1/thumbnail?url=…` with the other parameters given.
    public func thumbnailPath(_ url: String, _ extra: String = "size=64") -> String {
        "/v1/thumbnail?url=\(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" + (extra.isEmpty ? "" : "&\(extra)")
    }

    /// `/metrics`, parsed strictly (`PrometheusText`).
    public func metrics() async throws -> [String: Double] {
        try PrometheusText.parse(try await get("/metrics").body)
    }

    /// Scrapes `/metrics` until `done` holds for them or `timeout` passes (what the daemon does after
    /// an answer, or on a timer, shows up later); returns the last scrape, for the caller to expect on.
    public func metrics(within timeout: Duration, interval: Duration = .milliseconds(20),
                 until done: ([String: Double]) -> Bool) async throws -> [String: Double] {
        let deadline = ContinuousClock.now + timeout
        var values = try await metrics()
        while !done(values), ContinuousClock.now < deadline {
            try await Task.sleep(for: interval)
            values = try await metrics()
        }
        return values
    }

    public func get(_ path: String, headers: [(String, String)] = [], method: HTTPMethod = .GET) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Array(body.readableBytesView))
    }

    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-server-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

public struct Reply: Sendable {
    public let status: Int
    public let headers: HTTPHeaders
    public let body: [UInt8]

    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? { headers.first(name: name) }

    /// The problem document's `code`, or nil if this is not problem+json.
    public var problemCode: String? {
        guard header("content-type") == "application/problem+json",
              let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return object["code"] as? String
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Real JPEG and PNG files for the origin to serve.
public enum Images {
    public static let jpeg: [UInt8] = try! ImageCodecs.encode(SyntheticImage.gradient(width: 640, height: 480), .jpeg(quality: 90))
    public static let otherJPEG: [UInt8] = try! ImageCodecs.encode(SyntheticImage.gradient(width: 300, height: 500), .jpeg(quality: 80))
    public static let png: [UInt8] = try! ImageCodecs.encode(SyntheticImage.gradient(width: 320, height: 240), .png)
    /// A cut-out product, as marketplaces' PNGs are: a detailed photo inside an ellipse, clear
    /// (alpha 0) around it, soft at its edge. Too detailed for a small lossless file.
    public static let cutOutPNG: [UInt8] = {
        var image = PhonePhoto.synthetic(width: 320, height: 240, seed: 11)
        image.hasAlpha = true
        for y in 0..<image.height {
            for x in 0..<image.width {
                let dx = (Double(x) - 160) / 130, dy = (Double(y) - 120) / 100
                let inside = 1 - (dx * dx + dy * dy)
                image.pixels[(y * image.width + x) * 4 + 3] = UInt8(max(0, min(255, inside * 255 * 8)))
            }
        }
        return try! ImageCodecs.encode(image, .png)
    }()
    /// The PNG with garbage in its compressed pixel data, behind a correct chunk checksum: the
    /// file is whole, its content is not.
    public static let corruptPNG: [UInt8] = {
        var bytes = png
        let idat = Array("IDAT".utf8)
        let start = (8..<bytes.count - 4).first { Array(bytes[$0..<$0 + 4]) == idat }!
        let length = Int(bytes[start - 4]) << 24 | Int(bytes[start - 3]) << 16 | Int(bytes[start - 2]) << 8 | Int(bytes[start - 1])
        for index in start + 4..<start + 4 + min(length, 200) { bytes[index] = 0xAB }
        let crc = crc32(bytes[start..<start + 4 + length])
        for shift in 0..<4 { bytes[start + 4 + length + shift] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * shift)) }
        return bytes
    }()

    private static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
