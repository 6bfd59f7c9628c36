import Synchronization

/// Tells a route waiting on a client's behalf that the client has gone, without touching the
/// connection's request stream: the connection stays usable for the client's next request when
/// it does not go. Each connection's fast path owns one and reports what it sees: the peer's end
/// of input (HTTP clients do not half-close, so it means the client left) and the connection's
/// close.
final class ConnectionWatch: Sendable {
    private struct State {
        var gone = false
        var waiters: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// The client has gone: every wait ends, and later ones end at once.
    func clientLeft() {
        let waiters = state.withLock { s -> [AsyncStream<Void>.Continuation] in
            s.gone = true
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.finish() }
    }

    var clientHasLeft: Bool { state.withLock { $0.gone } }

    /// `operation`'s result, or CancellationError (and `operation` cancelled) as soon as the
    /// client goes.
    func untilClientLeaves<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let (left, signal) = AsyncStream<Void>.makeStream()
        let waiter = state.withLock { s -> Int? in
            guard !s.gone else { return nil }
            s.nextWaiter += 1
            s.waiters[s.nextWaiter] = signal
            return s.nextWaiter
        }
        guard let waiter else { throw CancellationError() }
        defer {
            _ = state.withLock { $0.waiters.removeValue(forKey: waiter) }
            signal.finish()
        }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            // Ends when the client goes, or when the group is cancelled after the operation is done.
            group.addTask {
                for await _ in left {}
                return nil
            }
            group.addTask { try await operation() }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw CancellationError() }
            return value
        }
    }
}
