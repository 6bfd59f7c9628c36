import Synchronization

/// A downloaded original shared by the thumbnail jobs of one URL, and their verdict on it: the
/// first job to decode it says whether it is a readable image. Only then is it kept on disk, so
/// a corrupt file from the origin leaves nothing in the cache.
final class SharedOriginal: Sendable {
    let body: OriginBody

    private struct State {
        var decodable: Bool?
        var waiter: CheckedContinuation<Bool, Never>?
        var stoppedWaiting = false
    }

    private let state = Mutex(State())

    init(_ body: OriginBody) {
        self.body = body
    }

    /// Told by each job after its decode; the first word stands.
    func report(decodable: Bool) {
        let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard s.decodable == nil else { return nil }
            s.decodable = decodable
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: decodable)
    }

    /// The first verdict, or false when none comes within `limit` (every job was cancelled before
    /// it decoded: nothing is known, nothing is kept).
    func verdict(within limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.firstReport() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func firstReport() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let known = state.withLock { s -> Bool? in
                    if let decodable = s.decodable { return decodable }
                    if s.stoppedWaiting { return false }
                    s.waiter = continuation
                    return nil
                }
                if let known { continuation.resume(returning: known) }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
                s.stoppedWaiting = true
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume(returning: false)
        }
    }
}
