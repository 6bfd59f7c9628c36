#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ConsoleText
import Foundation
import ImageCodecs
import InputFiles

/// Runs the phases of `thumbd-bench serve` (see its --help) and gathers their figures. Every child
/// it starts is stopped by its pid before it returns, or by `cleanUp` after an error.
struct BenchServeRunner: BenchHitRunning {
    let options: BenchServeCommand
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let setUp: BenchHitSetUp
    var nginx: String? { setUp.nginx }
    private var children: [BenchServeProcess] = []

    init(options: BenchServeCommand) throws {
        self.options = options
        setUp = try BenchHitSetUp(requiringNginx: false)
    }

    mutating func cleanUp() {
        for child in children.reversed() { child.stop(SIGTERM, grace: 5) }
        children.removeAll()
        setUp.finish(keep: options.hits.keep)
    }

    func say(_ line: String) {
        FileHandle.standardError.write(Data("bench: \(line)\n".utf8))
    }

    func path(_ name: String) -> String { (scratch.root as NSString).appendingPathComponent(name) }

    mutating func track(_ server: BenchServer) -> BenchServer {
        children.append(server.process)
        return server
    }

    /// Stops a server the runner started; a daemon must exit 0 (its orderly shutdown).
    mutating func stop(_ server: BenchServer, notes: inout [String]) {
        let status = server.process.stop(SIGTERM, grace: 20)
        children.removeAll { $0 === server.process }
        if server.process.name.hasPrefix("thumbd"), status != 0 {
            notes.append("\(server.process.name) exited with status \(status.map(String.init) ?? "?") on SIGTERM (expected 0)")
        }
    }

    // MARK: - The run

    mutating func run() throws -> BenchServeResults {
        var results = BenchServeResults(cores: cores, build: BenchBuild.kind, thumbd: executable,
                                        nginxVersion: nginx.flatMap(BenchNginx.version), wrkVersion: BenchWrk.version(executable: wrk),
                                        corpus: options.hits.corpus, size: options.hits.size)
        if nginx == nil {
            results.notes.append("nginx is not installed (\(BenchNginx.installHint)): no ratios against it")
            say("nginx is not installed (\(BenchNginx.installHint)); measuring thumbd alone")
        }
        var photos = try BenchHotPhotos.corpus(in: options.hits.corpus)
        guard !photos.isEmpty else { throw ValidationErrorMessage("no JPEG, PNG, WebP or AVIF files in \(options.hits.corpus)") }

        say("origin: python3 -m http.server over \(options.hits.corpus) (\(photos.count) photos)")
        let origin = track(try BenchOrigin.start(python: python, directory: options.hits.corpus, logs: logs))
        BenchHotPhotos.address(&photos, originPort: origin.port, size: options.hits.size)

        // One pass per access-log setting: the servers are started for it, as operators would run them.
        // The storm runs on the first pass's memory daemon (logs on unless only off was asked for).
        var stormPending = !options.noStorm
        for (pass, logsOn) in (options.noHits ? [options.accessLog != .off] : options.accessLog.passes).enumerated() {
            guard !options.noHits || stormPending else { break }
            let logLabel = logsOn ? "access logs on" : "access logs off"
            say("\(logLabel): starting the memory daemon and the disk daemon (THUMBD_CACHE_MEMORY_MAX_MIB=0, THUMBD_CACHE_MEMORY_MAX_ENTRIES=0)")
            let memory = track(try BenchDaemon.start(executable: executable, name: "memory-\(pass)", cacheDirectory: path("cache-memory-\(pass)"),
                                                     accessLog: logsOn, extra: [:], logs: logs))
            let disk = options.noHits ? nil : track(try BenchDaemon.start(
                executable: executable, name: "disk-\(pass)", cacheDirectory: path("cache-disk-\(pass)"), accessLog: logsOn,
                extra: ["THUMBD_CACHE_MEMORY_MAX_MIB": "0", "THUMBD_CACHE_MEMORY_MAX_ENTRIES": "0"], logs: logs))

            say("warming \(memory.process.name): \(photos.count) thumbnails")
            var hotSet = try BenchHotPhotos.warm(memory, photos: &photos, expectTier: "memory", notes: &results.notes)
            guard !photos.isEmpty else { throw ValidationErrorMessage("the daemon made no thumbnail of any photo; see \(logs)") }
            if let disk {
                var copy = photos
                say("warming \(disk.process.name): \(copy.count) thumbnails")
                _ = try BenchHotPhotos.warm(disk, photos: &copy, expectTier: "disk", notes: &results.notes)
                hotSet.sameBytesFromBothDaemons = photos.allSatisfy { photo in copy.first { $0.name == photo.name }?.bytes == photo.bytes }
                for photo in photos where copy.first(where: { $0.name == photo.name })?.bytes != photo.bytes {
                    results.notes.append("the disk daemon's thumbnail of \(photo.name) differs from the memory daemon's")
                }
            }

            var nginxServer: BenchServer?
            if let nginx, !options.noHits {
                let www = path("www-\(pass)")
                try BenchStaticPeer.publish(&photos, www: www)
                say("nginx (\(logLabel)): \(cores) workers serving the \(photos.count) thumbnails as static files")
                let server = track(try BenchNginx.start(executable: nginx, root: www, directory: path("nginx-\(pass)"), workers: cores,
                                                        accessLog: logsOn))
                hotSet.nginxBytesIdentical = try BenchStaticPeer.servesExactly(server, photos, label: "nginx", notes: &results.notes)
                nginxServer = server
            }
            if results.thumbnails == nil { results.thumbnails = hotSet }

            if !options.noHits {
                for mode in options.urls.modes {
                    results.hits.append(try hits(nginx: nginxServer, memory: memory, disk: disk, photos: photos, accessLogs: logsOn,
                                                 mode: mode, notes: &results.notes))
                }
            }
            if let nginxServer { stop(nginxServer, notes: &results.notes) }
            if let disk { stop(disk, notes: &results.notes) }
            if stormPending {
                results.storm = try storm(memory, photos: photos, notes: &results.notes)
                stormPending = false
            }
            stop(memory, notes: &results.notes)
        }
        if !options.noRSS {
            results.rss = try rss(photos: photos, notes: &results.notes)
        }
        stop(origin, notes: &results.notes)
        results.targets = Self.targets(results)
        return results
    }

