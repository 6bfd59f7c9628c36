import Synchronization

/// What the soak's clients ask for, each with the answer it expects.
enum BenchSoakRequestKind: String, CaseIterable, Encodable, Sendable {
    /// A hot thumbnail, paced; 200 from the memory or disk tier. Its latency is the hit p50/p99.
    case hit
    /// A hot thumbnail with If-None-Match: its ETag; 304.
    case notModified = "not_modified"
    /// A thumbnail of a URL never asked before; 200, made (X-Cache: miss).
    case miss
    /// POST /v1/prefetch (202), GET /v1/prefetch/{id} (200), DELETE /v1/prefetch/{id} (200).
    case prefetch
    /// The inspector's calls: /v1/cache/stats, /v1/cache/entries, /ui/api/… (200).
    case inspector
    /// DELETE /v1/cache/entries?url= with the admin token (200).
    case eviction
}

/// What the clients saw in one sampling window.
struct BenchSoakWindow: Sendable {
    var hitLatenciesMs: [Double] = []
    var requests: [BenchSoakRequestKind: Int] = [:]
    /// Hot requests answered by a miss: the hot set was evicted, which the load is sized to avoid.
    var hotMisses = 0
    /// Answers the load did not ask for, by kind ("miss: 503 busy", "hit: no answer: …").
    var errors: [String: Int] = [:]

    var requestCount: Int { requests.values.reduce(0, +) }
    var errorCount: Int { errors.values.reduce(0, +) }
}

/// Where the clients' threads record each request; the sampler takes a window's worth at each
/// sample and the whole run's counts at the end.
final class BenchSoakRecorder: Sendable {
    private let window = Mutex(BenchSoakWindow())
    private let totals = Mutex(BenchSoakWindow())

    func request(_ kind: BenchSoakRequestKind, hitLatencyMs: Double? = nil, hotMiss: Bool = false) {
        window.withLock { Self.add(kind, hitLatencyMs, hotMiss, to: &$0) }
        // The run's totals keep no latencies: 100 a second for 30 minutes would be kept for nothing.
        totals.withLock { Self.add(kind, nil, hotMiss, to: &$0) }
    }

    /// An answer the load did not ask for (counted as a request of `kind` too).
    func error(_ kind: BenchSoakRequestKind, _ what: String) {
        let label = "\(kind.rawValue): \(what)"
        window.withLock { Self.add(kind, nil, false, to: &$0); $0.errors[label, default: 0] += 1 }
        totals.withLock { Self.add(kind, nil, false, to: &$0); $0.errors[label, default: 0] += 1 }
    }

    /// The window since the last call, and a new one started.
    func takeWindow() -> BenchSoakWindow {
        window.withLock { current in
            defer { current = BenchSoakWindow() }
            return current
        }
    }

    var runTotals: BenchSoakWindow { totals.withLock { $0 } }

    private static func add(_ kind: BenchSoakRequestKind, _ latency: Double?, _ hotMiss: Bool, to window: inout BenchSoakWindow) {
        window.requests[kind, default: 0] += 1
        if let latency { window.hitLatenciesMs.append(latency) }
        if hotMiss { window.hotMisses += 1 }
    }
}
