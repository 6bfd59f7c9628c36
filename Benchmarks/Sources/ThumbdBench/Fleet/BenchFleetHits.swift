#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ConsoleText
import Foundation

/// The hit runs of `thumbd-bench fleet`: the same wrk against static nginx, the fleet and the fleet
/// with its edge cache, rounds interleaved so that a change in the machine's load hits all three.
struct BenchFleetHitRuns {
    /// One server under test.
    struct Target {
        var name: String
        var server: BenchServer
        /// What wrk goes round: static files, or the thumbnail URLs.
        var paths: [String]
        /// The fleet's fronts send misses on to the nodes, whose CPU and answers are counted too.
        var frontsNodes: Bool
    }

    let options: BenchFleetCommand
    let wrk: String
    let logs: String
    let cores: Int
    let nodes: [BenchFleetNode]

    static func isGeneratorBound(_ cpu: BenchCPUUsage?, cores: Int) -> Bool { cpu?.isGeneratorBound(cores: cores) ?? false }

    static func busyPercent(_ cpu: BenchCPUUsage, cores: Int) -> Double { cpu.busyPercent(cores: cores) }

    /// One measured run: wrk's figures, where the CPU went, and the nodes' answers by tier.
    struct Run {
        var result: BenchWrk.Result
        var cpu: BenchCPUUsage
        var answeredBy: [String: Int]?
    }

    /// The median run of each target (by requests per second), in the order given.
    func measure(_ targets: [Target], notes: inout [String]) throws -> [BenchSeries] {
        var runs: [[Run]] = targets.map { _ in [] }
        for round in 1...options.hits.rounds {
            for (index, target) in targets.enumerated() {
                FileHandle.standardError.write(Data("bench: hits: \(target.name), round \(round) of \(options.hits.rounds): \(options.hits.warmup) s warm-up, \(options.hits.duration) s measured\n".utf8))
                let run = try measuredRun(target, name: "hits-\(index)-round\(round)")
                notes += Self.remarks(on: run, "\(target.name), round \(round)", cores: cores)
                runs[index].append(run)
            }
        }
        return zip(targets, runs).map { target, list in
            let median = list.sorted { $0.result.requestsPerSecond < $1.result.requestsPerSecond }[(list.count - 1) / 2]
            return BenchSeries(name: target.name, runs: list.map(\.result), median: median.result, cpu: median.cpu,
                                            answeredBy: median.answeredBy, cores: cores)
        }
    }

    /// A warm-up wrk, then the measured one with CPU snapshots (and the nodes' counters) around it.
    private func measuredRun(_ target: Target, name: String) throws -> Run {
        let script = BenchWrk.rotatingScript(paths: target.paths)
        if options.hits.warmup > 0 {
            _ = try wrkRun(name + "-warmup", target, script: script, seconds: options.hits.warmup)
        }
        let groups = { () -> [(String, [pid_t])] in
            [(target.frontsNodes ? "nginx front" : "nginx", target.server.processTree)]
                + (target.frontsNodes ? [("nodes", nodes.map(\.server.process.pid))] : [])
        }
        let before = target.frontsNodes ? answersByTier() : nil
        let start = BenchCPUSnapshot.take(groups: groups(), threadsOf: nil)
        let (result, wrkSeconds) = try wrkRun(name, target, script: script, seconds: options.hits.duration)
        let end = BenchCPUSnapshot.take(groups: groups(), threadsOf: nil)
        var cpu = BenchCPUUsage(from: start, to: end, cores: cores)
        if let wrkSeconds {
            cpu.processes.append(.init(name: "wrk", cores: wrkSeconds / max(cpu.seconds, result.seconds)))
        }
        var answered: [String: Int]?
        if let before, let after = answersByTier() {
            answered = after.reduce(into: [:]) { counts, tier in
                let delta = tier.value - (before[tier.key] ?? 0)
                if delta > 0 { counts[tier.key] = delta }
            }
        }
        return Run(result: result, cpu: cpu, answeredBy: answered)
    }

    /// What makes a run's figure doubtful: other work on the machine, errors, or requests that
    /// waited on something other than CPU.
    static func remarks(on run: Run, _ name: String, cores: Int) -> [String] {
        var remarks: [String] = []
        let (result, cpu) = (run.result, run.cpu)
        if cpu.othersCores > BenchCPUUsage.noteworthyOthersCores {
            remarks.append("\(name): other processes used \(cpu.othersSummary) cores meanwhile; the figure is disturbed")
        }
        let busy = busyPercent(cpu, cores: cores)
        let spread = result.latencyMs.p99 / max(result.latencyMs.p50, 0.1)
        if busy < 80, spread > 10 {
            remarks.append("\(name): p99 \(TextTable.fixed(result.latencyMs.p99, 1)) ms is \(Int(spread))x the p50 while the cores were"
                           + " \(Int(busy))% busy: requests wait on something other than CPU")
        }
        if result.socketErrors + result.statusErrors > 0 {
            remarks.append("\(name): \(result.socketErrors) socket errors, \(result.statusErrors) non-2xx answers")
        }
        return remarks
    }

    /// One wrk run against `target`; its figures and its own CPU seconds.
    private func wrkRun(_ name: String, _ target: Target, script: String, seconds: Int) throws -> (BenchWrk.Result, Double?) {
        let load = try BenchWrk.start(executable: wrk, name: name, port: target.server.port, script: script,
                                      threads: options.hits.threads, connections: options.hits.connections, seconds: seconds,
                                      timeoutSeconds: 5, directory: logs)
        let result = try BenchWrk.finish(load, threads: options.hits.threads, connections: options.hits.connections, waitSeconds: Double(seconds))
        return (result, load.cpuSeconds)
    }

    /// Thumbnail answers of all nodes together so far, by cache tier (nil when a node has no /metrics).
    private func answersByTier() -> [String: Int]? {
        var counts: [String: Int] = [:]
        for node in nodes {
            guard let metrics = BenchMetrics.scrape(port: node.port) else { return nil }
            for tier in ["memory", "disk", "miss"] {
                counts[tier, default: 0] += Int(metrics.value("thumbd_thumbnail_responses_total", "cache=\"\(tier)\"") ?? 0)
            }
        }
        return counts
    }
}
