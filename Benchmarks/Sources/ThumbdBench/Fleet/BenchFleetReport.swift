import ConsoleText
import Foundation

/// Everything `thumbd-bench fleet` measured: JSON for tools (snake_case keys), tables for people.
struct BenchFleetResults: Encodable {
    var cores: Int
    var build: String
    var thumbd: String
    var nginxVersion: String?
    var wrkVersion: String?
    var corpus: String
    var size: Int
    var nginxConfig: String
    var accessLog = "on everywhere: every nginx `combined` to a file; every node at its default (server.access_log true, to its log)"
    var nodes: [Node] = []
    /// bench serve's hot set; `nginx_bytes_identical`: static nginx returned exactly the fleet's bytes.
    var thumbnails: BenchHotSet?
    /// Thumbnails the edge front answered with X-Edge-Cache: HIT after warming.
    var edgeHits: Int?
    var afterWarmup: BenchFleetHoldings?
    var hits: Hits?
    var failover: BenchFleetFailover?
    var restart: Restart?
    var atEnd: BenchFleetHoldings?
    var sharedTier: BenchFleetSharedTier?
    var targets: [BenchTarget] = []
    var notes: [String] = []

    struct Node: Encodable {
        var index: Int
        var port: Int
        /// From its start on an empty cache directory until /readyz answered 200.
        var firstStartSecondsToReady: Double
        var photosAfterWarmup: Int?
    }

    struct Hits: Encodable {
        var runs: BenchHitRuns
        var staticFiles: BenchSeries
        var fleet: BenchSeries
        var edgeCache: BenchSeries

        var all: [BenchSeries] { [staticFiles, fleet, edgeCache] }

        func ratioToStatic(_ series: BenchSeries) -> Double? {
            let base = staticFiles.median.requestsPerSecond
            return base > 0 ? series.median.requestsPerSecond / base : nil
        }
    }

    struct Restart: Encodable {
        var node: Int
        /// From its start on its old cache directory until /readyz answered 200.
        var secondsToReady: Double
        /// How long the benchmark then waited for nginx's fail_timeout to pass.
        var waitedForNginxSeconds: Double
        var photos: Int
        var answered200: Int
        /// Of those answers, the ones the restarted node gave (its /metrics), and by tier.
        var cameHome: Int
        var cameHomeByTier: [String: Int]
        /// Origin requests while its photos were asked.
        var originRequests: Int
    }

    // MARK: - Text

    func render() -> String {
        var out: [String] = []
        out.append("thumbd-bench fleet: \(cores) cores, \(build) build, nginx \(nginxVersion ?? "?"), wrk \(wrkVersion ?? "?")")
        out.append("thumbd: \(thumbd)")
        out.append("nginx: \(nginxConfig) as shipped (addresses and paths changed)" + (hits == nil ? "" : "; the edge front includes thumbd-edge-cache.conf"))
        if let t = thumbnails {
            let types = t.contentTypes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            out.append("hot set: \(t.urls) thumbnails at size \(size) from \(corpus) (\(types)); \(TextTable.bytes(t.bytesMin))"
                       + " to \(TextTable.bytes(t.bytesMax)), mean \(TextTable.bytes(t.bytesMean))")
            out.append("  static nginx serves " + (t.nginxBytesIdentical == true ? "exactly the fleet's bytes (checked)" : "bytes that DIFFER from the fleet's")
                       + "; edge cache: \(edgeHits.map(String.init) ?? "-") of \(t.urls) X-Edge-Cache: HIT after warming")
        }
        out.append("access log: \(accessLog)")
        if !nodes.isEmpty { out.append("nodes: " + nodes.map { node in
            "node \(node.index) (:\(node.port)) ready \(TextTable.fixed(node.firstStartSecondsToReady, 2)) s after start"
                + (node.photosAfterWarmup.map { ", \($0) photos" } ?? "")
        }.joined(separator: "; ")) }
        if let h = hits { out += ["", renderHits(h)] }
        if let f = failover { out += ["", renderFailover(f)] }
        if let r = restart { out += ["", renderRestart(r)] }
        if afterWarmup != nil || atEnd != nil { out += ["", renderHoldings()] }
        if let t = sharedTier { out += ["", t.render()] }
        if !targets.isEmpty {
            out.append("")
            out.append("TARGETS")
            out.append(BenchTarget.table(targets, left: [1, 2, 3]))
        }
        if !notes.isEmpty {
            out.append("")
            out += notes.map { "note: \($0)" }
        }
        return out.joined(separator: "\n") + "\n"
    }

    private func ms(_ value: Double?) -> String {
        guard let value else { return "-" }
        return TextTable.fixed(value, value < 10 ? 2 : 1)
    }

