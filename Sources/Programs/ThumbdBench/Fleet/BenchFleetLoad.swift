#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// One request of the failover load, as the client saw it.
struct BenchFleetOutcome: Sendable {
    /// Index of the photo asked for.
    var photo: Int
    /// Monotonic seconds (BenchStats.now) when the request was sent and when its answer (or the
    /// failure) came.
    var sent: Double
    var answered: Double
    /// HTTP status, or 0 when no whole answer came (refused, reset, timed out).
    var status: Int
    /// The answer's X-Cache (memory, disk, miss), passed on by nginx from the node.
    var cache: String?
    /// What went wrong, for a failure: the error, or the start of the body.
    var failure: String?

    var latency: Double { answered - sent }
    var succeeded: Bool { status == 200 }
}

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

/// The failover's steady load: `connections` kept-alive connections to nginx, each going round
/// every photo from its own place and pausing `pauseMs` before each request, until stopped.
final class BenchFleetLoad: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let outcomes = Mutex<[BenchFleetOutcome]>([])
    private let connections: Int
    /// Connections whose thread has returned.
    private let finished = BenchCounter()

    private init(connections: Int) { self.connections = connections }

    /// Starts the connections' threads and returns at once.
    static func start(port: Int, paths: [String], connections: Int, pauseMs: Int) -> BenchFleetLoad {
        let load = BenchFleetLoad(connections: connections)
        BenchThreads.start(connections, counting: load.finished) { worker in
            load.drive(port: port, paths: paths, first: worker * paths.count / connections, pauseMs: pauseMs)
        }
        return load
    }

    /// Stops every connection after its request in flight; every outcome, in no particular order.
    func stop() -> [BenchFleetOutcome] {
        stopping.store(true, ordering: .relaxed)
        while finished.value < connections { usleep(1_000) }
        return outcomes.withLock { $0 }
    }

    private func drive(port: Int, paths: [String], first: Int, pauseMs: Int) {
        let connection = BenchKeepAliveConnection(port: port, timeout: 30)
        var mine: [BenchFleetOutcome] = []
        mine.reserveCapacity(65536)
        var next = first
        while !stopping.load(ordering: .relaxed) {
            if pauseMs > 0 { usleep(useconds_t(pauseMs * 1000)) }
            let photo = next % paths.count
            next += 1
            let sent = BenchStats.now()
            do {
                let answer = try connection.get(paths[photo])
                mine.append(BenchFleetOutcome(photo: photo, sent: sent, answered: BenchStats.now(), status: answer.status,
                                              cache: answer.headers["x-cache"],
                                              failure: answer.status == 200 ? nil : String(answer.text.prefix(200))))
            } catch {
                mine.append(BenchFleetOutcome(photo: photo, sent: sent, answered: BenchStats.now(), status: 0,
                                              cache: nil, failure: "\(error)"))
            }
        }
        outcomes.withLock { $0 += mine }
    }
}
