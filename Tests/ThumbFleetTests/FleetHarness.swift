import AsyncHTTPClient
import ChildProcess
import DaemonTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import TestOrigin
import TestSupport
import ThumbFleet
import ThumbPipeline
import ThumbServer
import ThumbVariant

/// Three `thumbd serve` processes, each with its own cache directory, behind nginx running the
/// shipped config/nginx/thumbd.conf, and a loopback origin: the fleet an operator builds from
/// docs/operations.md, "Setting it up", on 127.0.0.1. Nodes can be killed, stopped and started again on their old directories
/// or on empty ones, and spare nodes added (nginx reloaded).
final class FleetHarness: Sendable {
    static let adminToken = "fleet-test-token"

    let origin: TestOrigin
    let directory: URL
    /// Every node's port, the spare nodes' last.
    let nodePorts: [Int]
    let nginxPort: Int
    /// Settings every node gets beyond the harness's own.
    let extraEnvironment: [String: String]
    /// Nodes nginx sends requests to: the first `activeNodes` of `nodePorts`.
    private let activeNodes: Mutex<Int>
    /// Each node's cache directory, by name under `directory`.
    private let cacheFolders: Mutex<[String]>
    private let edgeCache: Bool
    private let nodes: Mutex<[BackgroundProcess?]>
    private let nginx: Mutex<BackgroundProcess?>
    private let starts = Atomic<Int>(0)
    let client: HTTPClient

    /// nginx, or why the fleet tests cannot run here.
    static let nginxExecutable: String? = BackgroundProcess.which("nginx")
    static let nginxMissing = "nginx is not installed (make test installs it): the fleet tests cannot run"

