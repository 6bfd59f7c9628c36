import Dispatch
import Foundation
import Synchronization
import Testing
@testable import ThumbPipeline

@Suite("CPU pool: priorities, cancellation, its own threads")
struct CPUPoolTests {
    @Test("Queued work runs interactive first, then prefetch, each in arrival order")
    func priorityOrder() async throws {
        let pool = CPUPool(threads: 1, niceness: 0)
        let gate = DispatchSemaphore(value: 0)
        let order = Recorder<[String]>([])
        let blocker = try await Self.occupy(pool, until: gate)
        var tasks: [Task<Void, any Error>] = []
        for (number, (name, priority)) in [("p1", WorkPriority.prefetch), ("i1", .interactive), ("p2", .prefetch), ("i2", .interactive)].enumerated() {
            tasks.append(Task { try await pool.run(priority: PriorityCell(priority)) { order.update { $0.append(name) } } })
            try await Self.until { pool.queued == number + 1 }
        }
        #expect(pool.queued == 4)
        gate.signal()
        try await blocker.value
        for task in tasks { try await task.value }
        #expect(order.value == ["i1", "i2", "p1", "p2"])
        pool.shutdown()
    }

    @Test("Raising a queued job's priority moves it forward")
    func raisedPriority() async throws {
        let pool = CPUPool(threads: 1, niceness: 0)
        let gate = DispatchSemaphore(value: 0)
        let order = Recorder<[String]>([])
        let blocker = try await Self.occupy(pool, until: gate)
        let first = Task { try await pool.run(priority: PriorityCell(.prefetch)) { order.update { $0.append("first") } } }
        try await Self.until { pool.queued == 1 }
        let cell = PriorityCell(.prefetch)
        let second = Task { try await pool.run(priority: cell) { order.update { $0.append("second") } } }
        try await Self.until { pool.queued == 2 }
        cell.raise(to: .interactive)
        gate.signal()
        _ = try await (blocker.value, first.value, second.value)
        #expect(order.value == ["second", "first"])
        pool.shutdown()
    }

    @Test("Work cancelled while queued never runs")
    func cancelledWorkIsDropped() async throws {
        let pool = CPUPool(threads: 1, niceness: 0)
        let gate = DispatchSemaphore(value: 0)
        let ran = Recorder(false)
        let blocker = try await Self.occupy(pool, until: gate)
        let queued = Task { try await pool.run(priority: PriorityCell(.interactive)) { ran.update { $0 = true } } }
        try await Self.until { pool.queued == 1 }
        queued.cancel()
        await #expect(throws: CancellationError.self) { try await queued.value }
        #expect(pool.queued == 0)
        gate.signal()
        try await blocker.value
        // Work queued after the blocker runs on the pool's one thread after it: once it has run,
        // the cancelled work had its turn too, had it not been dropped.
        try await pool.run(priority: PriorityCell(.interactive)) {}
        #expect(ran.value == false)
        pool.shutdown()
    }

    /// Work that holds the pool's one thread until `gate` is signalled, once it is running.
    static func occupy(_ pool: CPUPool, until gate: DispatchSemaphore) async throws -> Task<Void, any Error> {
        let started = Recorder(false)
        let blocker = Task { try await pool.run(priority: PriorityCell(.interactive)) { started.update { $0 = true }; gate.wait() } }
        try await until { started.value }
        return blocker
    }

    /// Polls `condition` (every millisecond): the tests wait for the state they need, never for a time.
    /// The bound is for a hang only: in the network pass, tests that wait for child processes can hold
    /// both of the cooperative pool's threads for seconds, and a task started here then waits its turn
    /// (it once waited over 10 s).
    static func until(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("the state waited for did not come in 60 s", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test("Work runs on the pool's threads, at the lower priority")
    func ownThreadsAtLowerPriority() async throws {
        let pool = CPUPool(threads: 2, niceness: 7)
        let (name, nice) = try await pool.run(priority: PriorityCell(.interactive)) { () -> (String, Int32) in
            // The kernel's name for the running thread, as `top -H` shows it.
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            return (name, getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        }
        #expect(name.hasPrefix("thumbd-cpu-"), "nice \(nice)")
        #expect(nice >= 7)
        pool.shutdown()
    }
}

/// A value several threads change under a lock.
final class Recorder<Value: Sendable>: Sendable {
    private let state: Mutex<Value>
    init(_ value: Value) { state = Mutex(value) }
    func update(_ body: (inout Value) -> Void) { state.withLock { body(&$0) } }
    var value: Value { state.withLock { $0 } }
}
