import NIOCore
import NIOHTTP1
import Synchronization

/// Everything the origin's connections and its test share, behind one lock.
final class OriginState: Sendable {
    struct State {
        var routes: [String: OriginRoute]
        var requests: [RecordedRequest] = []
        var earlyCloses: [String: Int] = [:]
        var openChannels: [Int: any Channel] = [:]
        var connectionsAccepted = 0
        var shuttingDown = false
    }

    let state: Mutex<State>

    init(routes: [String: OriginRoute]) {
        self.state = Mutex(State(routes: routes))
    }

    /// Registers an accepted connection and returns its number (1, 2, ...).
    func accepted(_ channel: any Channel) -> Int {
        self.state.withLock { state in
            state.connectionsAccepted += 1
            state.openChannels[state.connectionsAccepted] = channel
            return state.connectionsAccepted
        }
    }

    func closed(connection: Int) {
        self.state.withLock { _ = $0.openChannels.removeValue(forKey: connection) }
    }

    /// Records a request head and picks the route that answers it: the full target (path and query)
    /// first, then the path alone, else 404.
    func record(_ head: HTTPRequestHead, connection: Int) -> (path: String, route: OriginRoute) {
        let path = TestOrigin.pathOnly(head.uri)
        let headers = head.headers.map { (name: $0.name.lowercased(), value: $0.value) }
        return self.state.withLock { state in
            state.requests.append(
                RecordedRequest(
                    method: head.method.rawValue,
                    uri: head.uri,
                    path: path,
                    headers: headers,
                    at: .now,
                    connection: connection
                )
            )
            let route = state.routes[head.uri] ?? state.routes[path] ?? .status(404, body: "no route for \(path)\n")
            return (path, route)
        }
    }

    /// Counts a connection the client closed before `path`'s response was fully sent.
    /// Closes made by the origin's own shutdown are not counted.
    func earlyClose(_ path: String) {
        self.state.withLock { state in
            guard !state.shuttingDown else { return }
            state.earlyCloses[path, default: 0] += 1
        }
    }

    /// Marks the origin as shutting down and returns the connections to close, or nil if it already was.
    func beginShutdown() -> [any Channel]? {
        self.state.withLock { state in
            guard !state.shuttingDown else { return nil }
            state.shuttingDown = true
            return Array(state.openChannels.values)
        }
    }
}
