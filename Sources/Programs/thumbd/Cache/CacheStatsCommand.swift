import ArgumentParser
import ConsoleText
import Foundation
import ThumbCache

struct CacheStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Entries and bytes per tier against their limits, hit ratio, ages, top hosts, a size histogram.",
        discussion: HelpText.reflowed("""
            With --nodes (or the fleet.nodes setting): each node's tiers from its API, and the fleet's
            totals; a node that does not answer is listed (exit status 1).
            """)
    )

    @OptionGroup var options: CacheOptions
    @OptionGroup var fleet: FleetOptions

    mutating func run() async throws {
        try await options.loadConfiguration()
        if let nodes = try fleet.nodeList(options) {
            let report = FleetStatsReport(nodes: try await FleetOptions.withNodes(nodes, settings: options.configuredFleet) { await $0.stats() })
            if options.json { try options.printJSON(report) } else { print(report.text) }
            if report.failedNodes > 0 { throw ExitCode.failure }
            return
        }
        try CacheCommandFailure.run {
            let cache = try options.openForReading()
            defer { cache.close() }
            let stats = try cache.stats()
            let owner = DiskCache.owningProcess(at: options.location.url)
            if options.json {
                try options.printJSON(CacheStatsReport(disk: stats, ownerPID: owner, source: options.location.source.rawValue))
                return
            }
            print(render(stats, owner: owner))
        }
    }

    private func render(_ s: DiskCacheStats, owner: Int32?) -> String {
        var out: [String] = []
        out.append("cache \(s.directory) (from \(options.location.source.label))")
        out.append(owner.map { "owned by process \($0); memory tier: in that process" }
                   ?? "not owned by a running process; memory tier: empty (it lives in thumbd serve)")
        out.append("")
        let tiers: [(String, CacheTierUsage)] = [("disk thumbnails", s.thumbnails), ("disk originals", s.originals)]
        out.append(TextTable.render(["tier", "entries", "bytes", "limit", "used"], tiers.map { name, t in
            [name, "\(t.entries)", TextTable.bytes(t.bytes), TextTable.bytes(t.maxBytes), CacheText.percent(t.bytes, of: t.maxBytes)]
        }))
        out.append("")
        let lookups = s.hits + s.misses
        out.append("  lookups \(lookups): \(s.hits) hits, \(s.misses) misses, hit ratio \(CacheText.percent(s.hits, of: lookups)); \(s.evictions) evictions")
        out.append("  stale (older than the TTL of \(TextTable.fixed(s.ttlSeconds / 86_400, 1)) d): \(s.staleEntries)")
        out.append("  oldest \(CacheText.date(s.oldestCreated)), newest \(CacheText.date(s.newestCreated)), least recently used \(CacheText.date(s.leastRecentAccess))")
        out.append("  index \(TextTable.bytes(s.indexBytes))")
        if !s.topHosts.isEmpty {
            out.append("")
            out.append(TextTable.render(["top hosts", "entries", "bytes"], s.topHosts.map { [$0.host, "\($0.entries)", TextTable.bytes($0.bytes)] }))
        }
        if s.entries > 0 {
            out.append("")
            out.append(TextTable.render(["entry size", "entries", "bytes"], s.sizeHistogram.map { [$0.label, "\($0.entries)", TextTable.bytes($0.bytes)] }))
        }
        return out.joined(separator: "\n")
    }
}

/// `cache stats --json`: the disk tier's figures plus who owns the directory.
struct CacheStatsReport: Encodable {
    var disk: DiskCacheStats
    var ownerPID: Int32?
    var source: String

    enum CodingKeys: String, CodingKey {
        case disk, source
        case ownerPID = "owner_pid"
    }
}
