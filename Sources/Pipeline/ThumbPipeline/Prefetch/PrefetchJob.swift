import Foundation
import Synchronization

/// One prefetch job: its report, its duplicates filter, and the task doing the work.
final class PrefetchJob: Sendable {
    let id: String
    /// `cancelRequested`: the job says `running` until its work has stopped, then `cancelled`, so
    /// a report that is no longer running always has counts that add up.
    private let state: Mutex<(status: PrefetchStatus, seen: Set<String>, task: Task<Void, Never>?, endedAt: ContinuousClock.Instant?,
                              cancelRequested: Bool)>
    private let started = ContinuousClock.now

    /// Thumbnails each URL makes (the job's sizes): `total` counts thumbnails.
    let variantsPerURL: Int

    init(id: String, variantsPerURL: Int = 1) {
        self.id = id
        self.variantsPerURL = max(1, variantsPerURL)
        state = Mutex((PrefetchStatus(id: id, state: .running, total: 0, done: 0, alreadyCached: 0, failed: 0, cancelled: 0,
                                      failures: [], bytes: 0, pagesFetched: 0, created: Date(), elapsedSeconds: 0), [], nil, nil, false))
    }

    var status: PrefetchStatus {
        state.withLock { s in
            var status = s.status
            let end = s.endedAt ?? ContinuousClock.now
            let elapsed = (end - started).components
            status.elapsedSeconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            return status
        }
    }

    var isRunning: Bool { state.withLock { $0.status.state == .running } }

    func ended(before instant: ContinuousClock.Instant) -> Bool {
        state.withLock { s in s.endedAt.map { $0 < instant } ?? false }
    }

    func attach(_ task: Task<Void, Never>) {
        state.withLock { s in
            s.task = task
            // Cancelled between being listed and getting its task: the task stops at once too.
            if s.cancelRequested { task.cancel() }
        }
    }

    /// Returns once the job's task has ended (and `finish` has made the counts add up).
    func waitUntilEnded() async {
        await state.withLock { $0.task }?.value
    }

    /// Adds items, dropping URLs the job already holds; returns the new ones.
    func admit(_ items: [PrefetchItem]) -> [PrefetchItem] {
        state.withLock { s in
            var fresh: [PrefetchItem] = []
            for item in items {
                if case .url(let url) = item, !s.seen.insert(url).inserted { continue }
                fresh.append(item)
            }
            s.status.total += fresh.count * variantsPerURL
            return fresh
        }
    }

    /// A page that could not be fetched: one item of the report, whatever the sizes.
    func admitFailedPage() {
        state.withLock { $0.status.total += 1 }
    }

    func record(_ update: (inout PrefetchStatus) -> Void) {
        state.withLock { update(&$0.status) }
    }

    /// Stops new work now; downloads nobody else waits for are closed as their waits end.
    func cancel() {
        let task = state.withLock { s -> Task<Void, Never>? in
            if s.status.state == .running { s.cancelRequested = true }
            return s.task
        }
        task?.cancel()
    }

    func finish() {
        state.withLock { s in
            if s.status.state == .running { s.status.state = s.cancelRequested ? .cancelled : .finished }
            // What never ran (cancelled before its turn) is counted, so the counts add up.
            let accounted = s.status.done + s.status.alreadyCached + s.status.failed + s.status.cancelled
            s.status.cancelled += max(0, s.status.total - accounted)
            s.endedAt = ContinuousClock.now
        }
    }
}
