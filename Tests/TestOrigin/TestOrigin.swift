import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A real HTTP/1.1 origin on 127.0.0.1 for tests, with configurable latency and faults.
///
/// It runs on its own one-thread event loop group; `shutdown()` closes the listening socket, every
/// open connection and the group. Every request head is recorded when it arrives, before any latency.
/// Routes are looked up by the full request target (path and query) first, then by the path alone;
/// unknown paths answer 404. Keep-alive works as HTTP/1.1 has it. Started with a `TestOriginTLS`
/// identity it speaks HTTPS instead (the same routes, behind TLS).
public final class TestOrigin: Sendable {
    /// The port the origin listens on, at 127.0.0.1.
    public let port: Int
    /// "https" when started with a TLS identity, else "http".
    public let scheme: String

    private let group: MultiThreadedEventLoopGroup
    private let serverChannel: any Channel
    private let shared: OriginState

    private init(port: Int, scheme: String, group: MultiThreadedEventLoopGroup, serverChannel: any Channel, shared: OriginState) {
        self.port = port
        self.scheme = scheme
        self.group = group
        self.serverChannel = serverChannel
        self.shared = shared
    }

    /// Starts an origin on 127.0.0.1 at an ephemeral port; with `tls`, an HTTPS one presenting
    /// that certificate.
    public static func start(routes: [String: OriginRoute] = [:], tls: TestOriginTLS? = nil) async throws -> TestOrigin {
        let shared = OriginState(routes: routes)
        // Built before the group so a bad certificate file leaks no thread.
        let sslContext = try tls.map { try $0.makeContext() }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 512)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let connection = shared.accepted(channel)
                        channel.closeFuture.whenComplete { _ in shared.closed(connection: connection) }
                        if let sslContext {
                            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                        }
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(
                            OriginHandler(shared: shared, connection: connection)
                        )
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
            guard let port = channel.localAddress?.port else {
                try? await channel.close()
                throw ChannelError.unknownLocalAddress
            }
            return TestOrigin(port: port, scheme: tls == nil ? "http" : "https", group: group, serverChannel: channel, shared: shared)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    deinit {
        // A test that forgot `shutdown()` should not leak the loop thread and its sockets.
        if self.shared.beginShutdown() != nil {
            self.group.shutdownGracefully { _ in }
        }
    }

    /// `SCHEME://HOST:PORT` followed by `pathAndQuery` (a leading `/` is added when missing).
    public func url(_ pathAndQuery: String, host: String = "127.0.0.1") -> String {
        let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let target = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        return "\(self.scheme)://\(hostPart):\(self.port)\(target)"
    }

    /// Sets (or replaces) the route for `path`; requests arriving afterwards use it.
    /// `path` may carry a query to answer only that exact target.
    public func setRoute(_ path: String, _ route: OriginRoute) {
        self.shared.state.withLock { $0.routes[path] = route }
    }

    /// Removes the route for `path`, which then answers 404.
    public func removeRoute(_ path: String) {
        self.shared.state.withLock { _ = $0.routes.removeValue(forKey: path) }
    }

    /// How many requests for `path` arrived, whatever their query (a query in `path` is ignored too).
    public func requestCount(_ path: String) -> Int {
        let path = Self.pathOnly(path)
        return self.shared.state.withLock { state in state.requests.reduce(0) { $0 + ($1.path == path ? 1 : 0) } }
    }

    /// How many requests arrived, for any path.
    public var totalRequests: Int {
        self.shared.state.withLock { $0.requests.count }
    }

    /// The requests for `path` (query ignored, as in `requestCount`), in arrival order.
    public func requests(_ path: String) -> [RecordedRequest] {
        let path = Self.pathOnly(path)
        return self.shared.state.withLock { state in state.requests.filter { $0.path == path } }
    }

    /// Every request, in arrival order.
    public var allRequests: [RecordedRequest] {
        self.shared.state.withLock { $0.requests }
    }

    /// How many connections the client closed before `path`'s response was fully sent (during latency,
    /// a stall, an endless or a partly sent body). Server-side closes (`truncated`, shutdown) do not count.
    public func earlyCloses(_ path: String) -> Int {
        let path = Self.pathOnly(path)
        return self.shared.state.withLock { $0.earlyCloses[path, default: 0] }
    }

    /// How many connections were accepted so far (a pool reusing connections keeps this low).
    public var connectionsAccepted: Int {
        self.shared.state.withLock { $0.connectionsAccepted }
    }

    /// How many accepted connections are still open.
    public var openConnections: Int {
        self.shared.state.withLock { $0.openChannels.count }
    }

    /// When the latest request head arrived, or nil before any.
    public func lastRequestTime() -> ContinuousClock.Instant? {
        self.shared.state.withLock { $0.requests.last?.at }
    }

    /// Waits until at least `count` requests for `path` arrived; false if `timeout` passed first.
    public func waitForRequests(_ path: String, count: Int, timeout: Duration) async -> Bool {
        await Self.poll(timeout: timeout) { self.requestCount(path) >= count }
    }

    /// Waits until at least `count` requests arrived in all; false if `timeout` passed first.
    public func waitForTotalRequests(count: Int, timeout: Duration) async -> Bool {
        await Self.poll(timeout: timeout) { self.totalRequests >= count }
    }

    /// Waits until at least `count` early closes were counted for `path`; false if `timeout` passed first.
    public func waitForEarlyClose(_ path: String, count: Int = 1, timeout: Duration) async -> Bool {
        await Self.poll(timeout: timeout) { self.earlyCloses(path) >= count }
    }

    /// Closes the listening socket and every connection, then shuts the event loop down.
    /// Calling it again does nothing.
    public func shutdown() async throws {
        guard let connections = self.shared.beginShutdown() else { return }
        try? await self.serverChannel.close()
        for connection in connections {
            try? await connection.close()
        }
        try await self.group.shutdownGracefully()
    }

    /// The bytes a `.sized(length:)` route sends: byte `i` is `UInt8(i % 251)`.
    public static func sizedBytes(_ length: Int) -> [UInt8] {
        (0..<max(length, 0)).map { UInt8($0 % 251) }
    }

    /// The path of a request target: the query and fragment stripped.
    static func pathOnly(_ uri: String) -> String {
        if let end = uri.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            return String(uri[..<end])
        }
        return uri
    }

    private static func poll(timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if condition() { return true }
            let now = clock.now
            if now >= deadline { return false }
            do {
                try await Task.sleep(for: min(.milliseconds(5), deadline - now))
            } catch {
                return condition()  // cancelled: answer now rather than spin
            }
        }
    }
}
