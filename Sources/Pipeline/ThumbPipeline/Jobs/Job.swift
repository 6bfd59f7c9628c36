import Synchronization
import ThumbCache

/// One piece of work done once for everyone who asked for it: a thumbnail, or the download of an
/// original that several thumbnails need. Waiters join and leave; when the last one leaves before
/// the result is in, the work is cancelled (its download connection closes).
final class Job<Value: Sendable>: Sendable {
    let key: CacheKey
    let priority: PriorityCell

    private struct State {
        var result: Result<Value, any Error>?
        /// Waiters still interested, whether or not their continuation is attached yet.
        var waiting: Set<UInt64> = []
        var continuations: [UInt64: CheckedContinuation<Value, any Error>] = [:]
        var nextID: UInt64 = 0
        var task: Task<Void, Never>?
        var abandoned = false
    }

    private let state = Mutex(State())

    init(key: CacheKey, priority: WorkPriority) {
        self.key = key
        self.priority = PriorityCell(priority)
    }

    func start(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { s -> Bool in
            s.task = task
            return s.abandoned
        }
        if cancelNow { task.cancel() }
    }

    /// Registers a waiter; nil if the job has been abandoned (the caller starts a new one).
    func join(priority: WorkPriority) -> UInt64? {
        self.priority.raise(to: priority)
        return state.withLock { s -> UInt64? in
            guard !s.abandoned else { return nil }
            s.nextID += 1
            s.waiting.insert(s.nextID)
            return s.nextID
        }
    }

    /// Waits for the result as waiter `id`. Cancelling the caller's task makes this waiter leave;
    /// `onAbandoned` runs if it was the last one.
    func wait(_ id: UInt64, onAbandoned: @escaping @Sendable () -> Void) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let ready: Result<Value, any Error>? = state.withLock { s in
                    if let result = s.result { return result }
                    guard s.waiting.contains(id) else { return .failure(CancellationError()) }
                    s.continuations[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            leave(id, onAbandoned: onAbandoned)
        }
    }

    private func leave(_ id: UInt64, onAbandoned: @Sendable () -> Void) {
        let (continuation, task, abandoned) = state.withLock { s -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?, Bool) in
            guard s.waiting.remove(id) != nil else { return (nil, nil, false) }
            let continuation = s.continuations.removeValue(forKey: id)
            guard s.waiting.isEmpty, s.result == nil else { return (continuation, nil, false) }
            s.abandoned = true
            return (continuation, s.task, true)
        }
        continuation?.resume(throwing: CancellationError())
        if abandoned {
            task?.cancel()
            onAbandoned()
        }
    }

    func finish(_ result: Result<Value, any Error>) {
        let continuations = state.withLock { s -> [CheckedContinuation<Value, any Error>] in
            s.result = result
            defer { s.continuations.removeAll() }
            return Array(s.continuations.values)
        }
        for continuation in continuations { continuation.resume(with: result) }
    }
}
