#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import ImageCodecs

/// Runs the phases of `thumbd bench serve` (see its --help) and gathers their figures. Every child
/// it starts is stopped by its pid before it returns, or by `cleanUp` after an error.
struct BenchServeRunner {
    let options: BenchServeCommand
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let root: String
    let logs: String
    let executable: String
    let wrk: String
    let python: String
    let nginx: String?
    private var children: [BenchServeProcess] = []

    /// One photo of the corpus and, once warmed, its thumbnail.
    struct Photo {
        var name: String
        var megapixels: Double
        var originURL: String
        /// `/v1/thumbnail?url=…&size=N`
        var hotPath: String
        var bytes: [UInt8] = []
        var contentType = ""
        var staticPath = ""
    }

    init(options: BenchServeCommand) throws {
        self.options = options
        guard let executable = BenchMemory.currentExecutable() else {
            throw ValidationErrorMessage("cannot find the running thumbd executable (/proc/self/exe)")
        }
        self.executable = executable
        guard let wrk = BenchProc.which("wrk") else {
            throw ValidationErrorMessage("wrk is not installed: \(BenchWrk.installHint)")
        }
        self.wrk = wrk
        guard let python = BenchProc.which("python3") else {
            throw ValidationErrorMessage("python3 is not installed (it serves the photos as the origin): apt-get install python3")
        }
        self.python = python
        nginx = BenchProc.which("nginx")
        // World-readable: nginx started as root hands its workers to `nobody`.
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("thumbd-bench-serve-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw ValidationErrorMessage("cannot create a scratch folder under \(NSTemporaryDirectory())")
        }
        root = String(cString: made)
        chmod(root, 0o755)
        logs = (root as NSString).appendingPathComponent("logs")
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
    }

