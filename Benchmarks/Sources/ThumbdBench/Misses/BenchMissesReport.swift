import ConsoleText
import Foundation

/// The table and summary of `thumbd-bench misses`.
struct BenchMissesReport {
    var passes: [BenchMissesRun.Round]
    var cores: Int
    /// The bar: thumbd's misses at least this many times thumbor's.
    static let target = 3.0

    var text: String {
        var lines: [String] = []
        let header = ["set", "round", "thumbd /s", "thumbor /s", "ratio", "CPU ms thumbd", "CPU ms thumbor", "CPU ratio",
                      "p50/p99 ms thumbd", "p50/p99 ms thumbor", "origin+clients cores"]
        var rows: [[String]] = []
        for round in passes {
            let (ours, theirs) = (round.thumbd, round.thumbor)
            rows.append([round.set, String(round.index),
                         String(format: "%.1f", ours.thumbnailsPerSecond), String(format: "%.1f", theirs.thumbnailsPerSecond),
                         String(format: "%.2fx", ours.thumbnailsPerSecond / theirs.thumbnailsPerSecond),
                         String(format: "%.1f", ours.cpuMillisecondsPerThumbnail), String(format: "%.1f", theirs.cpuMillisecondsPerThumbnail),
                         String(format: "%.2fx", theirs.cpuMillisecondsPerThumbnail / ours.cpuMillisecondsPerThumbnail),
                         latencies(ours), latencies(theirs),
                         String(format: "%.2f / %.2f", sideCores(ours), sideCores(theirs))])
        }
        lines.append(TextTable.render(header, rows, left: [0]))
        for set in orderedSets {
            let rounds = passes.filter { $0.set == set }
            let speed = rounds.map { $0.thumbd.thumbnailsPerSecond / $0.thumbor.thumbnailsPerSecond }
            let cpu = rounds.map { $0.thumbor.cpuMillisecondsPerThumbnail / $0.thumbd.cpuMillisecondsPerThumbnail }
            let met = (speed.min() ?? 0) >= Self.target ? "met" : "NOT met"
            lines.append(String(format: "%@: thumbd / thumbor %.2f-%.2fx thumbnails a second (target %.1fx: %@), %.2f-%.2fx less CPU a thumbnail",
                                set, speed.min() ?? 0, speed.max() ?? 0, Self.target, met, cpu.min() ?? 0, cpu.max() ?? 0))
            let all = rounds.flatMap { [$0.thumbd, $0.thumbor] }
            let idle = all.filter { busyCores($0) < 0.9 * Double(cores) }
            if !idle.isEmpty {
                lines.append("  note: \(idle.count) of \(all.count) passes left the cores under 90 % busy (server, origin and clients together): there the load, not the server, was the limit")
            }
            if let others = all.compactMap(othersCores).max(), others > 0.1 {
                lines.append(String(format: "  note: other processes took up to %.2f cores during a pass: the figures are disturbed", others))
            }
            let failures = rounds.flatMap { $0.thumbd.failures + $0.thumbor.failures }
            if !failures.isEmpty {
                lines.append("  \(failures.count) failed requests (counted out of the rates):")
                lines += failures.prefix(8).map { "    " + $0 }
            }
        }
        lines.append("ratio: thumbd's thumbnails a second over thumbor's in the same round; CPU ratio: thumbor's CPU a thumbnail over thumbd's")
        return lines.joined(separator: "\n")
    }

    private var orderedSets: [String] {
        passes.map(\.set).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
    }

    private func latencies(_ pass: BenchMissesLoad.Pass) -> String {
        let milliseconds = pass.latencies.map { $0 * 1000 }
        return String(format: "%.0f / %.0f", BenchStats.percentile(milliseconds, 50) ?? 0, BenchStats.percentile(milliseconds, 99) ?? 0)
    }

    private func sideCores(_ pass: BenchMissesLoad.Pass) -> Double { (pass.originCPUSeconds + pass.clientCPUSeconds) / pass.wallSeconds }

    /// Cores busy with processes other than the servers, the origin and the clients.
    private func othersCores(_ pass: BenchMissesLoad.Pass) -> Double? {
        pass.machineBusySeconds.map { max(0, $0 - pass.serverCPUSeconds - pass.originCPUSeconds - pass.clientCPUSeconds) / pass.wallSeconds }
    }

    private func busyCores(_ pass: BenchMissesLoad.Pass) -> Double { pass.serverCPUSeconds / pass.wallSeconds + sideCores(pass) }
}
