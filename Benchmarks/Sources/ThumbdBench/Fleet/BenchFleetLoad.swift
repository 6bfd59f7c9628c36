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
    /// The request was sent a second time on a new connection because its kept-alive connection
    /// had been closed while idle (as browsers do); `sent` is the first attempt's.
    var resentAfterIdleClose = false

    var latency: Double { answered - sent }
    var succeeded: Bool { status == 200 }
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
            var resent = false
            do {
                let answer: BenchHTTP.Response
                do { answer = try connection.get(paths[photo]) } catch is BenchKeepAliveConnection.ClosedWhileIdle {
                    resent = true
                    answer = try connection.get(paths[photo])
                }
                mine.append(BenchFleetOutcome(photo: photo, sent: sent, answered: BenchStats.now(), status: answer.status,
                                              cache: answer.headers["x-cache"],
                                              failure: answer.status == 200 ? nil : String(answer.text.prefix(200)),
                                              resentAfterIdleClose: resent))
            } catch {
                mine.append(BenchFleetOutcome(photo: photo, sent: sent, answered: BenchStats.now(), status: 0,
                                              cache: nil, failure: "\(error)", resentAfterIdleClose: resent))
            }
        }
        outcomes.withLock { $0 += mine }
    }
}
