import Foundation
import Metrics
import TestOrigin
import Testing
import TestSupport
@testable import ThumbServer
#if canImport(Glibc)
import Glibc
#endif

/// The access log: lines from both the fast path and the routes, text or JSON, to a file that
/// logrotate can move, and never a request held up by a writer that fell behind.
@Suite("Access log")
struct AccessLogTests {
    static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Waits for the batch writer (every 250 ms) to have written `count` lines.
    static func waitForLines(_ path: String, count: Int) async throws -> [String] {
        for _ in 0..<40 {
            let found = lines(path)
            if found.count >= count { return found }
            try await Task.sleep(for: .milliseconds(100))
        }
        return lines(path)
    }

    @Test("Text lines from a miss, a memory hit (fast path) and an error, to a file, without the query", arguments: AccessLogFormat.allCases)
    func linesFromTheDaemon(_ format: AccessLogFormat) async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let file = try TestDaemon.temporaryDirectory().appendingPathComponent("access.log").path
        let daemon = try await TestDaemon.start(memoryOnly: true) {
            $0.server.accessLog = true
            $0.server.accessLogFormat = format
            $0.server.accessLogPath = file
        }
        let path = daemon.thumbnailPath(origin.url("/p.jpg"))
        #expect(try await daemon.get(path).header("x-cache") == "miss")
        #expect(try await daemon.get(path).header("x-cache") == "memory")
        #expect(try await daemon.get("/v1/thumbnail?size=3").status == 400)
        // Each event loop has its own buffer, so lines of different connections may be written out of
        // order: find them by what they say.
        let lines = try await Self.waitForLines(file, count: 3)
        try #require(lines.count == 3, "\(lines)")
        func line(_ marker: String) throws -> String { try #require(lines.first { $0.contains(marker) }, "no line with \(marker): \(lines)") }
        let found = format == .text
            ? [try line("cache=miss"), try line("cache=memory"), try line("status=400")]
            : [try line("\"cache\":\"miss\""), try line("\"cache\":\"memory\""), try line("\"status\":400")]
        #expect(!found.joined().contains("p.jpg"), "the query (with the image URL) stays out of the log")
        switch format {
        case .text:
            #expect(found[0].contains(" info thumbd: cache=miss code=- method=GET ms=") && found[0].hasSuffix(" path=/v1/thumbnail status=200 [ThumbServer] request"))
            #expect(found[1].contains("cache=memory") && found[1].contains("status=200"))
            #expect(found[2].contains("code=invalid_parameter") && found[2].contains("status=400"))
        case .json:
            let objects = try found.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            #expect(objects[0]["cache"] as? String == "miss" && objects[0]["status"] as? Int == 200)
            #expect(objects[1]["cache"] as? String == "memory" && objects[1]["path"] as? String == "/v1/thumbnail")
            #expect(objects[2]["code"] as? String == "invalid_parameter" && objects[2]["cache"] is NSNull)
            #expect((objects[0]["ms"] as? Double).map { $0 >= 0 } == true && objects[0]["time"] is String)
        }
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("After logrotate moves the file, a reopen writes to a new one; nothing is lost at close")
    func reopenAfterRotation() throws {
        let dir = try TestDaemon.temporaryDirectory()
        let file = dir.appendingPathComponent("access.log").path
        let log = try AccessLog(format: .text, path: file, metrics: NOOPMetricsHandler.instance, warn: { _ in })
        log.record(method: "GET", path: "/v1/thumbnail?url=x", status: 200, elapsed: .microseconds(40), cache: "memory", code: nil)
        Thread.sleep(forTimeInterval: 0.5)
        try FileManager.default.moveItem(atPath: file, toPath: file + ".1")
        log.reopen()
        Thread.sleep(forTimeInterval: 0.5)
        log.record(method: "GET", path: "/healthz", status: 200, elapsed: .milliseconds(1), cache: nil, code: nil)
        log.close()
        let rotated = Self.lines(file + ".1"), fresh = Self.lines(file)
        #expect(rotated.count == 1 && rotated[0].contains("ms=0.04 path=/v1/thumbnail status=200"))
        #expect(fresh.count == 1 && fresh[0].contains("path=/healthz"))
    }

    @Test("A writer that cannot keep up drops lines and counts them; recording never waits for it")
    func fallingBehindDrops() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let (reader, writer) = (ends[0], ends[1])
        // /dev/fd/N opens the pipe's write end: nobody reads it yet, so the writer blocks once
        // the pipe's 64 KiB are full.
        let log = try AccessLog(format: .text, path: "/dev/fd/\(writer)", metrics: NOOPMetricsHandler.instance, warn: { _ in })
        let start = ContinuousClock.now
        for index in 0..<100_000 {
            log.record(method: "GET", path: "/v1/thumbnail/\(index)", status: 200, elapsed: .microseconds(30), cache: "memory", code: nil)
        }
        let took = ContinuousClock.now - start
        #expect(log.droppedLines > 0, "100,000 lines of about 100 bytes cannot all wait in 4 MiB")
        #expect(took < .seconds(5), "recording waited for the writer: \(took)")
        // Drain the pipe so the writer can finish, then close.
        let drain = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while read(reader, &buffer, buffer.count) > 0 {}
        }
        drain.start()
        log.close()
        Glibc.close(writer)
    }
}
