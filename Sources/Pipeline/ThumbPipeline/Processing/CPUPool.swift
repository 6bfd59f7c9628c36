import Dispatch
import Foundation
import Metrics
import Synchronization

/// Decode, resize and encode run here: a fixed set of threads, one per core, outside both Swift's
/// cooperative pool and NIO's event loops, so the threads that answer requests are never the ones
/// decoding a 24-megapixel JPEG. The workers also run at a lower scheduling priority (nice), so
/// that when every core is busy with misses the kernel still gives request threads the CPU first,
/// and cache hits keep a low latency.
///
/// Work waits in one queue ordered by priority (interactive before prefetch), then arrival. Work
/// whose task is cancelled while it waits is dropped without running.
public final class CPUPool: Sendable {
    private struct Item {
        let id: UInt64
        let priority: PriorityCell
        let run: @Sendable () -> Void
        let abandon: @Sendable () -> Void
    }

    private struct State {
        var items: [Item] = []
        var nextID: UInt64 = 0
        var arriving: Set<UInt64> = []
        var stopping = false
    }

    public let threadCount: Int
    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)
    private let depth: Meter?

    /// `threads` defaults to the number of cores; `niceness` 0 keeps the normal priority.
    public init(threads: Int = ProcessInfo.processInfo.activeProcessorCount, niceness: Int32 = 5, depth: Meter? = nil) {
        threadCount = max(1, threads)
        self.depth = depth
        for index in 0..<threadCount {
            let thread = Thread { [self] in
                Self.nameCurrentThread("thumbd-cpu-\(index)")
                if niceness != 0 { Self.lowerPriority(by: niceness) }
                workLoop()
            }
            thread.start()
        }
    }

    /// Work waiting for a thread.
    public var queued: Int { state.withLock { $0.items.count } }

    /// Runs `work` on a pool thread and returns its result. Cancelling the caller while the work
    /// waits drops it (CancellationError); work already running finishes.
    public func run<T: Sendable>(priority: PriorityCell, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        let id = state.withLock { s -> UInt64 in
            s.nextID += 1
            s.arriving.insert(s.nextID)
            return s.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let item = Item(id: id, priority: priority,
                                run: { continuation.resume(with: Result { try work() }) },
                                abandon: { continuation.resume(throwing: CancellationError()) })
                let queued = state.withLock { s -> Bool in
                    guard s.arriving.remove(id) != nil, !s.stopping else { return false }
                    s.items.append(item)
                    return true
                }
                guard queued else { return item.abandon() }
                depth?.increment()
                signal.signal()
            }
        } onCancel: {
            let dropped: Item? = state.withLock { s in
                if s.arriving.remove(id) != nil { return nil }
                guard let index = s.items.firstIndex(where: { $0.id == id }) else { return nil }
                return s.items.remove(at: index)
            }
            if let dropped {
                depth?.decrement()
                dropped.abandon()
            }
        }
    }

    /// Lets the threads end once the queue is empty; work queued later is refused.
    public func shutdown() {
        let count = state.withLock { s -> Int in
            s.stopping = true
            return threadCount
        }
        for _ in 0..<count { signal.signal() }
    }

    private func workLoop() {
        while true {
            signal.wait()
            let next: Item?? = state.withLock { s in
                guard let index = s.items.indexOfNext(priority: { $0.priority.current }) else { return s.stopping ? .some(nil) : nil }
                return .some(s.items.remove(at: index))
            }
            switch next {
            case .some(.some(let item)):
                depth?.decrement()
                item.run()
            case .some(.none):
                return
            case .none:
                continue  // its item was cancelled after the signal
            }
        }
    }

    /// Named for `top -H` to show which threads are the pool, from inside and through the kernel's
    /// own file: Foundation's `Thread.name`, set the same way, left 95 of 3,000 threads started
    /// from Dispatch with the name they inherited (it seems to reach the kernel only once the
    /// starting thread has recorded the new one's handle). Glibc's pthread_setname_np is not
    /// visible to Swift.
    private static func nameCurrentThread(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// On Linux the nice value belongs to the thread, and `who` 0 names the calling thread, so
    /// this lowers this worker only.
    private static func lowerPriority(by niceness: Int32) {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
    }
}
