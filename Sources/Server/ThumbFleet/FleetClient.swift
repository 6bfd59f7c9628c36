import AsyncHTTPClient
import NIOCore

/// The HTTP client for the entry point and the nodes: operator-configured addresses, so no
/// private-address guard (unlike origin downloads), no redirects, short connect timeout.
public final class FleetClient: Sendable {
    private let client: HTTPClient
    private let requestTimeout: Duration

    public init(settings: FleetSettings) {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow,
                                                     timeout: .init(connect: .nanoseconds(Int64(settings.connectTimeout.nanosecondsClamped))))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        requestTimeout = settings.requestTimeout
    }

    func http(_ role: FleetHTTP.Role) -> FleetHTTP {
        FleetHTTP(client: client, requestTimeout: requestTimeout, role: role)
    }

    public func shutdown() async {
        try? await client.shutdown()
    }
}
