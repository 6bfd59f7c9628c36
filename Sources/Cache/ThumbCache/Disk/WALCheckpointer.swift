import Foundation
import GRDB

/// Copies the index's write-ahead log into the database from a thread of its own, on a second
/// connection, so no store waits for a checkpoint. SQLite lets a passive checkpoint run beside a
/// writer; left to itself, the writer would run one inside whichever commit crossed 1,000 pages,
/// and with the listing's indexes every commit dirties more pages.
final class WALCheckpointer: Sendable {
    /// The writer's own checkpoint stays as a safety net for a log that grows past this (pages).
    static let writerFallbackPages = 16_384
    static let interval = 1.0

    private let thread: IntervalThread

    init(path: String) throws {
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.label = "thumbd-cache-index-checkpointer"
        let connection = try DatabaseQueue(path: path, configuration: config)
        // Passive: copies what no reader still needs and never waits for the writer.
        thread = IntervalThread(name: "thumbd-wal-checkpoint", interval: Self.interval)
        thread.start(body: { _ = try? connection.writeWithoutTransaction { db in try db.checkpoint(.passive) } },
                     finally: { try? connection.close() })
    }

    /// Stops the thread and closes its connection; returns once both are done.
    func stop() {
        thread.stop()
    }
}
