import Logging
import ServiceLifecycle
import ServiceNotify

/// The first service told to stop (SIGTERM, SIGINT or `Daemon.stop()`): it turns the node
/// not-ready at once and keeps the listener open for `grace`, so a balancer watching `/readyz`, or
/// seeing `Connection: close` on its kept-alive connections, moves traffic away before connections
/// are refused. Only then does the HTTP server stop accepting and drain what is in flight.
struct DrainGate: Service {
    let readiness: Readiness
    let grace: Duration
    let logger: Logger

    func run() async throws {
        // Returns when a graceful shutdown begins (or throws when the group is cancelled).
        do { try await gracefulShutdown() } catch { return }
        readiness.markDraining()
        SystemdNotify.stopping(status: "draining")
        logger.notice("draining: /readyz answers 503; the listener closes after the drain grace",
                      metadata: ["drain_grace_s": "\(grace.components.seconds)"])
        try? await Task.sleep(for: grace)
    }
}
