import CMallocTuning
import Logging
import Prometheus
import ServiceLifecycle
import ThumbPipeline

/// Every `interval`, when malloc's arenas keep more than `minimumFree` bytes free, gives their
/// whole free pages back to the system (glibc's malloc_trim).
///
/// Free holes inside an arena stay resident after a decode's buffers go; glibc returns only the
/// top of an arena by itself. Under a steady miss load those holes grew by about 1.3 MiB a minute
/// (the soak, 40 misses a second); trimming them keeps the resident set flat. The walk over the
/// arenas takes their locks, so it runs on the CPU pool at prefetch priority, never on a thread
/// that answers requests, and is skipped while little is free.
struct HeapTrimmer: Service {
    let interval: Duration
    let pool: CPUPool
    let trims: Counter
    let logger: Logger
    static let minimumFree = 4 << 20

    func run() async throws {
        // A service that returns early would stop the whole group: when off, it waits for the stop.
        guard interval > .zero, HeapUsage.current() != nil else {
            try? await gracefulShutdown()
            return
        }
        let priority = PriorityCell(.prefetch)
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                // The free total counts trimmed pages too (they stay on the free lists), so this only
                // skips a heap that never had much free.
                guard let usage = HeapUsage.current(), usage.freeInArenas > Self.minimumFree else { continue }
                let start = ContinuousClock.now
                guard let released = try? await pool.run(priority: priority, { thumbd_release_free_heap() == 1 }) else { continue }
                trims.increment()
                logger.debug("heap trimmed", metadata: [
                    "free_bytes": "\(usage.freeInArenas)", "released": "\(released)",
                    "took_us": "\((ContinuousClock.now - start) / .microseconds(1))",
                ])
            }
        }
    }
}
