import ConsoleText
import Foundation

/// Everything `thumbd-bench serve` measured: JSON for tools (snake_case keys), tables for people.
struct BenchServeResults: Encodable {
    var cores: Int
    var build: String
    var thumbd: String
    var nginxVersion: String?
    var wrkVersion: String?
    var corpus: String
    var size: Int
    var thumbnails: BenchHotSet?
    /// One per case: access logs on or off, one URL or the hot set in turn.
    var hits: [Hits] = []
    var storm: Storm?
    var rss: RSS?
    var targets: [Target] = []
    var notes: [String] = []

    /// What wrk asks for in a hit run.
    enum RequestMode: String, Encodable {
        /// Every request for the first thumbnail; wrk runs no script per request.
        case oneURL = "one_url"
        /// The hot set in turn, through a wrk Lua call per request.
        case rotation

        var label: String { self == .oneURL ? "one thumbnail" : "the hot set in turn" }
    }

    struct Hits: Encodable {
        var accessLogs: Bool
        var requests: RequestMode
        var runs: BenchHitRuns
        var nginx: BenchSeries?
        var memory: BenchSeries?
        var disk: BenchSeries?
        /// The disk daemon's memory-tier byte limit as its /metrics reports it (0: the tier is off).
        var diskDaemonMemoryLimitBytes: Double?
    }

    struct Storm: Encodable {
        var seconds: Int
        var hotConnections: Int
        /// Each hot connection's pause before each request (0: as fast as answered).
        var hotDelayMs: Int
        var stormConnections: Int
        /// The hot URLs alone, same connections and length: the latency with nothing else to do.
        var hotAlone: BenchWrk.Result
        var hotUnderStorm: BenchWrk.Result
        /// The same connections without the pause, still under the storm (nil when --hot-delay-ms is 0).
        var hotUnpacedUnderStorm: BenchWrk.Result?
        /// The miss generator's own figures (its whole run, warm-up included).
        var storm: BenchWrk.Result?
        var jobsStartedPerSecond: Double?
        var missesAnsweredPerSecond: Double?
        var busyRefusalsPerSecond: Double?
        var cpuQueueDepthAtEnd: Double?
        /// CPU while the hot URLs were measured under the storm.
        var cpu: BenchCPUUsage
        /// Cores used by the decode/resize/encode pool threads (thumbd-cpu-N).
        var poolCores: Double
    }

    struct RSS: Encodable {
        struct Sample: Encodable {
            var seconds: Double
            var rssBytes: Int
            var memoryTierBytes: Double?
            var diskTierBytes: Double?
            var responses: Double?
            /// malloc's bytes in use and kept free (thumbd_heap_in_use_bytes, thumbd_heap_free_bytes).
            var heapInUseBytes: Double?
            var heapFreeBytes: Double?
        }

        var seconds: Int
        var intervalSeconds: Double
        var memoryTierLimitMiB: Int
        var samples: [Sample]
        var warmupSeconds: Double
        var warmupRSSBytes: Int
        var endRSSBytes: Int
        var maxRSSBytes: Int
        var peakRSSBytes: Int?
        /// Median RSS of the samples from 20% to 30% of the run, and of the last 10%.
        var earlyMedianRSSBytes: Int
        var lateMedianRSSBytes: Int
        /// (late median - early median) / early median: the figure held to the target.
        var growthPercent: Double
        /// The same, less what the memory tier's own bytes grew by (a tier still filling is not a leak).
        var growthBeyondMemoryTierPercent: Double
        /// (end - warm-up) / warm-up, single samples.
        var endGrowthPercent: Double
        /// (max after warm-up - warm-up) / warm-up.
        var maxGrowthPercent: Double
        /// Least-squares slope of RSS after warm-up.
        var slopeMiBPerMinute: Double?
        var hits: BenchWrk.Result?
        var misses: BenchWrk.Result?
    }

    typealias Target = BenchTarget

    // MARK: - Text

