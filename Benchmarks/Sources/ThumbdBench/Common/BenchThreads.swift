#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// A thread-safe count, for threads to report to the one that waits for them.
final class BenchCounter: Sendable {
    private let count = Atomic<Int>(0)
    func add(_ amount: Int) { count.add(amount, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
    /// Adds one and returns the count before: hands out 0, 1, 2… to threads taking turns.
    func take() -> Int { count.wrappingAdd(1, ordering: .relaxed).oldValue }
}

/// Values threads record by index, read once they have all returned.
final class BenchIndexed<Value: Sendable>: Sendable {
    private let values = Mutex<[Int: Value]>([:])
    func record(_ index: Int, _ value: Value) { values.withLock { $0[index] = value } }
    var all: [Int: Value] { values.withLock { $0 } }
}

/// Threads for blocking sockets, one per connection, so a slow answer holds up only its own.
enum BenchThreads {
    /// Starts `body(worker)` on `count` threads and returns at once; `finished` counts those that
    /// have returned.
    @discardableResult
    static func start(_ count: Int, counting finished: BenchCounter = BenchCounter(),
                      _ body: @escaping @Sendable (Int) -> Void) -> BenchCounter {
        for worker in 0..<count {
            let thread = Thread {
                body(worker)
                finished.add(1)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        return finished
    }

    /// `start`, then waits until every thread has returned.
    static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let finished = start(count, body)
        while finished.value < count { usleep(1_000) }
    }
}
