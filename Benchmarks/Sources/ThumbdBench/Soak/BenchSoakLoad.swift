#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// The soak's mixed load: four clients, each on a thread and a kept-alive connection of its own,
/// each paced. The point is a steady, moderate load for a long time, not throughput: the
/// generator must leave the daemon its cores, and a paced hit measures the server's answer rather
/// than a queue of the client's own making.
final class BenchSoakLoad: Sendable {
    /// What the clients ask for, and how often.
    struct Plan: Sendable {
        var port: Int
        /// The warm hot set: `/v1/thumbnail?url=…&size=N` and the ETag of its answer.
        var hotPaths: [String]
        var hotETags: [String]
        /// The photos' URLs on the origin; a query string makes each miss a URL never seen before.
        var photoURLs: [String]
        var size: Int
        var hitsPerSecond: Double
        var missesPerSecond: Double
        var adminToken: String

        /// Every tenth hot request is conditional, so 304s run all along beside the hits.
        static let conditionalEvery = 10
        /// A prefetch job of this many new URLs every `prefetchEverySeconds`; every other one is
        /// cancelled `cancelAfterSeconds` after it starts, the rest run to their end.
        static let prefetchURLs = 10
        static let prefetchEverySeconds = 5.0
        static let cancelAfterSeconds = 0.3
        /// One inspector call (or admin eviction) every this many seconds, in turn.
        static let inspectorEverySeconds = 2.0

        func missURL(_ tag: String, _ n: Int) -> String {
            photoURLs[n % photoURLs.count] + "?soak=\(tag)-\(n)"
        }

        func thumbnailPath(_ url: String) -> String {
            "/v1/thumbnail?url=\(BenchHTTP.queryEscape(url))&size=\(size)"
        }
    }

    let recorder = BenchSoakRecorder()
    private let plan: Plan
    private let stopping = Atomic<Bool>(false)
    private let finished = BenchCounter()
    /// Misses answered so far: the eviction client removes URLs the miss client has made.
    private let missesMade = BenchCounter()
    private static let clients = 4

    private init(plan: Plan) { self.plan = plan }

    static func start(_ plan: Plan) -> BenchSoakLoad {
        let load = BenchSoakLoad(plan: plan)
        BenchThreads.start(clients, counting: load.finished) { client in
            switch client {
            case 0: load.hits()
            case 1: load.misses()
            case 2: load.prefetches()
            default: load.inspector()
            }
        }
        return load
    }

    /// Stops every client after its request in flight (a miss may take seconds), waiting at most
    /// `waitSeconds`; false if some were still busy then.
    func stop(waitSeconds: Double) -> Bool {
        stopping.store(true, ordering: .relaxed)
        let deadline = BenchStats.now() + waitSeconds
        while finished.value < Self.clients && BenchStats.now() < deadline { usleep(10_000) }
        return finished.value == Self.clients
    }

    private var running: Bool { !stopping.load(ordering: .relaxed) }

    // MARK: - The clients

    /// Hot thumbnails in turn, every tenth with If-None-Match.
    private func hits() {
        let connection = BenchKeepAliveConnection(port: plan.port, timeout: 10)
        var pacer = BenchPacer(perSecond: plan.hitsPerSecond)
        var n = 0
        while pacer.wait(while: { running }) {
            let index = n % plan.hotPaths.count
            let conditional = n % Plan.conditionalEvery == Plan.conditionalEvery - 1
            n += 1
            let kind: BenchSoakRequestKind = conditional ? .notModified : .hit
            let sent = BenchStats.now()
            guard let answer = send(kind, connection, "GET", plan.hotPaths[index],
                                    headers: conditional ? ["If-None-Match: \(plan.hotETags[index])"] : []) else { continue }
            let ms = (BenchStats.now() - sent) * 1000
            switch (conditional, answer.status, answer.headers["x-cache"]) {
            case (true, 304, _): recorder.request(.notModified)
            case (false, 200, "memory"?), (false, 200, "disk"?): recorder.request(.hit, hitLatencyMs: ms)
            case (false, 200, _): recorder.request(.hit, hotMiss: true)
            default: recorder.error(kind, Self.describe(answer))
            }
        }
    }

    /// A URL never asked before, each time: a download, a decode and a store, and so evictions.
    private func misses() {
        let connection = BenchKeepAliveConnection(port: plan.port, timeout: 60)
        var pacer = BenchPacer(perSecond: plan.missesPerSecond)
        var n = 0
        while pacer.wait(while: { running }) {
            let path = plan.thumbnailPath(plan.missURL("miss", n))
            n += 1
            guard let answer = send(.miss, connection, "GET", path) else { continue }
            if answer.status == 200 {
                recorder.request(.miss)
                missesMade.add(1)
            } else {
                recorder.error(.miss, Self.describe(answer))
            }
        }
    }

