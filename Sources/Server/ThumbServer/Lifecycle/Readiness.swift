import Hummingbird
import Synchronization

/// Whether this node should be sent work: what `/readyz` answers, and what makes every response
/// say `Connection: close` once the node is draining (so a balancer's kept-alive connections end
/// cleanly instead of meeting a closed listener).
public final class Readiness: Sendable {
    public enum State: UInt8, Sendable {
        /// Up, but not yet listening with its cache open.
        case starting
        case ready
        /// SIGTERM arrived: still answering, soon to stop.
        case draining
    }

    private let state = Atomic<UInt8>(State.starting.rawValue)

    public init() {}

    public var current: State { State(rawValue: state.load(ordering: .relaxed)) ?? .starting }

    var isDraining: Bool { state.load(ordering: .relaxed) == State.draining.rawValue }

    /// Ready once; a draining node never becomes ready again.
    func markReady() {
        _ = state.compareExchange(expected: State.starting.rawValue, desired: State.ready.rawValue, ordering: .relaxed)
    }

    func markDraining() { state.store(State.draining.rawValue, ordering: .relaxed) }

    /// `GET /readyz`: 200 when the node takes work, else 503 problem+json `starting` or `draining`.
    func response(retryAfter: Int) throws -> Response {
        switch current {
        case .ready:
            return try JSONResponse.make(["status": "ready"])
        case .starting:
            throw Problem(.serviceUnavailable, code: "starting", detail: "thumbd is opening its cache", retryAfter: retryAfter)
        case .draining:
            var problem = Problem(.serviceUnavailable, code: "draining", detail: "thumbd is shutting down; send work to another node",
                                  retryAfter: retryAfter)
            problem.closesConnection = true
            throw problem
        }
    }
}
