#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The storm phase of `thumbd-bench serve`: paced memory hits measured alone, then while misses for
/// new thumbnails keep every core busy.
extension BenchServeRunner {
    /// `/v1/thumbnail?url=…&` for each photo of 2 MP or more (all photos when none is that large).
    func stormPrefixes(_ photos: [BenchPhoto]) -> [String] {
        let large = photos.filter { $0.megapixels >= 2 }
        return (large.isEmpty ? photos : large).map { "/v1/thumbnail?url=\(BenchHTTP.queryEscape($0.originURL))&" }
    }

    func storm(_ daemon: BenchServer, photos: [BenchPhoto], notes: inout [String]) throws -> BenchServeResults.Storm {
        let hotScript = BenchWrk.rotatingScript(paths: photos.map(\.hotPath), delayMs: options.hotDelayMs)
        let seconds = options.hits.duration
        say("storm: hot URLs alone, wrk -t1 -c\(options.hotConnections) pausing \(options.hotDelayMs) ms before each request, \(seconds) s")
        let alone = try BenchWrk.finish(
            try BenchWrk.start(executable: wrk, name: "hot-alone", port: daemon.port, script: hotScript, threads: 1,
                               connections: options.hotConnections, seconds: seconds, timeoutSeconds: 10, directory: logs),
            threads: 1, connections: options.hotConnections, waitSeconds: Double(seconds))

        let lead = 3
        say("storm: \(options.stormConnections) connections asking for new thumbnails; \(lead) s later the hot URLs for \(seconds) s")
        let stormLoad = try BenchWrk.start(executable: wrk, name: "storm", port: daemon.port,
                                           script: BenchWrk.stormScript(prefixes: stormPrefixes(photos)),
                                           scriptArguments: ["0", String(min(cores, options.stormConnections))],
                                           threads: min(cores, options.stormConnections), connections: options.stormConnections,
                                           seconds: lead + (options.hotDelayMs > 0 ? 2 : 1) * seconds + 2, timeoutSeconds: 60,
                                           directory: logs)
        sleep(UInt32(lead))
        let pid = daemon.process.pid
        let before = BenchMetrics.scrape(port: daemon.port)
        let start = BenchCPUSnapshot.take(groups: [("thumbd", [pid]), ("wrk (both)", [stormLoad.pid])], threadsOf: pid)
        let hot = try BenchWrk.start(executable: wrk, name: "hot-under-storm", port: daemon.port, script: hotScript, threads: 1,
                                     connections: options.hotConnections, seconds: seconds, timeoutSeconds: 10, directory: logs)
        // Read the end of the window just before the hot wrk ends (its own CPU comes from wait4).
        while hot.isRunning && BenchStats.now() - start.wall < Double(seconds) - 0.2 { usleep(50_000) }
        let end = BenchCPUSnapshot.take(groups: [("thumbd", [pid]), ("wrk (both)", [stormLoad.pid])], threadsOf: pid)
        let after = BenchMetrics.scrape(port: daemon.port)
        let underStorm = try BenchWrk.finish(hot, threads: 1, connections: options.hotConnections, waitSeconds: Double(seconds))
        var unpaced: BenchWrk.Result?
        if options.hotDelayMs > 0 {
            say("storm: the hot URLs again without the pause, \(seconds) s")
            unpaced = try BenchWrk.finish(
                try BenchWrk.start(executable: wrk, name: "hot-unpaced-under-storm", port: daemon.port,
                                   script: BenchWrk.rotatingScript(paths: photos.map(\.hotPath)), threads: 1,
                                   connections: options.hotConnections, seconds: seconds, timeoutSeconds: 10, directory: logs),
                threads: 1, connections: options.hotConnections, waitSeconds: Double(seconds))
        }
        stormLoad.stop(SIGINT, grace: 10)  // wrk prints its figures on SIGINT
        let stormResult = try? BenchWrk.finish(stormLoad, threads: min(cores, options.stormConnections),
                                               connections: options.stormConnections, waitSeconds: 1)
        var cpu = BenchCPUUsage(from: start, to: end, cores: cores)
        if let hotSeconds = hot.cpuSeconds, let index = cpu.processes.firstIndex(where: { $0.name == "wrk (both)" }) {
            cpu.processes[index].cores += hotSeconds / max(cpu.seconds, underStorm.seconds)
        }
        let window = cpu.seconds
        func rate(_ name: String, _ labels: String? = nil) -> Double? {
            guard let a = before?.value(name, labels), let b = after?.value(name, labels) else { return nil }
            return (b - a) / window
        }
        if (stormResult?.statusErrors ?? 0) > 0 {
            notes.append("storm: \(stormResult?.statusErrors ?? 0) misses were answered with an error status (see \(logs)/thumbd-memory.log)")
        }
        if cpu.othersCores > BenchCPUUsage.noteworthyOthersCores {
            notes.append("storm: other processes used \(cpu.othersSummary) cores meanwhile; the figures are disturbed")
        }
        waitForIdle(daemon)
        let pool = cpu.daemonThreads.filter { $0.name.hasPrefix("thumbd-cpu") }.map(\.cores).reduce(0, +)
        return BenchServeResults.Storm(
            seconds: seconds, hotConnections: options.hotConnections, hotDelayMs: options.hotDelayMs,
            stormConnections: options.stormConnections,
            hotAlone: alone, hotUnderStorm: underStorm, hotUnpacedUnderStorm: unpaced, storm: stormResult,
            jobsStartedPerSecond: rate("thumbd_jobs_started_total"),
            missesAnsweredPerSecond: rate("thumbd_thumbnail_responses_total", "cache=\"miss\""),
            busyRefusalsPerSecond: rate("thumbd_jobs_rejected_busy_total"),
            cpuQueueDepthAtEnd: after?.value("thumbd_cpu_queue_depth"), cpu: cpu, poolCores: pool)
    }

    /// After a storm the daemon may still be finishing (or dropping) jobs; wait up to 30 s.
    func waitForIdle(_ daemon: BenchServer) {
        let deadline = BenchStats.now() + 30
        while BenchStats.now() < deadline {
            guard let metrics = BenchMetrics.scrape(port: daemon.port) else { return }
            if (metrics.value("thumbd_jobs_in_flight") ?? 0) <= 0 && (metrics.value("thumbd_cpu_queue_depth") ?? 0) <= 0 { return }
            usleep(200_000)
        }
    }
}