    init(origin: TestOrigin, nodeCount: Int = 3, spareNodes: Int = 0, edgeCache: Bool = false,
         extraEnvironment: [String: String] = [:]) async throws {
        guard let executable = Self.nginxExecutable else { throw TestFailure(Self.nginxMissing) }
        self.origin = origin
        self.extraEnvironment = extraEnvironment
        self.edgeCache = edgeCache
        directory = try TestDaemon.temporaryDirectory()
        nodePorts = try (0..<(nodeCount + spareNodes)).map { _ in try BackgroundProcess.freePort() }
        nginxPort = try BackgroundProcess.freePort()
        activeNodes = Mutex(nodeCount)
        cacheFolders = Mutex((0..<(nodeCount + spareNodes)).map { "node-\($0)" })
        nodes = Mutex(Array(repeating: nil, count: nodeCount + spareNodes))
        nginx = Mutex(nil)
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5)))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

        let file = try Self.writeNginxConfig(listenPort: nginxPort, nodePorts: Array(nodePorts.prefix(nodeCount)),
                                             directory: directory.appendingPathComponent("nginx"), edgeCache: edgeCache)
        let arguments = FleetNginxConfig(listenPort: nginxPort, nodePorts: [], directory: directory.appendingPathComponent("nginx"))
            .arguments(configuration: file)
        let process = try BackgroundProcess(name: "nginx", program: executable, arguments: arguments,
                                            environment: ProcessInfo.processInfo.environment,
                                            stdoutPath: directory.appendingPathComponent("nginx/stdout.log").path)
        nginx.withLock { $0 = process }
        for index in 0..<nodeCount { try start(index) }
        for index in 0..<nodeCount { try await waitReady(index) }
        try await waitForNginx()
    }

    private static func writeNginxConfig(listenPort: Int, nodePorts: [Int], directory: URL, edgeCache: Bool) throws -> String {
        var config = FleetNginxConfig(listenPort: listenPort, nodePorts: nodePorts, directory: directory)
        config.edgeCache = edgeCache
        return try config.write()
    }

    /// `thumbd serve` for node `index` on its port and its own cache directory (kept across
    /// restarts unless `emptyDirectory`: a new node in the old one's place).
    func start(_ index: Int, emptyDirectory: Bool = false) throws {
        let run = starts.wrappingAdd(1, ordering: .relaxed).newValue
        let folder = cacheFolders.withLock { folders in
            if emptyDirectory { folders[index] = "node-\(index)-run-\(run)" }
            return folders[index]
        }
        var environment = ProcessInfo.processInfo.environment
        environment["THUMBD_LISTEN"] = "127.0.0.1:\(nodePorts[index])"
        environment["THUMBD_CACHE_DIR"] = directory.appendingPathComponent(folder).path
        environment["THUMBD_ALLOW_NETWORKS"] = "127.0.0.1/32"
        environment["THUMBD_ADMIN_TOKEN"] = Self.adminToken
        environment["THUMBD_FLEET_ENTRY"] = "http://127.0.0.1:\(nginxPort)"
        environment["THUMBD_SERVER_ACCESS_LOG"] = "false"
        environment["THUMBD_SERVER_DRAIN_GRACE"] = "1"
        environment["THUMBD_PIPELINE_WORKER_THREADS"] = "1"
        environment.merge(extraEnvironment) { $1 }
        let process = try BackgroundProcess(name: "node \(index)", program: ServeProcess.executable, arguments: ["serve"],
                                            environment: environment,
                                            stdoutPath: directory.appendingPathComponent("node-\(index)-run-\(run).log").path)
        nodes.withLock { $0[index] = process }
    }

    func waitReady(_ index: Int, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let reply = try? await get("/readyz", node: index), reply.status == 200 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("node \(index) did not become ready: \(nodeLog(index))")
    }

    /// Starts the next spare node and, once it is ready, reloads nginx with it among the nodes
    /// (SIGHUP: new workers, the old ones finish their requests); its index.
    func addNode() async throws -> Int {
        let index = activeNodes.withLock { $0 }
        guard index < nodePorts.count else { throw TestFailure("no spare node left: give the harness spareNodes") }
        try start(index)
        try await waitReady(index)
        _ = try Self.writeNginxConfig(listenPort: nginxPort, nodePorts: Array(nodePorts.prefix(index + 1)),
                                      directory: directory.appendingPathComponent("nginx"), edgeCache: edgeCache)
        activeNodes.withLock { $0 = index + 1 }
        guard let master = nginx.withLock({ $0 }) else { throw TestFailure("nginx is not running") }
        kill(master.pid, SIGHUP)
        return index
    }

    /// One counter of node `index`'s /metrics (summed over its labels), 0 when absent.
    func metric(_ name: String, node index: Int) async throws -> Double {
        let reply = try await get("/metrics", node: index)
        guard reply.status == 200 else { throw TestFailure("node \(index) /metrics: \(reply.status)") }
        var total = 0.0
        for line in String(decoding: reply.body, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard line.hasPrefix(name + " ") || line.hasPrefix(name + "{"), let space = line.lastIndex(of: " ") else { continue }
            total += Double(line[line.index(after: space)...]) ?? 0
        }
        return total
    }

    private func waitForNginx() async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let reply = try? await get("/healthz"), reply.status == 200 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("nginx/error.log"), encoding: .utf8)) ?? ""
        throw TestFailure("nginx did not answer on \(nginxPort): \(log)")
    }

    /// Sends `signal` to node `index` and waits for it to exit; its exit status.
    @discardableResult
    func stop(_ index: Int, signal: Int32) -> Int32? {
        guard let process = nodes.withLock({ $0[index] }) else { return nil }
        return process.stop(signal, grace: 30)
    }

    func nodeLog(_ index: Int) -> String {
        nodes.withLock { $0[index]?.stderrTail(lines: 20) } ?? ""
    }

    /// `path` through nginx, or straight to node `index`.
    func get(_ path: String, node: Int? = nil, method: HTTPMethod = .GET, headers: [(String, String)] = [],
             body: [UInt8]? = nil) async throws -> Reply {
        let port = node.map { nodePorts[$0] } ?? nginxPort
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let collected = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Array(collected.readableBytesView))
    }

    /// The thumbnail query as thumbd's own fleet clients write it (canonical encoding), so nginx
    /// hashes the same `url` text for the tests' requests and the prefetch items.
    static func thumbnailPath(_ url: String, size: Int) -> String {
        EntryPointMaker.thumbnailPath(url: url, variant: Variant(size: size))
    }

    /// A fleet and its origin for `body`, stopped afterwards whether `body` throws or not.
    static func run(edgeCache: Bool = false, spareNodes: Int = 0, extraEnvironment: [String: String] = [:],
                    _ body: (FleetHarness, TestOrigin) async throws -> Void) async throws {
        let origin = try await TestOrigin.start()
        let fleet: FleetHarness
        do {
            fleet = try await FleetHarness(origin: origin, spareNodes: spareNodes, edgeCache: edgeCache, extraEnvironment: extraEnvironment)
        } catch {
            try? await origin.shutdown()
            throw error
        }
        do { try await body(fleet, origin) } catch {
            try? await fleet.shutdown()
            try? await origin.shutdown()
            throw error
        }
        try await fleet.shutdown()
        try await origin.shutdown()
    }

    /// The source URLs each node holds in its disk index (thumbnails and originals), by node.
    func urlsByNode() async throws -> [Set<String>] {
        var result: [Set<String>] = []
        for index in 0..<activeNodes.withLock({ $0 }) { result.append(try await urls(onNode: index)) }
        return result
    }

    func urls(onNode index: Int) async throws -> Set<String> {
        var urls = Set<String>()
        var offset = 0
        while true {
            let reply = try await get("/v1/cache/entries?limit=1000&offset=\(offset)", node: index)
            guard reply.status == 200, let object = try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any],
                  let entries = object["entries"] as? [[String: Any]] else {
                throw TestFailure("node \(index) listing: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
            }
            for entry in entries { if let url = entry["url"] as? String { urls.insert(url) } }
            if entries.count < 1000 { return urls }
            offset += 1000
        }
    }

    struct LoadOutcome: Sendable {
        var statuses: [Int: Int] = [:]
        /// Requests that got no HTTP answer at all.
        var errors = 0
        /// The first failures, for the test's message.
        var samples: [String] = []
        /// Requests sent a second time because nginx closed their kept-alive connection first.
        var resent = 0
        var count: Int { statuses.values.reduce(0, +) + errors }
        var failed: Int { errors + statuses.filter { $0.key != 200 }.map(\.value).reduce(0, +) }
    }

    /// Requests `paths` through nginx, `concurrency` at a time; `progress` is told after each answer.
    /// `resendClosedConnections`: a request whose kept-alive connection nginx closed before answering
    /// (its old workers do when it reloads) is sent again once, as browsers do (RFC 9112, 9.3.1),
    /// and counted in `resent`; otherwise it is a failure.
    func load(_ paths: [String], concurrency: Int, resendClosedConnections: Bool = false,
              progress: @escaping @Sendable (Int) -> Void = { _ in }) async -> LoadOutcome {
        let resent = Atomic<Int>(0)
        let fetch: @Sendable (String) async throws -> Reply = { path in
            // The client's pool can hold several connections nginx has closed: a few tries.
            for _ in 0..<4 {
                do { return try await self.get(path) } catch where resendClosedConnections && Self.closedBeforeAnswer(error) {
                    resent.wrappingAdd(1, ordering: .relaxed)
                }
            }
            return try await self.get(path)
        }
        var outcome = await withTaskGroup(of: (String, Result<Reply, any Error>).self) { group in
            var outcome = LoadOutcome()
            var next = 0
            func record(_ path: String, _ result: Result<Reply, any Error>) {
                switch result {
                case .success(let reply):
                    outcome.statuses[reply.status, default: 0] += 1
                    if reply.status != 200, outcome.samples.count < 20 {
                        outcome.samples.append("\(reply.status) \(path): \(String(decoding: reply.body.prefix(300), as: UTF8.self))")
                    }
                case .failure(let error):
                    outcome.errors += 1
                    if outcome.samples.count < 20 { outcome.samples.append("\(path): \(error)") }
                }
                progress(outcome.count)
            }
            while next < min(concurrency, paths.count) {
                let path = paths[next]
                group.addTask { (path, await Result { try await fetch(path) }) }
                next += 1
            }
            for await (path, result) in group {
                record(path, result)
                if next < paths.count {
                    let path = paths[next]
                    group.addTask { (path, await Result { try await fetch(path) }) }
                    next += 1
                }
            }
            return outcome
        }
        outcome.resent = resent.load(ordering: .relaxed)
        return outcome
    }

    /// The connection was closed before an answer came: the server closed it while idle. A worker
    /// that closes a connection whose request it has not read makes the kernel answer with a reset,
    /// so a reset is one too (one CI run: two GETs failed with ECONNRESET as nginx reloaded).
    private static func closedBeforeAnswer(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed { return true }
        if let error = error as? ChannelError, error == .ioOnClosedChannel { return true }
        if let error = error as? IOError, error.errnoCode == ECONNRESET || error.errnoCode == EPIPE { return true }
        return false
    }

    func shutdown() async throws {
        for index in nodePorts.indices { stop(index, signal: SIGTERM) }
        // SIGTERM: nginx's fast shutdown. (SIGQUIT waits for kept-alive client connections; a
        // master killed after that leaves its workers behind.)
        _ = nginx.withLock { $0 }?.stop(SIGTERM, grace: 10)
        try await client.shutdown()
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