    // MARK: - Hits

    private enum Target { case nginx, memory, disk }

    private func hits(nginx: BenchServer?, memory: BenchServer, disk: BenchServer?, photos: [BenchPhoto], accessLogs: Bool,
                      mode: BenchServeResults.RequestMode, notes: inout [String]) throws -> BenchServeResults.Hits {
        var targets: [(Target, BenchServer, String)] = []
        // One hot thumbnail (wrk's cheapest load) or the 32-URL rotation (a Lua call per request).
        func script(_ paths: [String]) -> String {
            mode == .oneURL ? BenchWrk.fixedScript(path: paths[0]) : BenchWrk.rotatingScript(paths: paths)
        }
        let caseName = "\(accessLogs ? "logs-on" : "logs-off")-\(mode.rawValue)"
        if let nginx { targets.append((.nginx, nginx, script(photos.map(\.staticPath)))) }
        targets.append((.memory, memory, script(photos.map(\.hotPath))))
        if let disk { targets.append((.disk, disk, script(photos.map(\.hotPath)))) }

        struct Run {
            var result: BenchWrk.Result
            var cpu: BenchCPUUsage
            var answeredBy: [String: Int]?
        }
        var runs: [Target: [Run]] = [:]
        for round in 1...options.hits.rounds {
            for (target, server, script) in targets {
                let name = "\(caseName)-\(target)-round\(round)"
                say("hits (access logs \(accessLogs ? "on" : "off"), \(mode.label)): \(server.process.name), round \(round) of \(options.hits.rounds):"
                    + " \(options.hits.warmup) s warm-up, \(options.hits.duration) s measured")
                if options.hits.warmup > 0 {
                    let warm = try BenchWrk.start(executable: wrk, name: name + "-warmup", port: server.port, script: script,
                                                  threads: options.hits.threads, connections: options.hits.connections, seconds: options.hits.warmup,
                                                  timeoutSeconds: 5, directory: logs)
                    _ = try BenchWrk.finish(warm, threads: options.hits.threads, connections: options.hits.connections, waitSeconds: Double(options.hits.warmup))
                }
                let isDaemon = target != .nginx
                let pids: () -> [pid_t] = { isDaemon ? [server.process.pid] : server.processTree }
                let label = isDaemon ? "thumbd" : "nginx"
                let before = isDaemon ? BenchMetrics.scrape(port: server.port) : nil
                let start = BenchCPUSnapshot.take(groups: [(label, pids())], threadsOf: isDaemon ? server.process.pid : nil)
                let load = try BenchWrk.start(executable: wrk, name: name, port: server.port, script: script,
                                              threads: options.hits.threads, connections: options.hits.connections, seconds: options.hits.duration,
                                              timeoutSeconds: 5, directory: logs)
                let result = try BenchWrk.finish(load, threads: options.hits.threads, connections: options.hits.connections,
                                                 waitSeconds: Double(options.hits.duration))
                let end = BenchCPUSnapshot.take(groups: [(label, pids())], threadsOf: isDaemon ? server.process.pid : nil)
                var cpu = BenchCPUUsage(from: start, to: end, cores: cores)
                if let wrkSeconds = load.cpuSeconds {
                    cpu.processes.append(.init(name: "wrk", cores: wrkSeconds / max(cpu.seconds, result.seconds)))
                }
                var answered: [String: Int]?
                if isDaemon, let before, let after = BenchMetrics.scrape(port: server.port) {
                    var counts: [String: Int] = [:]
                    for tier in ["memory", "disk", "miss"] {
                        let series = "cache=\"\(tier)\""
                        let delta = (after.value("thumbd_thumbnail_responses_total", series) ?? 0) - (before.value("thumbd_thumbnail_responses_total", series) ?? 0)
                        if delta > 0 { counts[tier] = Int(delta) }
                    }
                    answered = counts
                    let expected = target == .memory ? "memory" : "disk"
                    let other = counts.filter { $0.key != expected }.values.reduce(0, +)
                    if other > 0 {
                        notes.append("\(name): \(other) answers did not come from the \(expected) tier")
                    }
                }
                if cpu.othersCores > BenchCPUUsage.noteworthyOthersCores {
                    notes.append("\(name): other processes used \(cpu.othersSummary) cores meanwhile; the figure is disturbed")
                }
                if result.socketErrors + result.statusErrors > 0 {
                    notes.append("\(name): \(result.socketErrors) socket errors, \(result.statusErrors) non-2xx answers")
                }
                runs[target, default: []].append(Run(result: result, cpu: cpu, answeredBy: answered))
            }
        }
        func series(_ target: Target, _ name: String) -> BenchSeries? {
            guard let list = runs[target], !list.isEmpty else { return nil }
            let median = list.sorted { $0.result.requestsPerSecond < $1.result.requestsPerSecond }[(list.count - 1) / 2]
            return BenchSeries(name: name, runs: list.map(\.result), median: median.result, cpu: median.cpu,
                                            answeredBy: median.answeredBy, cores: cores)
        }
        var hits = BenchServeResults.Hits(accessLogs: accessLogs, requests: mode, runs: BenchHitRuns(options.hits),
                                          nginx: series(.nginx, "nginx, static files"), memory: series(.memory, "thumbd, memory hits"),
                                          disk: series(.disk, "thumbd, disk hits"))
        if let disk {
            hits.diskDaemonMemoryLimitBytes = BenchMetrics.scrape(port: disk.port)?.value("thumbd_cache_limit_bytes", "tier=\"memory\"")
        }
        return hits
    }