    func render() -> String {
        var out: [String] = []
        out.append("thumbd-bench serve: \(cores) cores, \(build) build, nginx \(nginxVersion ?? "not installed"), wrk \(wrkVersion ?? "?")")
        out.append("thumbd: \(thumbd)")
        if let t = thumbnails {
            let types = t.contentTypes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            out.append("hot set: \(t.urls) thumbnails at size \(size) from \(corpus) (\(types)); \(TextTable.bytes(t.bytesMin))"
                       + " to \(TextTable.bytes(t.bytesMax)), mean \(TextTable.bytes(t.bytesMean))")
            let nginx = t.nginxBytesIdentical.map { $0 ? "nginx serves exactly the daemon's bytes (checked)" : "nginx's bytes DIFFER from the daemon's" }
                ?? "nginx not run"
            let both = t.sameBytesFromBothDaemons.map { "; memory and disk daemons' bytes " + ($0 ? "identical" : "DIFFER") } ?? ""
            out.append("  \(nginx)\(both)")
        }
        if !hits.isEmpty { out += ["", renderHitSummary()] }
        for h in hits { out += ["", renderHits(h)] }
        if let s = storm { out += ["", renderStorm(s)] }
        if let r = rss { out += ["", renderRSS(r)] }
        if !targets.isEmpty {
            out.append("")
            out.append("TARGETS")
            out.append(BenchTarget.table(targets, left: [3]))
        }
        if !notes.isEmpty {
            out.append("")
            out += notes.map { "note: \($0)" }
        }
        return out.joined(separator: "\n") + "\n"
    }

    private func ms(_ value: Double) -> String { TextTable.fixed(value, value < 10 ? 2 : 1) }

    /// The cases side by side: each server's req/s and its ratio to nginx's, the ratio of their own
    /// CPU per request (which the load generator's share does not blur), and what wrk used.
    private func renderHitSummary() -> String {
        var out = ["HITS: \(hits[0].runs.summary) (nginx, memory, disk); median runs. Access logs on: nginx `combined` to a file,"
                   + " thumbd at its default (server.access_log); off: both off"]
        let rows = hits.map { h -> [String] in
            func figure(_ series: BenchSeries?) -> String {
                guard let series else { return "-" }
                let rate = String(format: "%.0f", series.median.requestsPerSecond)
                guard let ratio = h.ratio(series) else { return rate }
                return rate + " (" + TextTable.fixed(ratio, 2) + "x)"
            }
            func cost(_ series: BenchSeries?) -> String { h.costRatio(series).map { TextTable.fixed($0, 2) + "x" } ?? "-" }
            let wrk = [h.nginx, h.memory, h.disk].compactMap { $0?.wrkCores }.map { TextTable.fixed($0, 2) }.joined(separator: " / ")
            return [h.accessLogs ? "on" : "off", h.requests.label, figure(h.nginx), figure(h.memory), figure(h.disk),
                    cost(h.memory) + " / " + cost(h.disk), wrk, h.generatorBound.isEmpty ? "no" : h.generatorBound.joined(separator: ", ")]
        }
        out.append(TextTable.render(["access logs", "requests", "nginx req/s", "memory hits", "disk hits", "CPU/req vs nginx (m/d)",
                                     "wrk cores (n/m/d)", "generator-bound"], rows))
        out.append("  CPU/req vs nginx: nginx's CPU time per request over thumbd's (above 1x: thumbd spends less). Generator-bound:"
                   + " wrk used >= \(TextTable.fixed(BenchCPUUsage.generatorCores, 2)) of a core while every core was busy,"
                   + " so that req/s is wrk's limit as much as the server's, and a req/s ratio to it flatters the slower server;"
                   + " the CPU/req ratio does not.")
        return out.joined(separator: "\n")
    }

