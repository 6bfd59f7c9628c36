import Foundation
import Synchronization

/// One run of a body on a thread of its own (the repair, the trim: they block on file I/O and on
/// the writer's lock), which the cache's close asks to stop and waits for.
final class StoppableThread: Sendable {
    private let name: String
    private let stopRequested = Atomic<Bool>(false)
    private let running = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(name: String) { self.name = name }

    /// For the body to look at between its steps.
    var isStopRequested: Bool { stopRequested.load(ordering: .relaxed) }

    func start(_ body: @escaping @Sendable () -> Void) {
        running.store(true, ordering: .releasing)
        let thread = Thread { [self] in
            body()
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Asks a running body to stop after its current step and waits for it; returns at once when
    /// none was started.
    func stopAndWait() {
        stopRequested.store(true, ordering: .relaxed)
        if running.exchange(false, ordering: .acquiringAndReleasing) { done.wait() }
    }
}
