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

    private let connection: DatabaseQueue
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let stopped = DiskMutex(false)

    init(path: String) throws {
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.label = "thumbd-cache-index-checkpointer"
        connection = try DatabaseQueue(path: path, configuration: config)
        let thread = Thread { [self] in run() }
        thread.name = "thumbd-wal-checkpoint"
        thread.start()
    }

    private func run() {
        while !stopped.withLock({ $0 }) {
            _ = wake.wait(timeout: .now() + Self.interval)
            if stopped.withLock({ $0 }) { break }
            // Passive: copies what no reader still needs and never waits for the writer.
            _ = try? connection.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        }
        try? connection.close()
        finished.signal()
    }

    /// Stops the thread and closes its connection; returns once both are done.
    func stop() {
        let first = stopped.withLock { already -> Bool in
            defer { already = true }
            return !already
        }
        guard first else { return }
        wake.signal()
        finished.wait()
    }
}
