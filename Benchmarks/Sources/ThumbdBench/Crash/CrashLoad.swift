#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization
import TestSupport

/// One round's traffic, from the daemon's start until the kill: a miss storm on kept-alive
/// connections (new URLs, and now and then one answered before), a prefetch job of new URLs, and
/// admin evictions of answered URLs, while the small limits make both tiers evict. Runs on threads
/// of its own (blocking sockets), never on Swift's cooperative pool.
final class CrashLoad: Sendable {
    struct Counts: Sendable, Codable {
        /// Thumbnail requests sent.
        var requests = 0
        /// 200s received whole (recorded in `CrashAnswers`).
        var answered = 0
        /// Other statuses (503 busy, an origin's failure).
        var otherStatuses = 0
        /// Requests with no whole answer: the ones in flight at the kill, then refused connections.
        var noAnswer = 0
        /// Whether the daemon took the round's prefetch job (202).
        var prefetchAccepted = false
        /// Admin evictions the daemon answered 200.
        var evictions = 0

        static func + (a: Counts, b: Counts) -> Counts {
            Counts(requests: a.requests + b.requests, answered: a.answered + b.answered, otherStatuses: a.otherStatuses + b.otherStatuses,
                   noAnswer: a.noAnswer + b.noAnswer, prefetchAccepted: a.prefetchAccepted || b.prefetchAccepted,
                   evictions: a.evictions + b.evictions)
        }
    }

    private let stopping = Atomic<Bool>(false)
    private let counts = Mutex(Counts())
    private let finished = BenchCounter()
    private let threads: Int

    private init(threads: Int) { self.threads = threads }

    /// Starts the storm's connections and the operator (prefetch, evictions); returns at once.
    static func start(port: Int, plan: CrashURLPlan, answers: CrashAnswers, settings: CrashRunSettings, seed: UInt64) -> CrashLoad {
        let load = CrashLoad(threads: settings.connections + 1)
        BenchThreads.start(settings.connections + 1, counting: load.finished) { worker in
            var random = SeededRandom(seed: seed &+ UInt64(worker) &* 0x9E37_79B9_7F4A_7C15)
            let mine = worker == settings.connections
                ? load.operate(port: port, plan: plan, answers: answers, settings: settings, random: &random)
                : load.storm(port: port, plan: plan, answers: answers, revisitShare: settings.revisitShare, random: &random)
            load.counts.withLock { $0 = $0 + mine }
        }
        return load
    }

    /// Call once the daemon is dead: every thread ends after its request in flight.
    func stop() -> Counts {
        stopping.store(true, ordering: .relaxed)
        while finished.value < threads { usleep(1_000) }
        return counts.withLock { $0 }
    }

    private var isStopping: Bool { stopping.load(ordering: .relaxed) }

    private func storm(port: Int, plan: CrashURLPlan, answers: CrashAnswers, revisitShare: Double,
                       random: inout SeededRandom) -> Counts {
        let connection = BenchKeepAliveConnection(port: port, timeout: 30)
        var counts = Counts()
        while !isStopping {
            let revisit = Double.random(in: 0..<1, using: &random) < revisitShare
            let request = (revisit ? answers.anyAnswered(using: &random) : nil) ?? plan.fresh()
            counts.requests += 1
            do {
                let answer = try connection.get(request.path)
                // Whole means every byte its Content-Length announced (a cut answer never gets here).
                if answer.status == 200, answer.headers["content-length"] == String(answer.body.count) {
                    answers.record(request, body: answer.body)
                    counts.answered += 1
                } else {
                    counts.otherStatuses += 1
                }
            } catch {
                counts.noAnswer += 1
                usleep(5_000)  // the daemon is gone: no busy loop until the round stops us
            }
        }
        return counts
    }

    /// The prefetch job at once, then an admin eviction every `deleteInterval` seconds.
    private func operate(port: Int, plan: CrashURLPlan, answers: CrashAnswers, settings: CrashRunSettings,
                         random: inout SeededRandom) -> Counts {
        var counts = Counts()
        let job: [String: Any] = ["urls": (0..<settings.prefetchURLs).map { _ in plan.fresh().url }, "size": 200, "format": "jpeg", "q": 82]
        if let body = try? JSONSerialization.data(withJSONObject: job),
           let answer = try? BenchHTTP.request("POST", port: port, path: "/v1/prefetch", headers: ["Content-Type: application/json"],
                                               body: [UInt8](body), timeout: 30) {
            counts.prefetchAccepted = answer.status == 202
        }
        let admin = "Authorization: Bearer \(CrashRunSettings.adminToken)"
        var next = BenchStats.now() + settings.deleteInterval
        while !isStopping {
            guard BenchStats.now() >= next else {
                usleep(5_000)
                continue
            }
            next += settings.deleteInterval
            guard let victim = answers.anyAnswered(using: &random) else { continue }
            let path = "/v1/cache/entries?url=\(BenchHTTP.queryEscape(victim.url))&variant=\(BenchHTTP.queryEscape(victim.variant))"
            if (try? BenchHTTP.request("DELETE", port: port, path: path, headers: [admin], timeout: 30))?.status == 200 {
                counts.evictions += 1
            }
        }
        return counts
    }
}