    private func renderHits(_ h: Hits) -> String {
        var out = ["HITS, access logs \(h.accessLogs ? "on" : "off"), \(h.requests.label): the median run of each:"]
        let base = h.nginx?.median.requestsPerSecond
        var rows: [[String]] = []
        for series in [h.nginx, h.memory, h.disk].compactMap({ $0 }) {
            let m = series.median
            let ratio = base.map { TextTable.fixed(m.requestsPerSecond / $0, 2) + "x" } ?? "-"
            let all = series.runs.map { String(format: "%.0f", $0.requestsPerSecond) }.joined(separator: " ")
            rows.append([series.name, String(format: "%.0f", m.requestsPerSecond), ratio, TextTable.fixed(m.megabytesPerSecond, 1),
                         ms(m.latencyMs.p50), ms(m.latencyMs.p99), "\(m.socketErrors + m.statusErrors)",
                         series.cpu.map { TextTable.fixed($0.machineBusyPercent, 0) + "%" } ?? "-",
                         series.cpu.map { TextTable.fixed($0.othersCores, 2) } ?? "-", all])
        }
        out.append(TextTable.render(["server", "req/s", "vs nginx", "MB/s", "p50 ms", "p99 ms", "errors", "CPU busy", "others",
                                     "req/s of each round"], rows))
        out.append("  (CPU busy: all cores, any process; others: cores used by processes this benchmark did not start)")
        for series in [h.nginx, h.memory, h.disk].compactMap({ $0 }) {
            guard let cpu = series.cpu else { continue }
            var line = "  \(series.name): cores used: \(cpu.processSummary); other processes \(cpu.othersSummary)"
            if let answered = series.answeredBy {
                line += "; answers by tier: " + answered.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            }
            out.append(line)
            if !cpu.daemonThreads.isEmpty { out.append("    daemon threads (cores): \(cpu.threadSummary)") }
        }
        if let limit = h.diskDaemonMemoryLimitBytes {
            out.append("  disk-hit daemon: THUMBD_CACHE_MEMORY_MAX_MIB=0, THUMBD_CACHE_MEMORY_MAX_ENTRIES=0 accepted; its memory-tier limit reads \(Int(limit)) bytes")
        }
        return out.joined(separator: "\n")
    }

    private func renderStorm(_ s: Storm) -> String {
        let pace = s.hotDelayMs > 0 ? ", each pausing \(s.hotDelayMs) ms before each request," : " (as fast as answered)"
        var out = ["MEMORY HITS UNDER A MISS STORM: hot URLs with wrk -t1 -c\(s.hotConnections)\(pace) for \(s.seconds) s, alone and while"
                   + " wrk -c\(s.stormConnections) asks for thumbnails never made before (sizes \(BenchWrk.stormSizes.lowerBound)-\(BenchWrk.stormSizes.upperBound) of the large photos)"]
        func row(_ name: String, _ r: BenchWrk.Result) -> [String] {
            [name, String(format: "%.0f", r.requestsPerSecond), ms(r.latencyMs.p50), ms(r.latencyMs.p90), ms(r.latencyMs.p99),
             ms(r.latencyMs.p999), ms(r.latencyMs.max), "\(r.socketErrors)+\(r.statusErrors)"]
        }
        var rows = [row("hot, alone", s.hotAlone), row("hot, under the storm", s.hotUnderStorm)]
        if let unpaced = s.hotUnpacedUnderStorm { rows.append(row("hot, no pause, under the storm", unpaced)) }
        if let storm = s.storm { rows.append(row("storm (misses, whole run)", storm)) }
        out.append(TextTable.render(["run", "req/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", "errors"], rows))
        var busy = "  during the hot run under the storm: machine \(TextTable.fixed(s.cpu.machineBusyPercent, 0))% busy;"
            + " cores used: \(s.cpu.processSummary); pool threads \(TextTable.fixed(s.poolCores, 2)) cores; other processes \(s.cpu.othersSummary)"
        if let jobs = s.jobsStartedPerSecond { busy += "; jobs started \(TextTable.fixed(jobs, 1))/s" }
        if let misses = s.missesAnsweredPerSecond { busy += ", misses answered \(TextTable.fixed(misses, 1))/s" }
        if let refused = s.busyRefusalsPerSecond, refused > 0 { busy += ", refused busy \(TextTable.fixed(refused, 1))/s" }
        if let depth = s.cpuQueueDepthAtEnd { busy += ", CPU queue \(Int(depth)) at the end" }
        out.append(busy)
        if !s.cpu.daemonThreads.isEmpty { out.append("  daemon threads (cores): \(s.cpu.threadSummary)") }
        return out.joined(separator: "\n")
    }