    // MARK: - Targets

    static func targets(_ r: BenchServeResults) -> [BenchServeResults.Target] {
        var list: [BenchServeResults.Target] = []
        for h in r.hits {
            let label = "logs \(h.accessLogs ? "on" : "off"), \(h.requests.label)"
            for (series, floor) in [(h.memory, 1.0), (h.disk, 0.8)] {
                guard let series else { continue }
                let ratio = h.ratio(series)
                let cost = h.costRatio(series).map { "; CPU/req " + TextTable.fixed($0, 2) + "x" } ?? ""
                let bound = series.generatorBound || h.nginx?.generatorBound == true ? "; generator-bound" : ""
                list.append(.init(name: "\(series.name) / nginx, req/s (\(label))", value: ratio,
                                  measured: ratio.map { TextTable.fixed($0, 2) + "x" + cost + bound } ?? "- (no nginx)",
                                  target: ">= \(TextTable.fixed(floor, 1))x", met: ratio.map { $0 >= floor }))
            }
        }
        if let s = r.storm {
            let p99 = s.hotUnderStorm.latencyMs.p99
            list.append(.init(name: "memory hits' p99 under a miss storm", value: p99,
                              measured: TextTable.fixed(p99, 2) + " ms (alone " + TextTable.fixed(s.hotAlone.latencyMs.p99, 2) + " ms)",
                              target: "< 5 ms", met: p99 < 5))
        }
        if let m = r.rss {
            list.append(.init(name: "RSS growth after warm-up (\(m.seconds) s mixed load)", value: m.growthPercent,
                              measured: TextTable.fixed(m.growthPercent, 1) + "% (medians " + TextTable.mebibytes(m.earlyMedianRSSBytes) + " -> "
                                  + TextTable.mebibytes(m.lateMedianRSSBytes) + ")",
                              target: "< 10%", met: m.growthPercent < 10))
        }
        return list
    }
}
