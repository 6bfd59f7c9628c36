import Prometheus
import Synchronization

/// What one client may hold: how many connections may be open at once (over it, new ones are
/// closed as soon as they are accepted, and counted), and how long a connection may take at each
/// step before it is closed (`ConnectionDeadlines`).
final class ConnectionLimits: Sendable {
    struct Timeouts: Sendable {
        /// A request's head must arrive whole within this, from the connection's start or from its
        /// first byte on a kept-alive connection.
        var header: Duration
        /// Between requests on a kept-alive connection.
        var keepAlive: Duration
        /// Between two reads of a request's body (an upload).
        var body: Duration
        /// A response the client does not read: how long the connection may stay unable to take more.
        var send: Duration
    }

    /// Why a connection was closed by the daemon rather than by its client.
    enum Reason: String, Sendable, CaseIterable {
        case header = "header_timeout"
        case keepAlive = "keepalive_timeout"
        case body = "body_timeout"
        case send = "send_timeout"
    }

    let maxConnections: Int
    let timeouts: Timeouts
    private let open = Atomic<Int>(0)
    private let openGauge: Gauge
    private let refused: Counter
    private let closed: [Reason: Counter]

    init(maxConnections: Int, timeouts: Timeouts, registry: PrometheusCollectorRegistry) {
        self.maxConnections = maxConnections
        self.timeouts = timeouts
        openGauge = registry.makeGauge(descriptor: metric("connections_open", help: "Client connections open now"))
        refused = registry.makeCounter(descriptor: metric("connections_refused", unit: "total",
                                                          help: "Connections closed as soon as accepted: server.max_connections were open"))
        var closed: [Reason: Counter] = [:]
        for reason in Reason.allCases {
            closed[reason] = registry.makeCounter(descriptor: metric("connections_timed_out", unit: "total",
                                                                     help: "Connections the daemon closed for taking too long, by step"),
                                                  labels: [("reason", reason.rawValue)])
        }
        self.closed = closed
    }

    /// Counts a new connection in; false (and counted as refused) when the cap is reached.
    func admit() -> Bool {
        let count = open.add(1, ordering: .relaxed).newValue
        guard count <= maxConnections else {
            open.subtract(1, ordering: .relaxed)
            refused.increment()
            return false
        }
        openGauge.set(Double(count))
        return true
    }

    func release() {
        openGauge.set(Double(open.subtract(1, ordering: .relaxed).newValue))
    }

    func timedOut(_ reason: Reason) {
        closed[reason]?.increment()
    }

    var openConnections: Int { open.load(ordering: .relaxed) }

    func timeout(_ reason: Reason) -> Duration {
        switch reason {
        case .header: timeouts.header
        case .keepAlive: timeouts.keepAlive
        case .body: timeouts.body
        case .send: timeouts.send
        }
    }
}
