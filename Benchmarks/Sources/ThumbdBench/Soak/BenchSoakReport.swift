import ConsoleText

/// Everything `thumbd-bench soak` measured: printed as a summary, or as JSON with --json.
struct BenchSoakResults: Encodable {
    struct Limits: Encodable {
        var memoryMiB: Int
        var memoryEntries: Int
        var diskMiB: Int
        var originalsMiB: Int
    }

    struct Load: Encodable {
        var hitsPerSecond: Double
        var conditionalEvery: Int
        var missesPerSecond: Double
        var prefetchURLs: Int
        var prefetchEverySeconds: Double
        var inspectorEverySeconds: Double
    }

    var cores: Int
    var build: String
    var thumbd: String
    var photos: Int
    var minutes: Double
    var sampleSeconds: Double
    var limits: Limits
    var load: Load
    var samples: [BenchSoakSample] = []
    /// Requests of the whole run by kind, the hot requests that found nothing cached, and the
    /// answers the load did not ask for, by kind.
    var requests: [String: Int] = [:]
    var hotMisses = 0
    var errors: [String: Int] = [:]
    var targets: BenchSoakTargets?
    var csv: String
    var chart: String
    /// Set when no chart was drawn: why, and how to get it.
    var chartSkipped: String?
    var notes: [String] = []

    func render() -> String {
        var out = "thumbd-bench soak: \(TextTable.fixed(minutes, minutes < 10 ? 1 : 0)) min of mixed load on one daemon, "
            + "a sample every \(TextTable.fixed(sampleSeconds, 0)) s (\(samples.count) samples; \(cores) cores, \(build) build, \(photos) photos)\n"
        out += "  limits: memory tier \(limits.memoryMiB) MiB / \(limits.memoryEntries) entries, disk tier \(limits.diskMiB) MiB, "
            + "originals \(limits.originalsMiB) MiB\n"
        out += "  load: \(TextTable.fixed(load.hitsPerSecond, 0)) hot requests/s (every \(load.conditionalEvery)th If-None-Match), "
            + "\(TextTable.fixed(load.missesPerSecond, 1)) misses/s, a prefetch job of \(load.prefetchURLs) URLs every "
            + "\(TextTable.fixed(load.prefetchEverySeconds, 0)) s (every other one cancelled), an inspector call or eviction every "
            + "\(TextTable.fixed(load.inspectorEverySeconds, 0)) s\n\n"

        if let first = samples.first, let last = samples.last {
            func mib(_ bytes: Int?) -> String { bytes.map { TextTable.fixed(Double($0) / 1_048_576, 1) } ?? "-" }
            func number(_ value: Double?) -> String { value.map { TextTable.fixed($0, 0) } ?? "-" }
            out += TextTable.render(["", "first sample", "last sample", "min", "max"], [
                ["RSS (MiB)", mib(first.rssBytes), mib(last.rssBytes), mib(samples.compactMap(\.rssBytes).min()), mib(samples.compactMap(\.rssBytes).max())],
                ["open fds", number(first.openFiles.map(Double.init)), number(last.openFiles.map(Double.init)),
                 number(samples.compactMap(\.openFiles).min().map(Double.init)), number(samples.compactMap(\.openFiles).max().map(Double.init))],
                ["threads", number(first.threads.map(Double.init)), number(last.threads.map(Double.init)),
                 number(samples.compactMap(\.threads).min().map(Double.init)), number(samples.compactMap(\.threads).max().map(Double.init))],
                ["memory tier entries", number(first.memoryEntries), number(last.memoryEntries), "", ""],
                ["disk tier entries", number(first.diskEntries), number(last.diskEntries), "", ""],
                ["evictions (since start)", number(first.evictions), number(last.evictions), "", ""],
                ["hit p50 (ms)", TextTable.fixed(first.hitP50Ms, 2), TextTable.fixed(last.hitP50Ms, 2),
                 TextTable.fixed(samples.compactMap(\.hitP50Ms).min(), 2), TextTable.fixed(samples.compactMap(\.hitP50Ms).max(), 2)],
                ["hit p99 (ms)", TextTable.fixed(first.hitP99Ms, 2), TextTable.fixed(last.hitP99Ms, 2),
                 TextTable.fixed(samples.compactMap(\.hitP99Ms).min(), 2), TextTable.fixed(samples.compactMap(\.hitP99Ms).max(), 2)],
                ["requests/s", TextTable.fixed(first.requestsPerSecond, 1), TextTable.fixed(last.requestsPerSecond, 1),
                 TextTable.fixed(samples.map(\.requestsPerSecond).min(), 1), TextTable.fixed(samples.map(\.requestsPerSecond).max(), 1)],
            ] + [("thumbd cores", \BenchSoakSample.daemonCores), ("load cores (clients, origin)", \.loadCores),
                 ("other processes' cores", \.othersCores)].map { label, value in
                [label, TextTable.fixed(first[keyPath: value], 2), TextTable.fixed(last[keyPath: value], 2),
                 TextTable.fixed(samples.compactMap { $0[keyPath: value] }.min(), 2), TextTable.fixed(samples.compactMap { $0[keyPath: value] }.max(), 2)]
            }, left: [0])
            out += "\n"
        }

        let kinds = BenchSoakRequestKind.allCases.map { "\($0.rawValue) \(requests[$0.rawValue, default: 0])" }
        out += "  requests: " + kinds.joined(separator: ", ") + (hotMisses > 0 ? "; hot requests found uncached: \(hotMisses)" : "") + "\n"
        if errors.isEmpty {
            out += "  errors the load did not ask for: none\n"
        } else {
            out += "  errors the load did not ask for:\n"
            for (kind, count) in errors.sorted(by: { $0.value > $1.value }) { out += "    \(count) x \(kind)\n" }
        }
        if let targets {
            out += "\n" + BenchTarget.table(targets.list, left: [0, 3]) + "\n"
        }
        out += "  samples: \(csv)\n"
        out += chartSkipped.map { "  chart: skipped: \($0)\n" } ?? "  chart: \(chart)\n"
        for note in notes { out += "  note: \(note)\n" }
        return out
    }
}
