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
/// shipped config/nginx/thumbd.conf, and a loopback origin: the fleet an operator builds from the
/// README, on 127.0.0.1. Nodes can be killed, stopped and started again on their old directories.
final class FleetHarness: Sendable {
    static let adminToken = "fleet-test-token"

    let origin: TestOrigin
    let directory: URL
    let nodePorts: [Int]
    let nginxPort: Int
    private let nodes: Mutex<[BackgroundProcess?]>
    private let nginx: Mutex<BackgroundProcess?>
    private let starts = Atomic<Int>(0)
    let client: HTTPClient

    /// nginx, or why the fleet tests cannot run here.
    static let nginxExecutable: String? = BackgroundProcess.which("nginx")
    static let nginxMissing = "nginx is not installed (make test installs it): the fleet tests are SKIPPED"

    init(origin: TestOrigin, nodeCount: Int = 3, edgeCache: Bool = false) async throws {
        guard let executable = Self.nginxExecutable else { throw TestFailure(Self.nginxMissing) }
        self.origin = origin
        directory = try TestDaemon.temporaryDirectory()
        nodePorts = try (0..<nodeCount).map { _ in try BackgroundProcess.freePort() }
        nginxPort = try BackgroundProcess.freePort()
        nodes = Mutex(Array(repeating: nil, count: nodeCount))
        nginx = Mutex(nil)
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5)))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

        var config = FleetNginxConfig(listenPort: nginxPort, nodePorts: nodePorts, directory: directory.appendingPathComponent("nginx"))
        config.edgeCache = edgeCache
        let file = try config.write()
        let process = try BackgroundProcess(name: "nginx", program: executable, arguments: config.arguments(configuration: file),
                                            environment: ProcessInfo.processInfo.environment,
                                            stdoutPath: directory.appendingPathComponent("nginx/stdout.log").path)
        nginx.withLock { $0 = process }
        for index in 0..<nodeCount { try start(index) }
        for index in 0..<nodeCount { try await waitReady(index) }
        try await waitForNginx()
    }

    /// `thumbd serve` for node `index` on its port and its own cache directory (kept across restarts).
    func start(_ index: Int) throws {
        let run = starts.wrappingAdd(1, ordering: .relaxed).newValue
        var environment = ProcessInfo.processInfo.environment
        environment["THUMBD_LISTEN"] = "127.0.0.1:\(nodePorts[index])"
        environment["THUMBD_CACHE_DIR"] = directory.appendingPathComponent("node-\(index)").path
        environment["THUMBD_ALLOW_NETWORKS"] = "127.0.0.1/32"
        environment["THUMBD_ADMIN_TOKEN"] = Self.adminToken
        environment["THUMBD_FLEET_ENTRY"] = "http://127.0.0.1:\(nginxPort)"
        environment["THUMBD_SERVER_ACCESS_LOG"] = "false"
        environment["THUMBD_SERVER_DRAIN_GRACE"] = "1"
        environment["THUMBD_PIPELINE_WORKER_THREADS"] = "1"
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
        EntryPointMaker.thumbnailPath(url: url, spec: Variant(size: size))
    }

    /// A fleet and its origin for `body`, stopped afterwards whether `body` throws or not.
    static func run(edgeCache: Bool = false, _ body: (FleetHarness, TestOrigin) async throws -> Void) async throws {
        let origin = try await TestOrigin.start()
        let fleet: FleetHarness
        do { fleet = try await FleetHarness(origin: origin, edgeCache: edgeCache) } catch {
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
        for index in nodePorts.indices { result.append(try await urls(onNode: index)) }
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
        var count: Int { statuses.values.reduce(0, +) + errors }
        var failed: Int { errors + statuses.filter { $0.key != 200 }.map(\.value).reduce(0, +) }
    }

    /// Requests `paths` through nginx, `concurrency` at a time; `progress` is told after each answer.
    func load(_ paths: [String], concurrency: Int, progress: @escaping @Sendable (Int) -> Void = { _ in }) async -> LoadOutcome {
        await withTaskGroup(of: (String, Result<Reply, any Error>).self) { group in
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
                group.addTask { (path, await Result { try await self.get(path) }) }
                next += 1
            }
            for await (path, result) in group {
                record(path, result)
                if next < paths.count {
                    let path = paths[next]
                    group.addTask { (path, await Result { try await self.get(path) }) }
                    next += 1
                }
            }
            return outcome
        }
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