    private func renderRSS(_ r: RSS) -> String {
        func mib(_ bytes: Double?) -> String { bytes.map { TextTable.fixed($0 / 1_048_576, 1) } ?? "-" }
        var out = ["RSS OVER \(r.seconds) s OF MIXED LOAD (memory tier limit \(r.memoryTierLimitMiB) MiB; hits and misses together), sampled every \(TextTable.fixed(r.intervalSeconds, 1)) s:"]
        // At most ~25 rows for people; JSON has every sample.
        let step = max(1, r.samples.count / 25)
        var shown = Array(stride(from: 0, to: r.samples.count, by: step))
        if let last = r.samples.indices.last, shown.last != last { shown.append(last) }
        out.append(TextTable.render(["t s", "RSS MiB", "memory tier MiB", "disk tier MiB", "answers"], shown.map { i in
            let s = r.samples[i]
            return [TextTable.fixed(s.seconds, 0), mib(Double(s.rssBytes)), mib(s.memoryTierBytes), mib(s.diskTierBytes),
                    s.responses.map { String(format: "%.0f", $0) } ?? "-"]
        }))
        out.append("  after warm-up (t = \(TextTable.fixed(r.warmupSeconds, 0)) s): \(mib(Double(r.warmupRSSBytes))) MiB; end \(mib(Double(r.endRSSBytes))) MiB"
                   + " (\(TextTable.fixed(r.endGrowthPercent, 1))%); max after warm-up \(mib(Double(r.maxRSSBytes))) MiB (\(TextTable.fixed(r.maxGrowthPercent, 1))%)"
                   + (r.peakRSSBytes.map { "; VmHWM \(mib(Double($0))) MiB" } ?? ""))
        out.append("  median of 20-30% of the run \(mib(Double(r.earlyMedianRSSBytes))) MiB, of the last 10% \(mib(Double(r.lateMedianRSSBytes))) MiB:"
                   + " growth \(TextTable.fixed(r.growthPercent, 1))%, \(TextTable.fixed(r.growthBeyondMemoryTierPercent, 1))% beyond the memory tier's own growth"
                   + (r.slopeMiBPerMinute.map { "; trend after warm-up \(TextTable.fixed($0, 2)) MiB/min" } ?? ""))
        if let hits = r.hits, let misses = r.misses {
            out.append("  load: hits \(String(format: "%.0f", hits.requestsPerSecond)) req/s (p99 \(ms(hits.latencyMs.p99)) ms),"
                       + " misses \(String(format: "%.1f", misses.requestsPerSecond)) req/s; errors \(hits.socketErrors + hits.statusErrors + misses.socketErrors + misses.statusErrors)")
        }
        return out.joined(separator: "\n")
    }
}

extension BenchServeResults.Hits {
    /// `series`' requests per second over nginx's in the same case.
    func ratio(_ series: BenchSeries?) -> Double? {
        guard let series, let base = nginx?.median.requestsPerSecond, base > 0 else { return nil }
        return series.median.requestsPerSecond / base
    }

    /// nginx's CPU time per request over `series`' (above 1: the daemon spends less).
    func costRatio(_ series: BenchSeries?) -> Double? {
        guard let mine = series?.serverMicrosecondsPerRequest, mine > 0, let base = nginx?.serverMicrosecondsPerRequest else { return nil }
        return base / mine
    }

    /// The servers whose median run the load generator held down.
    var generatorBound: [String] {
        [("nginx", nginx), ("memory", memory), ("disk", disk)].compactMap { name, series in series?.generatorBound == true ? name : nil }
    }
}