    /// A job of new URLs every few seconds: one runs to its end, the next is cancelled at once.
    private func prefetches() {
        let connection = BenchKeepAliveConnection(port: plan.port, timeout: 30)
        var pacer = BenchPacer(perSecond: 1 / Plan.prefetchEverySeconds)
        var job = 0
        while pacer.wait(while: { running }) {
            let urls = (0..<Plan.prefetchURLs).map { plan.missURL("prefetch-\(job)", $0) }
            let cancel = job % 2 == 1
            job += 1
            let body = (try? JSONSerialization.data(withJSONObject: ["urls": urls, "size": plan.size] as [String: Any])) ?? Data()
            guard let started = send(.prefetch, connection, "POST", "/v1/prefetch",
                                     headers: ["Content-Type: application/json"], body: Array(body)) else { continue }
            guard started.status == 202, let id = BenchPrefetchAPI.status(started.body)?.id else {
                recorder.error(.prefetch, "POST " + Self.describe(started))
                continue
            }
            recorder.request(.prefetch)
            if cancel {
                usleep(useconds_t(Plan.cancelAfterSeconds * 1e6))
                guard let answer = send(.prefetch, connection, "DELETE", "/v1/prefetch/\(id)") else { continue }
                // Cancelled, or finished just before the DELETE: both are what was asked.
                if answer.status == 200, let status = BenchPrefetchAPI.status(answer.body), status.state != .running {
                    recorder.request(.prefetch)
                    recordFailures(status)
                } else {
                    recorder.error(.prefetch, "DELETE " + Self.describe(answer))
                }
            } else {
                followToEnd(id, connection)
            }
        }
    }

    private func followToEnd(_ id: String, _ connection: BenchKeepAliveConnection) {
        let deadline = BenchStats.now() + 60
        while running && BenchStats.now() < deadline {
            usleep(250_000)
            guard let answer = send(.prefetch, connection, "GET", "/v1/prefetch/\(id)") else { return }
            guard answer.status == 200, let status = BenchPrefetchAPI.status(answer.body) else {
                recorder.error(.prefetch, "GET " + Self.describe(answer))
                return
            }
            recorder.request(.prefetch)
            switch status.state {
            case .running: continue
            case .finished: recordFailures(status)
            case .cancelled: recorder.error(.prefetch, "a job nobody cancelled ended cancelled")
            }
            return
        }
    }

    /// A failed item of a job is an error the load did not ask for (every URL names a real photo).
    private func recordFailures(_ status: BenchPrefetchAPI.Status) {
        for failure in status.failures { recorder.error(.prefetch, "item failed: \(failure.code)") }
    }

    /// The inspector's calls in turn, and an admin eviction of a thumbnail the miss client made.
    private func inspector() {
        let connection = BenchKeepAliveConnection(port: plan.port, timeout: 30)
        var pacer = BenchPacer(perSecond: 1 / Plan.inspectorEverySeconds)
        let calls = ["/v1/cache/stats", "/v1/cache/entries?sort=lastAccess&limit=50", "/ui/api/overview",
                     "/ui/api/entries?sort=size&limit=60", "/ui/api/hosts"]
        var n = 0
        while pacer.wait(while: { running }) {
            let turn = n % (calls.count + 1)
            n += 1
            if turn < calls.count {
                guard let answer = send(.inspector, connection, "GET", calls[turn]) else { continue }
                if answer.status == 200 { recorder.request(.inspector) } else { recorder.error(.inspector, calls[turn] + " " + Self.describe(answer)) }
            } else {
                // A recent miss, likely still cached; removing one that LRU took already is fine too.
                let made = missesMade.value
                guard made > 3 else { continue }
                let path = "/v1/cache/entries?url=\(BenchHTTP.queryEscape(plan.missURL("miss", made - 3)))"
                guard let answer = send(.eviction, connection, "DELETE", path,
                                        headers: ["Authorization: Bearer \(plan.adminToken)"]) else { continue }
                if answer.status == 200 { recorder.request(.eviction) } else { recorder.error(.eviction, Self.describe(answer)) }
            }
        }
    }

    // MARK: - Helpers

    /// One request; a failure to get any answer is recorded as an error of `kind` and gives nil.
    private func send(_ kind: BenchSoakRequestKind, _ connection: BenchKeepAliveConnection, _ method: String, _ path: String,
                      headers: [String] = [], body: [UInt8] = []) -> BenchHTTP.Response? {
        do {
            return try connection.request(method, path, headers: headers, body: body)
        } catch {
            recorder.error(kind, "no answer: " + Self.withoutNumbers("\(error)"))
            return nil
        }
    }

    /// "503 busy": the status and the problem's code, so errors group by kind.
    static func describe(_ answer: BenchHTTP.Response) -> String {
        let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
        return "\(answer.status) \(object?["code"] as? String ?? answer.headers["x-cache"] ?? "-")"
    }

    /// Error texts with their numbers (ports, byte counts) as "#", so one kind is one line.
    static func withoutNumbers(_ text: String) -> String {
        var out = ""
        for character in text.prefix(120) {
            if character.isNumber { if out.last != "#" { out.append("#") } } else { out.append(character) }
        }
        return out
    }
}

/// Paces a client at a steady rate: each turn has its time, and a client that fell behind (a slow
/// answer) skips the turns it missed instead of catching up in a burst.
struct BenchPacer {
    private let interval: Double
    private var next: Double

    init(perSecond: Double) {
        interval = 1 / max(perSecond, 1e-6)
        next = BenchStats.now()
    }

    /// Sleeps until the next turn; false once `running` says to stop (checked every 50 ms).
    mutating func wait(while running: () -> Bool) -> Bool {
        while true {
            guard running() else { return false }
            let now = BenchStats.now()
            if now >= next {
                next += interval
                if next < now { next = now + interval }
                return true
            }
            usleep(useconds_t(min(next - now, 0.05) * 1e6))
        }
    }
}
