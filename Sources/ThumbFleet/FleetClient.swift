import AsyncHTTPClient
import NIOCore

/// The HTTP client for the entry point and the nodes: operator-configured addresses, so no
/// private-address guard (unlike origin downloads), no redirects, short connect timeout.
public final class FleetClient: Sendable {
    let http: FleetHTTP

    public init(settings: FleetSettings) {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow,
                                                     timeout: .init(connect: .nanoseconds(Int64(settings.connectTimeout.nanosecondsClamped))))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        http = FleetHTTP(client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration),
                         requestTimeout: settings.requestTimeout)
    }

    public func shutdown() async {
        try? await http.client.shutdown()
    }
}