    private func wrkCores(_ cpu: BenchCPUUsage?) -> Double? { cpu?.processes.first { $0.name == "wrk" }?.cores }

    private func renderHits(_ h: Hits) -> String {
        var out = ["HITS: \(h.runs.summary); the median run of each (wrk on the same cores as the servers)"]
        let rows = h.all.map { series -> [String] in
            let m = series.median
            let ratio = h.ratioToStatic(series).map { TextTable.fixed($0, 2) + "x" } ?? "-"
            let rounds = series.runs.map { String(format: "%.0f", $0.requestsPerSecond) }.joined(separator: ", ")
            return [series.name, String(format: "%.0f", m.requestsPerSecond), ratio, TextTable.fixed(m.megabytesPerSecond, 1),
                    ms(m.latencyMs.p50), ms(m.latencyMs.p99), "\(m.socketErrors + m.statusErrors)",
                    series.cpu.map { TextTable.fixed(BenchFleetHitRuns.busyPercent($0, cores: cores), 0) + "%" } ?? "-",
                    TextTable.fixed(wrkCores(series.cpu), 2), series.cpu.map { TextTable.fixed($0.othersCores, 2) } ?? "-", rounds]
        }
        out.append(TextTable.render(["server", "req/s", "vs static", "MB/s", "p50 ms", "p99 ms", "errors", "CPU busy", "wrk cores",
                                     "others", "req/s of each round"], rows))
        out.append("  (CPU busy: every process's cores over all cores; wrk cores: the load generator's share; others: processes this benchmark did not start)")
        for series in h.all {
            guard let cpu = series.cpu else { continue }
            var line = "  \(series.name): cores used: \(cpu.processSummary); other processes \(cpu.othersSummary)"
            if let answered = series.answeredBy {
                line += "; nodes' answers by tier: " + (answered.isEmpty ? "none"
                    : answered.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
            if BenchFleetHitRuns.isGeneratorBound(cpu, cores: cores) {
                line += "\n    GENERATOR-BOUND: wrk used \(TextTable.fixed(wrkCores(cpu), 2)) of the \(cores) saturated cores: this req/s is"
                    + " the load generator's limit as much as the server's, and ratios to it flatter the slower server"
            }
            out.append(line)
        }
        return out.joined(separator: "\n")
    }

    private func renderFailover(_ f: BenchFleetFailover) -> String {
        let pace = f.pauseMs > 0 ? "each pausing \(f.pauseMs) ms before each request" : "as fast as answered"
        var out = ["FAILOVER: kill -9 of node \(f.killedNode) (it held \(f.killedNodePhotos) photos) under \(f.connections) kept-alive"
                   + " connections through the fleet's nginx, \(pace): \(TextTable.fixed(f.secondsBeforeKill, 1)) s before the kill,"
                   + " \(TextTable.fixed(f.secondsAfterKill, 1)) s after"]
        let byStatus = f.failedByStatus.sorted { $0.key < $1.key }.map { ($0.key == "0" ? "socket error" : $0.key) + " \($0.value)" }
        out.append("  requests: \(f.requests) (\(String(format: "%.0f", f.requestsPerSecond)) req/s); failed: \(f.failed)"
                   + (byStatus.isEmpty ? "" : " (" + byStatus.joined(separator: ", ") + ")")
                   + "; sent again after nginx closed an idle kept-alive connection: \(f.resentAfterIdleClose)")
        if let seconds = f.failoverSeconds {
            out.append("  failover time: \(TextTable.fixed(seconds, 3)) s from the kill until each of node \(f.killedNode)'s \(f.killedNodePhotos)"
                       + " photos was answered 200 by another node; \(f.missesAfterKill) answers after the kill were made anew (X-Cache: miss)")
        } else {
            out.append("  failover time: NOT COMPLETE: \(f.photosFailedOver) of \(f.killedNodePhotos) photos answered 200 after the kill within the run")
        }
        let windowName = "failover window (" + (f.failoverSeconds.map { TextTable.fixed($0, 3) + " s" } ?? "rest of the run") + ")"
        out.append(TextTable.render(["requests", "count", "p50 ms", "p99 ms", "max ms"], [
            ("before the kill", f.beforeKill), (windowName, f.failoverWindow), ("after the window", f.afterWindow),
        ].map { name, l in [name, "\(l.requests)", ms(l.p50Ms), ms(l.p99Ms), ms(l.maxMs)] }))
        out.append("  slowest answer in the window for one of node \(f.killedNode)'s photos: \(ms(f.worstKilledNodePhotoMs)) ms")
        out += f.failureSamples.map { "  failed: \($0)" }
        return out.joined(separator: "\n")
    }

    private func renderRestart(_ r: Restart) -> String {
        let first = nodes.map { TextTable.fixed($0.firstStartSecondsToReady, 2) }.joined(separator: ", ")
        let tiers = r.cameHomeByTier.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return """
            RESTART: node \(r.node) on its old cache directory answered /readyz 200 \(TextTable.fixed(r.secondsToReady, 3)) s after its start \
            (first starts on empty directories: \(first) s)
              after nginx's fail_timeout (waited \(TextTable.fixed(r.waitedForNginxSeconds, 1)) s more): \(r.answered200) of its \(r.photos) photos \
            answered 200, \(r.cameHome) by the restarted node\(tiers.isEmpty ? "" : " (\(tiers))"); \(r.originRequests) origin requests meanwhile
            """
    }

    private func renderHoldings() -> String {
        var out = ["DUPLICATION AND ORIGIN REQUESTS: entries on the nodes' disks (url + variant; originals included) and GETs in the origin's log"]
        let rows = [("after the warm-up", afterWarmup), ("after failover + restart", atEnd)].compactMap { name, h -> [String]? in
            guard let h else { return nil }
            let o = h.originRequests
            return [name, h.entriesPerNode.map(String.init).joined(separator: " / "), "\(h.entries)", "\(h.distinctEntries)",
                    TextTable.fixed(h.duplicationFactor, 2), "\(h.photosOnSeveralNodes)", "\(o.total) for \(o.photos)",
                    "\(o.photosAskedOnce)", "\(o.mostForOnePhoto)"]
        }
        out.append(TextTable.render(["when", "entries per node", "entries", "distinct", "factor", "photos on >1 node",
                                     "origin GETs", "photos GET once", "most GETs for one"], rows))
        return out.joined(separator: "\n")
    }

    // MARK: - Targets

    static func targets(_ r: BenchFleetResults) -> [BenchTarget] {
        var list: [BenchTarget] = []
        func ratio(_ value: Double?) -> String { value.map { TextTable.fixed($0, 2) + "x" } ?? "-" }
        if let h = r.hits {
            let edge = h.ratioToStatic(h.edgeCache), fleet = h.ratioToStatic(h.fleet)
            list.append(.init(name: "fleet + edge cache / static nginx, req/s", value: edge, measured: ratio(edge),
                              target: ">= 0.9x", met: edge.map { $0 >= 0.9 }))
            list.append(.init(name: "fleet / static nginx, req/s", value: fleet, measured: ratio(fleet),
                              target: "- (two processes answer each request)", met: nil))
        }
        if let f = r.failover {
            list.append(.init(name: "failed requests during the kill -9", value: Double(f.failed), measured: "\(f.failed) of \(f.requests)",
                              target: "0", met: f.failed == 0))
            list.append(.init(name: "failover time (every photo of the dead node answered by another)", value: f.failoverSeconds,
                              measured: f.failoverSeconds.map { TextTable.fixed($0, 3) + " s" } ?? "not complete",
                              target: "- (reported)", met: f.failoverSeconds == nil ? false : nil))
            list.append(.init(name: "worst latency in the failover window", value: f.failoverWindow.maxMs,
                              measured: "\(TextTable.fixed(f.failoverWindow.maxMs, 1)) ms (before the kill \(TextTable.fixed(f.beforeKill.maxMs, 1)) ms)",
                              target: "- (reported)", met: nil))
        }
        if let w = r.afterWarmup {
            list.append(.init(name: "duplication factor after the warm-up", value: w.duplicationFactor,
                              measured: TextTable.fixed(w.duplicationFactor, 2), target: "1.00", met: w.duplicationFactor == 1))
            let o = w.originRequests
            list.append(.init(name: "origin requests per photo, warm-up (2 sizes each)", value: Double(o.total) / Double(max(1, o.photos)),
                              measured: "\(o.photosAskedOnce) of \(o.photos) photos once (most \(o.mostForOnePhoto))",
                              target: "1 per photo", met: o.photosAskedOnce == o.photos))
        }
        if let e = r.atEnd {
            list.append(.init(name: "duplication factor after failover + restart", value: e.duplicationFactor,
                              measured: TextTable.fixed(e.duplicationFactor, 2) + " (\(e.photosOnSeveralNodes) photos on more than one node)",
                              target: "- (copies stay until evicted)", met: nil))
        }
        if let s = r.restart {
            list.append(.init(name: "restart on its old directory to /readyz", value: s.secondsToReady,
                              measured: TextTable.fixed(s.secondsToReady, 3) + " s", target: "- (reported)", met: nil))
            list.append(.init(name: "restarted node's photos come home", value: Double(s.cameHome),
                              measured: "\(s.cameHome) of \(s.photos), \(s.originRequests) origin requests",
                              target: "all, no origin request", met: s.cameHome == s.photos && s.originRequests == 0))
        }
        if let t = r.sharedTier { list += t.targets }
        return list
    }
}
