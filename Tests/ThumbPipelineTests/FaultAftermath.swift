import DaemonTestSupport
import Testing
import ThumbServer

/// What every origin fault must leave behind: its status and problem code as problem+json, nothing
/// cached in either tier, and no download slot held.
///
/// The slot is checked twice: the downloader counts none in flight, and (with
/// `download.maxConcurrent = 1`, which `faultDaemon` sets) a good download straight afterwards
/// answers promptly, which it could not while the fault still held the only slot.
enum FaultAftermath {
    /// The good photo a fault's origin also serves, for the download that follows the fault.
    static let goodPath = "/good.jpg"

    /// A daemon with one download slot and the given limits.
    static func faultDaemon(timeout: Duration = .seconds(15), maxBytes: Int = 1_000_000,
                            _ configure: (inout DaemonSettings) -> Void = { _ in }) async throws -> TestDaemon {
        try await TestDaemon.start {
            $0.download.maxBytes = maxBytes
            $0.download.totalTimeout = timeout
            $0.download.maxConcurrent = 1
            configure(&$0)
        }
    }

    static func expect(_ reply: Reply, status: Int, code: String, daemon: TestDaemon,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(reply.status == status, "detail: \(String(decoding: reply.body, as: UTF8.self))", sourceLocation: sourceLocation)
        #expect(reply.problemCode == code, sourceLocation: sourceLocation)
        #expect(reply.header("content-type") == "application/problem+json", sourceLocation: sourceLocation)
        #expect(daemon.cache.memory.stats.entries == 0, "something was cached in memory", sourceLocation: sourceLocation)
        #expect(try daemon.cache.disk?.entries().isEmpty == true, "something was cached on disk", sourceLocation: sourceLocation)
        #expect(daemon.daemon.pipeline.downloader.inFlight == 0, "a download slot is still held", sourceLocation: sourceLocation)
    }

    /// A good download (`goodURL` serves `Images.jpeg`) succeeds within `limit` after the fault. A
    /// slot still held would make it wait in line until its own timeout and fail with 504; the limit
    /// is loose, for a loaded machine.
    static func expectSlotFree(daemon: TestDaemon, goodURL: String, limit: Duration = .seconds(15),
                               sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let start = ContinuousClock.now
        let good = try await daemon.get(daemon.thumbnailPath(goodURL))
        let elapsed = ContinuousClock.now - start
        #expect(good.status == 200, "the good download after the fault failed: \(good.problemCode ?? "-")",
                sourceLocation: sourceLocation)
        #expect(elapsed < limit, "the good download after the fault took \(elapsed)", sourceLocation: sourceLocation)
    }
}
