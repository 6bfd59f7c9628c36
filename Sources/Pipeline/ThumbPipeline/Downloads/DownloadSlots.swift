import Synchronization

/// Admission to the network: at most `total` downloads at once, and at most `perHost` to one host.
/// Waiters are served by priority (interactive first), then in arrival order, skipping those whose
/// host is full. A waiter whose task is cancelled leaves the line at once.
final class DownloadSlots: Sendable {
    private struct Waiter {
        let id: UInt64
        let host: String
        let priority: PriorityCell
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var inUse = 0
        var perHostInUse: [String: Int] = [:]
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        /// Between acquire's start and its entering the line; the cancel handler (which can run
        /// first) takes an id out of here to say "cancelled before queued".
        var arriving: Set<UInt64> = []
    }

    let total: Int
    let perHost: Int
    private let state = Mutex(State())

    init(total: Int, perHost: Int) {
        self.total = max(1, total)
        self.perHost = max(1, perHost)
    }

    var inFlight: Int { state.withLock { $0.inUse } }
    var waiting: Int { state.withLock { $0.waiters.count } }

    func acquire(host: String, priority: PriorityCell) async throws {
        let id = state.withLock { s -> UInt64 in
            s.nextID += 1
            s.arriving.insert(s.nextID)
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let admitted: Bool? = state.withLock { s in
                    guard s.arriving.remove(id) != nil else { return nil }
                    // Anyone still waiting is waiting for a full host (release() admits the rest at
                    // once), so taking a free slot here passes no one.
                    if s.inUse < total, s.perHostInUse[host, default: 0] < perHost {
                        s.inUse += 1
                        s.perHostInUse[host, default: 0] += 1
                        return true
                    }
                    s.waiters.append(Waiter(id: id, host: host, priority: priority, continuation: continuation))
                    return false
                }
                switch admitted {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: continuation.resume()
                case false?: break
                }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { s in
                if s.arriving.remove(id) != nil { return nil }
                guard let index = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    func release(host: String) {
        let admitted: [Waiter] = state.withLock { s in
            s.inUse -= 1
            let left = s.perHostInUse[host, default: 1] - 1
            s.perHostInUse[host] = left > 0 ? left : nil
            var admitted: [Waiter] = []
            while s.inUse < total,
                  let index = s.waiters.indexOfNext(priority: { $0.priority.current },
                                                    eligible: { [perHost] in s.perHostInUse[$0.host, default: 0] < perHost }) {
                let waiter = s.waiters.remove(at: index)
                s.inUse += 1
                s.perHostInUse[waiter.host, default: 0] += 1
                admitted.append(waiter)
            }
            return admitted
        }
        for waiter in admitted { waiter.continuation.resume() }
    }
}
