import Foundation
import NIOHTTP1
import ThumbCache

/// What concerns every node of a fleet, sent to each of them at once: evicting a host (or a URL
/// wherever copies are), and the fleet's cache totals. A node that does not answer is reported
/// beside the others' answers; it never stops them.
public struct FleetNodes: Sendable {
    public let nodes: [String]
    private let http: FleetHTTP

    public init(nodes: [String], client: FleetClient) {
        self.nodes = nodes
        http = client.http(.node)
    }

    /// One node's answer to an eviction: what each tier removed, or why it failed.
    public struct Eviction: Sendable, Encodable {
        public var node: String
        public var removed: CacheRemoval?
        public var error: String?
        public var code: String?
    }

    /// `DELETE /v1/cache/entries?url=` or `?host=` on every node, with the admin token.
    public func evict(_ scope: CacheScope, token: String?) async -> [Eviction] {
        let query: String
        switch scope {
        case .entry(let key): query = CanonicalQuery.write([("url", key.url.value), ("variant", key.variant.description)])
        case .url(let url): query = CanonicalQuery.write([("url", url.value)])
        case .host(let host): query = CanonicalQuery.write([("host", host)])
        }
        let headers = token.map { [("Authorization", "Bearer \($0)")] } ?? []
        return await each { node in
            do {
                let answer = try await http.send(.DELETE, node + "/v1/cache/entries?" + query, headers: headers)
                guard answer.status == 200 else {
                    let problem = http.problem(of: answer, from: node)
                    return Eviction(node: node, error: "HTTP \(answer.status): \(problem.detail)", code: problem.code)
                }
                let body = try JSONDecoder().decode(RemovalAnswer.self, from: Data(answer.body))
                return Eviction(node: node, removed: body.removed)
            } catch let error as FleetCallError {
                return Eviction(node: node, error: error.message, code: error.code)
            } catch {
                return Eviction(node: node, error: "\(node) answered something that is not thumbd's eviction report: \(error)",
                                code: "invalid_answer")
            }
        }
    }

    /// One node's `GET /v1/cache/stats`, or why it has none.
    public struct NodeStats: Sendable, Encodable {
        public var node: String
        public var memory: MemoryCacheStats?
        public var disk: DiskCacheStats?
        public var error: String?
        public var code: String?
    }

    public func stats() async -> [NodeStats] {
        await each { node in
            do {
                let answer = try await http.send(.GET, node + "/v1/cache/stats")
                guard answer.status == 200 else {
                    let problem = http.problem(of: answer, from: node)
                    return NodeStats(node: node, error: "HTTP \(answer.status): \(problem.detail)", code: problem.code)
                }
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                let body = try decoder.decode(StatsAnswer.self, from: Data(answer.body))
                return NodeStats(node: node, memory: body.memory, disk: body.disk)
            } catch let error as FleetCallError {
                return NodeStats(node: node, error: error.message, code: error.code)
            } catch {
                return NodeStats(node: node, error: "\(node) answered something that is not thumbd's stats: \(error)", code: "invalid_answer")
            }
        }
    }

    /// Runs `call` for every node at once; answers in the order of `nodes`.
    private func each<T: Sendable>(_ call: @escaping @Sendable (String) async -> T) async -> [T] {
        await withTaskGroup(of: (Int, T).self) { group in
            for (index, node) in nodes.enumerated() { group.addTask { (index, await call(node)) } }
            var answers: [(Int, T)] = []
            for await answer in group { answers.append(answer) }
            return answers.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    private struct RemovalAnswer: Decodable {
        var removed: CacheRemoval
    }

    private struct StatsAnswer: Decodable {
        var memory: MemoryCacheStats
        var disk: DiskCacheStats?
    }
}
