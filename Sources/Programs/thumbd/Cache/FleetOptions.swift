import ArgumentParser
import ConsoleText
import Foundation
import ThumbCache
import ThumbFleet

/// `--nodes` for the cache commands that can speak to every node of a fleet over HTTP instead of
/// opening a cache directory on this machine.
struct FleetOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Every node's base URL, comma-separated (default: the fleet.nodes setting, unless --cache-dir is given). With nodes, the command goes to each node's HTTP API instead of a cache directory on this machine.",
                               valueName: "URL,URL,…"))
    var nodes: String?

    /// The nodes to ask, or nil for this machine's cache: `--nodes`, else `fleet.nodes` unless the
    /// command names a cache directory itself.
    func nodeList(_ options: CacheOptions) throws -> [String]? {
        guard let nodes else {
            let configured = options.configuredFleet.nodes
            return configured.isEmpty || options.cacheDirectory != nil ? nil : configured
        }
        do { return try FleetSettings.parseNodes(nodes) } catch {
            throw ValidationError("--nodes: \"\(error.entry)\" is not a node's base URL like http://10.0.0.1:8080")
        }
    }

    /// Runs `body` with a client for the nodes (the fleet.* timeouts), shut down afterwards.
    static func withNodes<T>(_ nodes: [String], settings: FleetSettings, _ body: (FleetNodes) async throws -> T) async throws -> T {
        let client = FleetClient(settings: settings)
        do {
            let result = try await body(FleetNodes(nodes: nodes, client: client))
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }
}

/// What `thumbd cache evict --nodes` prints: each node's answer, and the totals.
struct FleetEvictionReport: Encodable {
    var scope: String
    var nodes: [FleetNodes.Eviction]
    var removed: CacheRemoval
    var failedNodes: Int

    init(scope: String, nodes: [FleetNodes.Eviction]) {
        self.scope = scope
        self.nodes = nodes
        removed = nodes.compactMap(\.removed).reduce(CacheRemoval(memory: 0, disk: 0)) {
            CacheRemoval(memory: $0.memory + $1.memory, disk: $0.disk + $1.disk)
        }
        failedNodes = nodes.filter { $0.error != nil }.count
    }

    var text: String {
        var lines = nodes.map { node in
            if let removed = node.removed { return "\(node.node): removed \(removed.memory) from memory, \(removed.disk) from disk" }
            return "\(node.node): error: \(node.code ?? "failed"): \(node.error ?? "")"
        }
        lines.append("\(scope): removed \(removed.memory) from memory and \(removed.disk) from disk on \(nodes.count - failedNodes) of \(nodes.count) nodes")
        return lines.joined(separator: "\n")
    }
}

/// What `thumbd cache stats --nodes` prints: each node's tiers and the fleet's totals.
struct FleetStatsReport: Encodable {
    struct Totals: Encodable {
        var memoryEntries = 0, memoryBytes = 0
        var diskEntries = 0, diskBytes = 0
        var originalEntries = 0, originalBytes = 0
        var memoryHits = 0, diskHits = 0, misses = 0
    }

    var nodes: [FleetNodes.NodeStats]
    var total = Totals()
    var failedNodes: Int

    init(nodes: [FleetNodes.NodeStats]) {
        self.nodes = nodes
        failedNodes = nodes.filter { $0.error != nil }.count
        for node in nodes {
            if let memory = node.memory {
                total.memoryEntries += memory.entries
                total.memoryBytes += memory.bytes
                total.memoryHits += memory.hits
            }
            if let disk = node.disk {
                total.diskEntries += disk.thumbnails.entries
                total.diskBytes += disk.thumbnails.bytes
                total.originalEntries += disk.originals.entries
                total.originalBytes += disk.originals.bytes
                total.diskHits += disk.hits
                total.misses += disk.misses
            }
        }
    }

    var text: String {
        func row(_ name: String, memory: (Int, Int), disk: (Int, Int), originals: (Int, Int)) -> [String] {
            [name, "\(memory.0)", TextTable.bytes(memory.1), "\(disk.0)", TextTable.bytes(disk.1), "\(originals.0)", TextTable.bytes(originals.1)]
        }
        var rows: [[String]] = []
        var failures: [String] = []
        for node in nodes {
            guard node.error == nil else {
                failures.append("\(node.node): error: \(node.code ?? "failed"): \(node.error ?? "")")
                continue
            }
            rows.append(row(node.node, memory: (node.memory?.entries ?? 0, node.memory?.bytes ?? 0),
                            disk: (node.disk?.thumbnails.entries ?? 0, node.disk?.thumbnails.bytes ?? 0),
                            originals: (node.disk?.originals.entries ?? 0, node.disk?.originals.bytes ?? 0)))
        }
        rows.append(row("fleet (\(nodes.count - failedNodes) of \(nodes.count) nodes)", memory: (total.memoryEntries, total.memoryBytes),
                        disk: (total.diskEntries, total.diskBytes), originals: (total.originalEntries, total.originalBytes)))
        var out = [TextTable.render(["node", "memory", "bytes", "disk", "bytes", "originals", "bytes"], rows)]
        let lookups = total.memoryHits + total.diskHits + total.misses
        out.append("hits \(total.memoryHits) from memory, \(total.diskHits) from disk; \(total.misses) misses; hit ratio "
                   + CacheText.percent(total.memoryHits + total.diskHits, of: lookups))
        out.append(contentsOf: failures)
        return out.joined(separator: "\n")
    }
}
