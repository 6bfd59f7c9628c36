import ChildProcess
import DaemonTestSupport
import Foundation
import ImageCodecs
import ImageCore
import Testing
import TestOrigin

/// Origins that misbehave on purpose, where the fault matrix's checks are not the whole story:
/// how long the answer takes, how much memory it costs, what happens to the connection after.
@Suite("Hostile origins: drips, gzip bombs, bytes past the body", .serialized)
struct HostileOriginTests {
    @Test("A body that drips one byte a second ends at the total timeout, not before and not much after")
    func dripEndsAtTheTotalTimeout() async throws {
        let origin = try await TestOrigin.start(routes: ["/drip.jpg": .drip(bytes: Images.jpeg, every: .seconds(1)),
                                                         FaultAftermath.goodPath: .image(Images.jpeg)])
        // Each byte comes sooner than the read timeout (set to the total), so only the total ends it.
        let daemon = try await FaultAftermath.faultDaemon(timeout: .milliseconds(2500))
        let start = ContinuousClock.now
        let reply = try await daemon.get(daemon.thumbnailPath(origin.url("/drip.jpg")))
        let elapsed = ContinuousClock.now - start
        try FaultAftermath.expect(reply, status: 504, code: "origin_timeout", daemon: daemon)
        print("drip: \(reply.status) \(reply.problemCode ?? "-") after \(elapsed) (download.timeout 2.5 s)")
        // Not before the timeout; and nowhere near the hours the whole photo would take at this pace
        // (the bound is loose: a loaded machine answers seconds late).
        #expect(elapsed >= .milliseconds(2400) && elapsed < .seconds(15), "answered after \(elapsed)")
        // The daemon hung up rather than waiting for the rest.
        #expect(await origin.waitForEarlyClose("/drip.jpg", timeout: .seconds(5)))
        try await FaultAftermath.expectSlotFree(daemon: daemon, goodURL: origin.url(FaultAftermath.goodPath))
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("A gzip body that inflates to 1 GiB is never inflated: no Accept-Encoding, the bytes are no image, memory stays low")
    func gzipBomb() async throws {
        let bomb = try GzipBomb.make(inflatedMiB: 1024)
        #expect(bomb.inflatedBytes == 1 << 30)
        let origin = try await TestOrigin.start(routes: [
            "/bomb.jpg": .withHeaders([OriginHeader("Content-Encoding", "gzip")], .image(bomb.bytes)),
            FaultAftermath.goodPath: .image(Images.jpeg),
        ])
        // The default byte cap (20 MB): the ~1 MB of gzip passes it, so the cap is not what stops it.
        let daemon = try await FaultAftermath.faultDaemon(maxBytes: 20_000_000)
        let before = ProcessRSS.current()
        let peak = RSSPeak.start()
        let reply = try await daemon.get(daemon.thumbnailPath(origin.url("/bomb.jpg")))
        let peakGrowth = await peak.stop() - before
        let growth = ProcessRSS.current() - before
        try FaultAftermath.expect(reply, status: 415, code: "unsupported_format", daemon: daemon)
        #expect(origin.requests("/bomb.jpg").first?.header("accept-encoding") == nil, "compression was asked for")
        print("gzip bomb: \(bomb.bytes.count) bytes on the wire, \(bomb.inflatedBytes >> 20) MiB inflated; "
              + "\(reply.status) \(reply.problemCode ?? "-"); RSS growth \(growth >> 20) MiB after, \(peakGrowth >> 20) MiB at peak")
        #expect(peakGrowth < 80 << 20, "RSS grew by \(peakGrowth >> 20) MiB during the request")
        try await FaultAftermath.expectSlotFree(daemon: daemon, goodURL: origin.url(FaultAftermath.goodPath))
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("Bytes after the declared body are never read as the next response: a smuggled answer is not served")
    func bytesPastTheBodyAreNotTheNextResponse() async throws {
        // A whole photo within its Content-Length, then a complete second response on the same
        // connection, as if it answered the next request.
        let smuggled = Array("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: \(Images.png.count)\r\n\r\n".utf8) + Images.png
        let origin = try await TestOrigin.start(routes: [
            "/photo.jpg": .overlong(bytes: Images.jpeg + smuggled, declaredLength: Images.jpeg.count),
            "/other.jpg": .image(Images.otherJPEG),
        ])
        let daemon = try await FaultAftermath.faultDaemon()
        // The declared body is a whole photo, so this one is answered, as HTTP's framing says.
        let first = try await daemon.get(daemon.thumbnailPath(origin.url("/photo.jpg"), "size=64&fit=contain"))
        #expect(first.status == 200)
        // 300x500 in a 64 box is 38x64: the other photo's answer, not the smuggled 320x240 PNG's (64x48).
        let second = try await daemon.get(daemon.thumbnailPath(origin.url("/other.jpg"), "size=64&fit=contain"))
        #expect(second.status == 200)
        let pixels = try ImageCodecs.decode(second.body).pixels
        #expect(pixels.width == 38 && pixels.height == 64, "\(pixels.width)x\(pixels.height)")
        #expect(origin.requestCount("/other.jpg") == 1)
        // The poisoned connection was closed, not pooled: the second download came on a new one.
        #expect(origin.requests("/other.jpg").first?.connection != origin.requests("/photo.jpg").first?.connection)
        try await daemon.stop()
        try await origin.shutdown()
    }
}

/// A gzip stream that inflates to many MiB of zeros in about a thousandth of that: one member
/// made by the `gzip` command, repeated (RFC 1952 lets a file be several members, and every
/// decompressor that takes `Content-Encoding: gzip` inflates them all).
struct GzipBomb {
    let bytes: [UInt8]
    /// What the members' trailers say they inflate to, added up.
    let inflatedBytes: Int

    static func make(inflatedMiB: Int) throws -> GzipBomb {
        let memberMiB = 16
        let zeros = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-zeros-\(UUID().uuidString)")
        try Data(count: memberMiB << 20).write(to: zeros)
        defer { try? FileManager.default.removeItem(at: zeros) }
        let gzip = try ChildProcess.run("gzip", ["-9", "-n", "-c", zeros.path], timeoutSeconds: 60)
        guard gzip.status == 0, gzip.stdout.count > 18 else { throw TestFailure("gzip failed: \(gzip.stderrText)") }
        let member = gzip.stdout
        // ISIZE, the member's last four bytes (little-endian): its inflated size modulo 2^32.
        let isize = member.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
        guard isize == memberMiB << 20 else { throw TestFailure("gzip's member inflates to \(isize) bytes") }
        let count = inflatedMiB / memberMiB
        return GzipBomb(bytes: Array([[UInt8]](repeating: member, count: count).joined()), inflatedBytes: count * isize)
    }
}

/// The highest VmRSS seen while it runs, sampled every 5 ms by a task of its own (a spike that
/// is freed before the request ends shows here, not in a before-and-after difference).
final class RSSPeak: Sendable {
    private let task: Task<Int, Never>

    private init(task: Task<Int, Never>) { self.task = task }

    static func start() -> RSSPeak {
        RSSPeak(task: Task.detached {
            var peak = ProcessRSS.current()
            while !Task.isCancelled {
                peak = max(peak, ProcessRSS.current())
                try? await Task.sleep(for: .milliseconds(5))
            }
            return max(peak, ProcessRSS.current())
        })
    }

    func stop() async -> Int {
        task.cancel()
        return await task.value
    }
}