    mutating func cleanUp() {
        for child in children.reversed() { child.stop(SIGTERM, grace: 5) }
        children.removeAll()
        if options.keep {
            FileHandle.standardError.write(Data("bench: kept the scratch folder \(root) (logs in \(logs))\n".utf8))
        } else {
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    private func say(_ line: String) {
        FileHandle.standardError.write(Data("bench: \(line)\n".utf8))
    }

    private func path(_ name: String) -> String { (root as NSString).appendingPathComponent(name) }

    private mutating func track(_ server: BenchServer) -> BenchServer {
        children.append(server.process)
        return server
    }

    /// Stops a server the runner started; a daemon must exit 0 (its orderly shutdown).
    private mutating func stop(_ server: BenchServer, notes: inout [String]) {
        let status = server.process.stop(SIGTERM, grace: 20)
        children.removeAll { $0 === server.process }
        if server.process.name.hasPrefix("thumbd"), status != 0 {
            notes.append("\(server.process.name) exited with status \(status.map(String.init) ?? "?") on SIGTERM (expected 0)")
        }
    }

    // MARK: - The run

    mutating func run() throws -> BenchServeResults {
        var results = BenchServeResults(cores: cores, build: Self.buildKind, thumbd: executable,
                                        nginxVersion: nginx.flatMap(BenchNginx.version), wrkVersion: BenchWrk.version(executable: wrk),
                                        corpus: options.corpus, size: options.size)
        if nginx == nil {
            results.notes.append("nginx is not installed (\(BenchNginx.installHint)): no ratios against it")
            say("nginx is not installed (\(BenchNginx.installHint)); measuring thumbd alone")
        }
        var photos = try corpusPhotos()
        guard !photos.isEmpty else { throw ValidationErrorMessage("no JPEG, PNG or WebP files in \(options.corpus)") }

        say("origin: python3 -m http.server over \(options.corpus) (\(photos.count) photos)")
        let origin = track(try BenchOrigin.start(python: python, directory: options.corpus, logs: logs))
        for index in photos.indices {
            let name = photos[index].name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? photos[index].name
            photos[index].originURL = "http://127.0.0.1:\(origin.port)/\(name)"
            photos[index].hotPath = "/v1/thumbnail?url=\(BenchHTTP.queryEscape(photos[index].originURL))&size=\(options.size)"
        }

        let needsHotDaemons = !options.noHits || !options.noStorm
        if needsHotDaemons {
            say("starting the memory daemon and the disk daemon (THUMBD_CACHE_MEMORY_MAX_MIB=0, THUMBD_CACHE_MEMORY_MAX_ENTRIES=0)")
            let memory = track(try BenchDaemon.start(executable: executable, name: "memory", cacheDirectory: path("cache-memory"),
                                                     extra: [:], logs: logs))
            let disk = options.noHits ? nil : track(try BenchDaemon.start(
                executable: executable, name: "disk", cacheDirectory: path("cache-disk"),
                extra: ["THUMBD_CACHE_MEMORY_MAX_MIB": "0", "THUMBD_CACHE_MEMORY_MAX_ENTRIES": "0"], logs: logs))

            var hotSet = try warm(memory, photos: &photos, expectTier: "memory", notes: &results.notes)
            guard !photos.isEmpty else { throw ValidationErrorMessage("the daemon made no thumbnail of any photo; see \(logs)") }
            var sameBytes: Bool?
            if let disk {
                sameBytes = true
                var copy = photos
                _ = try warm(disk, photos: &copy, expectTier: "disk", notes: &results.notes)
                for photo in photos where copy.first(where: { $0.name == photo.name })?.bytes != photo.bytes {
                    sameBytes = false
                    results.notes.append("the disk daemon's thumbnail of \(photo.name) differs from the memory daemon's")
                }
            }
            hotSet.sameBytesFromBothDaemons = sameBytes

            var nginxServer: BenchServer?
            if let nginx, !options.noHits {
                let www = path("www")
                try FileManager.default.createDirectory(atPath: (www as NSString).appendingPathComponent("t"), withIntermediateDirectories: true)
                for index in photos.indices {
                    let ext = Self.fileExtension(photos[index].contentType)
                    photos[index].staticPath = "/t/\(BenchScratch.stem(index)).\(ext)"
                    try Data(photos[index].bytes).write(to: URL(fileURLWithPath: www + photos[index].staticPath))
                }
                say("nginx: \(cores) workers serving the \(photos.count) thumbnails as static files")
                let server = track(try BenchNginx.start(executable: nginx, root: www, directory: path("nginx"), workers: cores))
                try server.waitUntilReady(path: photos[0].staticPath)
                var identical = true
                for photo in photos {
                    let answer = try BenchHTTP.get(port: server.port, path: photo.staticPath)
                    if answer.status != 200 || answer.body != photo.bytes {
                        identical = false
                        results.notes.append("nginx answered \(photo.staticPath) with status \(answer.status), \(answer.body.count) bytes; expected \(photo.bytes.count)")
                    }
                }
                hotSet.nginxBytesIdentical = identical
                nginxServer = server
            }
            results.thumbnails = hotSet

            if !options.noHits {
                results.hits = try hits(nginx: nginxServer, memory: memory, disk: disk, photos: photos, notes: &results.notes)
            }
            if let nginxServer { stop(nginxServer, notes: &results.notes) }
            if let disk { stop(disk, notes: &results.notes) }
            if !options.noStorm {
                results.storm = try storm(memory, photos: photos, notes: &results.notes)
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

    static var buildKind: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }

    static func fileExtension(_ contentType: String) -> String {
        if contentType.contains("png") { return "png" }
        if contentType.contains("webp") { return "webp" }
        return "jpg"
    }

    private func corpusPhotos() throws -> [Photo] {
        let names = try FileManager.default.contentsOfDirectory(atPath: options.corpus).sorted()
        return names.compactMap { name -> Photo? in
            let ext = (name as NSString).pathExtension.lowercased()
            guard ["jpg", "jpeg", "png", "webp"].contains(ext) else { return nil }
            let file = (options.corpus as NSString).appendingPathComponent(name)
            var megapixels = 0.0
            if let bytes = try? ThumbnailJob.read(file), let info = try? ImageCodecs.readInfo(bytes) {
                megapixels = Double(info.width) * Double(info.height) / 1e6
            }
            return Photo(name: name, megapixels: megapixels, originURL: "", hotPath: "")
        }
    }

    // MARK: - Warming

    /// Asks `daemon` for every hot URL twice: the first makes it, the second must be a hit from
    /// `expectTier` with the same bytes. Photos the daemon refuses are dropped (and noted).
    private func warm(_ daemon: BenchServer, photos: inout [Photo], expectTier: String,
                      notes: inout [String]) throws -> BenchServeResults.HotSet {
        say("warming \(daemon.process.name): \(photos.count) thumbnails")
        var kept: [Photo] = []
        for var photo in photos {
            let first = try BenchHTTP.get(port: daemon.port, path: photo.hotPath, timeout: 120)
            guard first.status == 200 else {
                notes.append("\(daemon.process.name) refused \(photo.name): status \(first.status) \(first.text.prefix(200)); left out")
                continue
            }
            let second = try BenchHTTP.get(port: daemon.port, path: photo.hotPath)
            let tier = second.headers["x-cache"] ?? "?"
            if second.body != first.body {
                notes.append("\(daemon.process.name): the hit of \(photo.name) differs from the miss")
            }
            if tier != expectTier {
                notes.append("\(daemon.process.name): the second request for \(photo.name) came from '\(tier)', expected '\(expectTier)'")
            }
            photo.bytes = first.body
            photo.contentType = first.headers["content-type"] ?? "?"
            kept.append(photo)
        }
        photos = kept
        let sizes = kept.map(\.bytes.count)
        var types: [String: Int] = [:]
        for photo in kept { types[photo.contentType, default: 0] += 1 }
        return BenchServeResults.HotSet(urls: kept.count, bytesMin: sizes.min() ?? 0,
                                        bytesMean: sizes.isEmpty ? 0 : sizes.reduce(0, +) / sizes.count,
                                        bytesMax: sizes.max() ?? 0, contentTypes: types, sameBytesFromBothDaemons: nil)
    }

    // MARK: - Hits

    private enum Target { case nginx, memory, disk }

    private func hits(nginx: BenchServer?, memory: BenchServer, disk: BenchServer?, photos: [Photo],
                      notes: inout [String]) throws -> BenchServeResults.Hits {
        var targets: [(Target, BenchServer, String)] = []
        if let nginx { targets.append((.nginx, nginx, BenchWrk.rotatingScript(paths: photos.map(\.staticPath)))) }
        targets.append((.memory, memory, BenchWrk.rotatingScript(paths: photos.map(\.hotPath))))
        if let disk { targets.append((.disk, disk, BenchWrk.rotatingScript(paths: photos.map(\.hotPath)))) }

        struct Run {
            var result: BenchWrk.Result
            var cpu: BenchCPUUsage
            var answeredBy: [String: Int]?
        }
        var runs: [Target: [Run]] = [:]
        for round in 1...options.rounds {
            for (target, server, script) in targets {
                let name = "\(target)-round\(round)"
                say("hits: \(server.process.name), round \(round) of \(options.rounds): \(options.warmup) s warm-up, \(options.duration) s measured")
                if options.warmup > 0 {
                    let warm = try BenchWrk.start(executable: wrk, name: name + "-warmup", port: server.port, script: script,
                                                  threads: options.threads, connections: options.connections, seconds: options.warmup,
                                                  timeoutSeconds: 5, directory: logs)
                    _ = try BenchWrk.finish(warm, threads: options.threads, connections: options.connections, waitSeconds: Double(options.warmup))
                }
                let isDaemon = target != .nginx
                let pids: () -> [pid_t] = { isDaemon ? [server.process.pid] : [server.process.pid] + BenchProc.children(of: server.process.pid) }
                let label = isDaemon ? "thumbd" : "nginx"
                let before = isDaemon ? BenchMetrics.scrape(port: server.port) : nil
                let start = BenchCPUSnapshot.take(groups: [(label, pids())], threadsOf: isDaemon ? server.process.pid : nil)
                let load = try BenchWrk.start(executable: wrk, name: name, port: server.port, script: script,
                                              threads: options.threads, connections: options.connections, seconds: options.duration,
                                              timeoutSeconds: 5, directory: logs)
                let result = try BenchWrk.finish(load, threads: options.threads, connections: options.connections,
                                                 waitSeconds: Double(options.duration))
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
                if cpu.othersCores > Self.noisyCores {
                    notes.append("\(name): other processes used \(cpu.othersSummary) cores meanwhile; the figure is disturbed")
                }
                if result.socketErrors + result.statusErrors > 0 {
                    notes.append("\(name): \(result.socketErrors) socket errors, \(result.statusErrors) non-2xx answers")
                }
                runs[target, default: []].append(Run(result: result, cpu: cpu, answeredBy: answered))
            }
        }
        func series(_ target: Target, _ name: String) -> BenchServeResults.Series? {
            guard let list = runs[target], !list.isEmpty else { return nil }
            let median = list.sorted { $0.result.requestsPerSecond < $1.result.requestsPerSecond }[(list.count - 1) / 2]
            return BenchServeResults.Series(name: name, runs: list.map(\.result), median: median.result, cpu: median.cpu,
                                            answeredBy: median.answeredBy)
        }
        var hits = BenchServeResults.Hits(seconds: options.duration, warmupSeconds: options.warmup, rounds: options.rounds,
                                          threads: options.threads, connections: options.connections,
                                          nginx: series(.nginx, "nginx, static files"), memory: series(.memory, "thumbd, memory hits"),
                                          disk: series(.disk, "thumbd, disk hits"))
        if let disk {
            hits.diskDaemonMemoryLimitBytes = BenchMetrics.scrape(port: disk.port)?.value("thumbd_cache_limit_bytes", "tier=\"memory\"")
        }
        return hits
    }

    /// Other processes using more than this (cores) during a measured run make it worth a note.
    static let noisyCores = 0.1

    // MARK: - Storm

    /// `/v1/thumbnail?url=…&` for each photo of 2 MP or more (all photos when none is that large).
    private func stormPrefixes(_ photos: [Photo]) -> [String] {
        let large = photos.filter { $0.megapixels >= 2 }
        return (large.isEmpty ? photos : large).map { "/v1/thumbnail?url=\(BenchHTTP.queryEscape($0.originURL))&" }
    }

    private func storm(_ daemon: BenchServer, photos: [Photo], notes: inout [String]) throws -> BenchServeResults.Storm {
        let hotScript = BenchWrk.rotatingScript(paths: photos.map(\.hotPath), delayMs: options.hotDelayMs)
        let seconds = options.duration
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
        if cpu.othersCores > Self.noisyCores {
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
    private func waitForIdle(_ daemon: BenchServer) {
        let deadline = BenchStats.now() + 30
        while BenchStats.now() < deadline {
            guard let metrics = BenchMetrics.scrape(port: daemon.port) else { return }
            if (metrics.value("thumbd_jobs_in_flight") ?? 0) <= 0 && (metrics.value("thumbd_cpu_queue_depth") ?? 0) <= 0 { return }
            usleep(200_000)
        }
    }

    // MARK: - RSS

    private mutating func rss(photos allPhotos: [Photo], notes: inout [String]) throws -> BenchServeResults.RSS {
        let seconds = options.rssDuration
        let interval = options.rssInterval ?? min(5, max(1, Double(seconds) / 60))
        say("rss: a fresh daemon (memory tier \(options.rssMemoryMiB) MiB), \(seconds) s of hits and misses, RSS every \(TextTable.fixed(interval, 1)) s")
        let daemon = track(try BenchDaemon.start(executable: executable, name: "rss", cacheDirectory: path("cache-rss"),
                                                 extra: ["THUMBD_CACHE_MEMORY_MAX_MIB": String(options.rssMemoryMiB)], logs: logs))
        var photos = allPhotos
        if photos.first?.bytes.isEmpty ?? true {
            _ = try warm(daemon, photos: &photos, expectTier: "memory", notes: &notes)
        } else {
            for photo in photos { _ = try BenchHTTP.get(port: daemon.port, path: photo.hotPath, timeout: 120) }
        }
        let hits = try BenchWrk.start(executable: wrk, name: "rss-hits", port: daemon.port,
                                      script: BenchWrk.rotatingScript(paths: photos.map(\.hotPath)), threads: 1,
                                      connections: 8, seconds: seconds, timeoutSeconds: 10, directory: logs)
        let misses = try BenchWrk.start(executable: wrk, name: "rss-misses", port: daemon.port,
                                        script: BenchWrk.stormScript(prefixes: stormPrefixes(photos)),
                                        scriptArguments: ["0", "1"], threads: 1, connections: options.stormConnections,
                                        seconds: seconds, timeoutSeconds: 60, directory: logs)
        let start = BenchStats.now()
        var samples: [BenchServeResults.RSS.Sample] = []
        var next = start
        while true {
            let now = BenchStats.now()
            if now - start > Double(seconds) + 0.5 || !daemon.process.isRunning { break }
            if now >= next {
                if let kib = BenchProc.statusKiB(daemon.process.pid, "VmRSS") {
                    let metrics = BenchMetrics.scrape(port: daemon.port)
                    samples.append(.init(seconds: now - start, rssBytes: kib * 1024,
                                         memoryTierBytes: metrics?.value("thumbd_cache_bytes", "tier=\"memory\""),
                                         diskTierBytes: metrics?.value("thumbd_cache_bytes", "tier=\"disk\""),
                                         responses: metrics?.value("thumbd_thumbnail_responses_total")))
                }
                next += interval
            }
            usleep(50_000)
        }
        let peak = BenchProc.statusKiB(daemon.process.pid, "VmHWM").map { $0 * 1024 }
        let hitResult = try? BenchWrk.finish(hits, threads: 1, connections: 8, waitSeconds: 5)
        let missResult = try? BenchWrk.finish(misses, threads: 1, connections: options.stormConnections, waitSeconds: 5)
        if !daemon.process.isRunning {
            notes.append("the RSS daemon ended during the run (exit status \(daemon.process.exitStatus ?? -1)): \(daemon.process.stderrTail(lines: 5))")
        }
        waitForIdle(daemon)
        stop(daemon, notes: &notes)
        guard let last = samples.last else { throw ValidationErrorMessage("no RSS sample of the daemon was taken") }
        let total = Double(seconds)
        let warmIndex = samples.firstIndex { $0.seconds >= 0.2 * total } ?? samples.count - 1
        let warm = samples[warmIndex]
        let afterWarm = samples[warmIndex...]
        let maxAfter = afterWarm.map(\.rssBytes).max() ?? warm.rssBytes
        // Decode buffers come and go, so single samples swing by tens of MiB: the growth compares the
        // median of the samples from 20% to 30% of the run with the median of the last 10%.
        let early = samples.filter { $0.seconds >= 0.2 * total && $0.seconds <= 0.3 * total }
        let late = samples.filter { $0.seconds >= 0.9 * total }
        func median(_ list: [BenchServeResults.RSS.Sample], _ value: (BenchServeResults.RSS.Sample) -> Double) -> Double {
            BenchStats.median(list.map(value)) ?? value(last)
        }
        let earlyRSS = median(early.isEmpty ? [warm] : early) { Double($0.rssBytes) }
        let lateRSS = median(late.isEmpty ? [last] : late) { Double($0.rssBytes) }
        let earlyTier = median(early.isEmpty ? [warm] : early) { $0.memoryTierBytes ?? 0 }
        let lateTier = median(late.isEmpty ? [last] : late) { $0.memoryTierBytes ?? 0 }
        return BenchServeResults.RSS(
            seconds: seconds, intervalSeconds: interval, memoryTierLimitMiB: options.rssMemoryMiB, samples: samples,
            warmupSeconds: warm.seconds, warmupRSSBytes: warm.rssBytes, endRSSBytes: last.rssBytes, maxRSSBytes: maxAfter,
            peakRSSBytes: peak, earlyMedianRSSBytes: Int(earlyRSS), lateMedianRSSBytes: Int(lateRSS),
            growthPercent: 100 * (lateRSS - earlyRSS) / earlyRSS,
            growthBeyondMemoryTierPercent: 100 * ((lateRSS - lateTier) - (earlyRSS - earlyTier)) / earlyRSS,
            endGrowthPercent: 100 * Double(last.rssBytes - warm.rssBytes) / Double(warm.rssBytes),
            maxGrowthPercent: 100 * Double(maxAfter - warm.rssBytes) / Double(warm.rssBytes),
            slopeMiBPerMinute: Self.slope(afterWarm.map { ($0.seconds, Double($0.rssBytes)) }).map { $0 * 60 / 1_048_576 },
            hits: hitResult, misses: missResult)
    }

    /// Least-squares slope of y over x, nil for fewer than 3 points.
    static func slope(_ points: [(Double, Double)]) -> Double? {
        guard points.count >= 3 else { return nil }
        let n = Double(points.count)
        let mx = points.map(\.0).reduce(0, +) / n, my = points.map(\.1).reduce(0, +) / n
        let sxx = points.map { ($0.0 - mx) * ($0.0 - mx) }.reduce(0, +)
        guard sxx > 0 else { return nil }
        return points.map { ($0.0 - mx) * ($0.1 - my) }.reduce(0, +) / sxx
    }

    // MARK: - Targets

    static func targets(_ r: BenchServeResults) -> [BenchServeResults.Target] {
        var list: [BenchServeResults.Target] = []
        if let h = r.hits {
            let base = h.nginx?.median.requestsPerSecond
            for (series, floor, target) in [(h.memory, 0.6, ">= 0.6x nginx (aim 1.0x)"), (h.disk, 0.5, ">= 0.5x nginx")] {
                guard let series else { continue }
                let ratio = base.flatMap { $0 > 0 ? series.median.requestsPerSecond / $0 : nil }
                list.append(.init(name: "\(series.name) / nginx, req/s", value: ratio,
                                  measured: ratio.map { TextTable.fixed($0, 2) + "x" } ?? "- (no nginx)",
                                  target: target, met: ratio.map { $0 >= floor }))
            }
        }
        if let s = r.storm {
            let p99 = s.hotUnderStorm.latencyMs.p99
            list.append(.init(name: "memory hits' p99 under a miss storm", value: p99,
                              measured: TextTable.fixed(p99, 2) + " ms (alone " + TextTable.fixed(s.hotAlone.latencyMs.p99, 2) + " ms)",
                              target: "< 10 ms", met: p99 < 10))
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
