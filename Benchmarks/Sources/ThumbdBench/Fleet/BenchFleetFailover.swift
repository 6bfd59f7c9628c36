import ConsoleText
/// What the failover load saw around a node's kill -9, worked out from every request's outcome
/// (see `thumbd-bench fleet --help`, FAILOVER, for each figure's definition).
struct BenchFleetFailover: Encodable {
    struct Latency: Encodable {
        var requests: Int
        var p50Ms: Double?
        var p99Ms: Double?
        var maxMs: Double?

        init(_ outcomes: [BenchFleetOutcome]) {
            let milliseconds = outcomes.map { $0.latency * 1000 }
            requests = outcomes.count
            p50Ms = BenchStats.percentile(milliseconds, 50)
            p99Ms = BenchStats.percentile(milliseconds, 99)
            maxMs = milliseconds.max()
        }
    }

    var killedNode: Int
    /// Photos with an entry on the killed node when it was killed.
    var killedNodePhotos: Int
    var connections: Int
    var pauseMs: Int
    var secondsBeforeKill: Double
    var secondsAfterKill: Double
    var requests: Int
    var requestsPerSecond: Double
    /// Answers that were not 200, and requests that got no whole answer.
    var failed: Int
    /// Failures by status ("0" for a socket error).
    var failedByStatus: [String: Int]
    var failureSamples: [String]
    /// Requests sent again on a new connection because nginx had closed their kept-alive connection
    /// while idle (not failures: every HTTP client does this).
    var resentAfterIdleClose: Int
    /// From the kill until every photo the killed node held had been answered 200 by a request
    /// sent after the kill; nil when some photo was not within the run.
    var failoverSeconds: Double?
    /// The killed node's photos answered 200 by a request sent after the kill.
    var photosFailedOver: Int
    /// Answers after the kill that a node made anew (X-Cache: miss).
    var missesAfterKill: Int
    /// Requests answered before the kill.
    var beforeKill: Latency
    /// Requests in flight during the failover window: answered after the kill, sent before its end
    /// (the end of the run when the failover did not complete).
    var failoverWindow: Latency
    /// Requests sent after the window.
    var afterWindow: Latency
    /// The slowest answer in the window for one of the killed node's photos.
    var worstKilledNodePhotoMs: Double?

    static func analyse(_ outcomes: [BenchFleetOutcome], startedAt: Double, killedAt: Double, killedNode: Int,
                        killedNodePhotos: Set<Int>, photoNames: [String], connections: Int, pauseMs: Int) -> BenchFleetFailover {
        let end = outcomes.map(\.answered).max() ?? killedAt
        var firstAnswerAfterKill: [Int: Double] = [:]
        for outcome in outcomes where outcome.succeeded && outcome.sent >= killedAt && killedNodePhotos.contains(outcome.photo) {
            firstAnswerAfterKill[outcome.photo] = min(firstAnswerAfterKill[outcome.photo] ?? .infinity, outcome.answered)
        }
        let complete = firstAnswerAfterKill.count == killedNodePhotos.count
        let failover = complete ? ((firstAnswerAfterKill.values.max() ?? killedAt) - killedAt) : nil
        let windowEnd = killedAt + (failover ?? (end - killedAt))

        let failures = outcomes.filter { !$0.succeeded }.sorted { $0.sent < $1.sent }
        var byStatus: [String: Int] = [:]
        for failure in failures { byStatus[String(failure.status), default: 0] += 1 }
        let samples = failures.prefix(10).map { failure in
            let name = photoNames.indices.contains(failure.photo) ? photoNames[failure.photo] : "photo \(failure.photo)"
            let when = TextTable.fixed(failure.sent - killedAt, 3)
            return "sent \(when) s after the kill, \(name): " + (failure.status == 0 ? "" : "\(failure.status) ") + (failure.failure ?? "")
        }
        let window = outcomes.filter { $0.answered >= killedAt && $0.sent <= windowEnd }
        return BenchFleetFailover(
            killedNode: killedNode, killedNodePhotos: killedNodePhotos.count, connections: connections, pauseMs: pauseMs,
            secondsBeforeKill: killedAt - startedAt, secondsAfterKill: end - killedAt,
            requests: outcomes.count, requestsPerSecond: Double(outcomes.count) / max(1e-9, end - startedAt),
            failed: failures.count, failedByStatus: byStatus, failureSamples: samples,
            resentAfterIdleClose: outcomes.filter(\.resentAfterIdleClose).count,
            failoverSeconds: failover, photosFailedOver: firstAnswerAfterKill.count,
            missesAfterKill: outcomes.filter { $0.sent >= killedAt && $0.cache == "miss" }.count,
            beforeKill: Latency(outcomes.filter { $0.answered < killedAt }),
            failoverWindow: Latency(window),
            afterWindow: Latency(outcomes.filter { $0.sent > windowEnd }),
            worstKilledNodePhotoMs: window.filter { killedNodePhotos.contains($0.photo) }.map { $0.latency * 1000 }.max())
    }
}
