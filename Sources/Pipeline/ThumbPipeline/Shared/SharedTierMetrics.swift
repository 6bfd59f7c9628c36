import Metrics
import Synchronization

/// What the shared tier did, counted for /metrics and, readable, for the inspector.
public struct SharedTierMetrics: Sendable {
    enum Event: Int, CaseIterable {
        case hit, miss, readError, write, writeError, writeDropped, eviction, readSkipped, writeSkipped
    }

    private let counters: [Counter]
    private let tally: Tally
    /// 0 closed, 1 open, 0.5 half-open (a probe out).
    private let breakerGauge: Gauge

    public init(factory: any MetricsFactory = NOOPMetricsHandler.instance) {
        counters = Event.allCases.map { event in
            switch event {
            case .hit: Counter(label: "thumbd_shared_hits_total", factory: factory)
            case .miss: Counter(label: "thumbd_shared_misses_total", factory: factory)
            case .readError: Counter(label: "thumbd_shared_errors_total", dimensions: [("op", "read")], factory: factory)
            case .write: Counter(label: "thumbd_shared_writes_total", factory: factory)
            case .writeError: Counter(label: "thumbd_shared_errors_total", dimensions: [("op", "write")], factory: factory)
            case .writeDropped: Counter(label: "thumbd_shared_writes_dropped_total", factory: factory)
            case .eviction: Counter(label: "thumbd_shared_evictions_total", factory: factory)
            case .readSkipped: Counter(label: "thumbd_shared_skipped_total", dimensions: [("op", "read")], factory: factory)
            case .writeSkipped: Counter(label: "thumbd_shared_skipped_total", dimensions: [("op", "write")], factory: factory)
            }
        }
        tally = Tally()
        breakerGauge = Gauge(label: "thumbd_shared_breaker_open", factory: factory)
    }

    func breakerState(_ state: SharedTierBreaker.State) {
        breakerGauge.record(state == .open ? 1 : state == .halfOpen ? 0.5 : 0)
    }

    func count(_ event: Event, by amount: Int = 1) {
        counters[event.rawValue].increment(by: Int64(amount))
        tally.values.withLock { $0[event.rawValue] += amount }
    }

    var counts: SharedTierCounts {
        let values = tally.values.withLock { $0 }
        func value(_ event: Event) -> Int { values[event.rawValue] }
        return SharedTierCounts(hits: value(.hit), misses: value(.miss), errors: value(.readError) + value(.writeError),
                                writes: value(.write), writesDropped: value(.writeDropped), evictions: value(.eviction),
                                skipped: value(.readSkipped) + value(.writeSkipped))
    }

    private final class Tally: Sendable {
        let values = Mutex([Int](repeating: 0, count: Event.allCases.count))
    }
}

/// The shared tier's counters at one moment.
public struct SharedTierCounts: Sendable, Equatable, Codable {
    public var hits: Int
    public var misses: Int
    /// Reads and writes that failed or timed out (each fell back: a read to the origin).
    public var errors: Int
    public var writes: Int
    public var writesDropped: Int
    public var evictions: Int
    /// Reads answered as misses and writes not sent while the breaker was open.
    public var skipped: Int
    /// The breaker: closed (asked), open (not asked, misses go to the origin) or half-open (a probe out).
    public var breaker = SharedTierBreaker.State.closed.rawValue
}
