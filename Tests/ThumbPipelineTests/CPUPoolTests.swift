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
        let blocker = Task { try await pool.run(priority: PriorityCell(.interactive)) { gate.wait() } }
        try await Task.sleep(for: .milliseconds(50))
        var tasks: [Task<Void, any Error>] = []
        for (name, priority) in [("p1", WorkPriority.prefetch), ("i1", .interactive), ("p2", .prefetch), ("i2", .interactive)] {
            tasks.append(Task { try await pool.run(priority: PriorityCell(priority)) { order.update { $0.append(name) } } })
            try await Task.sleep(for: .milliseconds(20))
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
        let blocker = Task { try await pool.run(priority: PriorityCell(.interactive)) { gate.wait() } }
        try await Task.sleep(for: .milliseconds(50))
        let first = Task { try await pool.run(priority: PriorityCell(.prefetch)) { order.update { $0.append("first") } } }
        try await Task.sleep(for: .milliseconds(20))
        let cell = PriorityCell(.prefetch)
        let second = Task { try await pool.run(priority: cell) { order.update { $0.append("second") } } }
        try await Task.sleep(for: .milliseconds(20))
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
        let blocker = Task { try await pool.run(priority: PriorityCell(.interactive)) { gate.wait() } }
        try await Task.sleep(for: .milliseconds(50))
        let queued = Task { try await pool.run(priority: PriorityCell(.interactive)) { ran.update { $0 = true } } }
        try await Task.sleep(for: .milliseconds(50))
        queued.cancel()
        await #expect(throws: CancellationError.self) { try await queued.value }
        #expect(pool.queued == 0)
        gate.signal()
        try await blocker.value
        try await Task.sleep(for: .milliseconds(50))
        #expect(ran.value == false)
        pool.shutdown()
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
