import Foundation

/// A thread of its own that runs `body` every `interval` seconds until stopped, once more when it
/// is stopped (so what came since the last run is not left behind), then `finally`. For the cache's
/// background work that no store should wait for: the index's checkpoints, the batched flushes.
final class IntervalThread: Sendable {
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let stopped = DiskMutex(false)

    private let name: String
    private let interval: Double

    init(name: String, interval: Double) {
        self.name = name
        self.interval = interval
    }

    /// Starts the thread (once): `body` every interval and once more at the stop, then `finally`.
    func start(body: @escaping @Sendable () -> Void, finally: @escaping @Sendable () -> Void) {
        let thread = Thread { [wake, finished, stopped, interval] in
            while true {
                _ = wake.wait(timeout: .now() + interval)
                let stopping = stopped.withLock { $0 }
                body()
                if stopping { break }
            }
            finally()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Runs `body` now rather than at the end of the interval (work has come that should not wait).
    func nudge() {
        wake.signal()
    }

    /// Stops the started thread after its last run; returns once `finally` is done. Later calls return at once.
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
