#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ConsoleText
import Foundation

/// Runs `thumbd-bench soak` (see its --help): an origin, one daemon with small cache limits, the
/// mixed load, and a sample every --sample-seconds until the time is up.
struct BenchSoakRunner {
    let options: BenchSoakCommand
    let scratch: BenchScratch
    let logs: String

    /// The daemon's admin token, so the load may evict entries as an operator does.
    static let adminToken = "soak-admin-token"

    init(options: BenchSoakCommand) throws {
        self.options = options
        scratch = try BenchScratch()
        logs = try scratch.folder("logs")
    }

    func say(_ line: String) {
        FileHandle.standardError.write(Data("bench: \(line)\n".utf8))
    }

    /// The daemon's settings beyond the benchmark's usual ones: the small limits, the admin token.
    var daemonSettings: [String: String] {
        ["THUMBD_CACHE_MEMORY_MAX_MIB": String(options.memoryMiB),
         "THUMBD_CACHE_MEMORY_MAX_ENTRIES": String(options.memoryEntries),
         "THUMBD_CACHE_DISK_MAX_MIB": String(options.diskMiB),
         "THUMBD_CACHE_ORIGINALS_MAX_MIB": String(options.originalsMiB),
         "THUMBD_ADMIN_TOKEN": Self.adminToken]
    }

    func run() throws -> BenchSoakResults {
        let executable = try ThumbdExecutable.required()
        var photos = try BenchHotPhotos.corpus(in: options.corpus)
        guard !photos.isEmpty else { throw ValidationErrorMessage("no JPEG, PNG or WebP files in \(options.corpus)") }
        let chart = options.chart
        let csv = ((chart as NSString).deletingPathExtension as NSString).appendingPathExtension("csv") ?? chart + ".csv"
        var results = BenchSoakResults(
            cores: ProcessInfo.processInfo.activeProcessorCount, build: BenchBuild.kind, thumbd: executable,
            photos: photos.count, minutes: options.minutes, sampleSeconds: options.sampleSeconds,
            limits: .init(memoryMiB: options.memoryMiB, memoryEntries: options.memoryEntries, diskMiB: options.diskMiB,
                          originalsMiB: options.originalsMiB),
            load: .init(hitsPerSecond: options.hitsPerSecond, conditionalEvery: BenchSoakLoad.Plan.conditionalEvery,
                        missesPerSecond: options.missesPerSecond, prefetchURLs: BenchSoakLoad.Plan.prefetchURLs,
                        prefetchEverySeconds: BenchSoakLoad.Plan.prefetchEverySeconds,
                        inspectorEverySeconds: BenchSoakLoad.Plan.inspectorEverySeconds),
            csv: csv, chart: chart)

        say("origin: python3 -m http.server over \(options.corpus) (\(photos.count) photos)")
        let origin = try BenchOrigin.start(python: try BenchHitSetUp.python(), directory: options.corpus, logs: logs)
        defer { _ = origin.process.stop(SIGTERM, grace: 5) }
        BenchHotPhotos.address(&photos, originPort: origin.port, size: options.size)

        say("daemon: " + daemonSettings.filter { $0.key != "THUMBD_ADMIN_TOKEN" }.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        let daemon = try BenchDaemon.start(executable: executable, name: "soak", cacheDirectory: (scratch.root as NSString).appendingPathComponent("cache"),
                                           accessLog: true, extra: daemonSettings, logs: logs)
        var daemonStopped = false
        defer { if !daemonStopped { _ = daemon.process.stop(SIGKILL, grace: 5) } }
        say("warming the hot set: \(photos.count) thumbnails")
        try BenchHotPhotos.warm(daemon, photos: &photos, expectTier: "memory", notes: &results.notes)
        guard !photos.isEmpty else { throw ValidationErrorMessage("the daemon made no thumbnail of any photo; see \(logs)") }

        let plan = BenchSoakLoad.Plan(port: daemon.port, hotPaths: photos.map(\.hotPath), hotETags: photos.map(\.etag),
                                      photoURLs: photos.map(\.originURL), size: options.size, hitsPerSecond: options.hitsPerSecond,
                                      missesPerSecond: options.missesPerSecond, adminToken: Self.adminToken)
        let total = options.minutes * 60
        let count = max(1, Int((total / options.sampleSeconds).rounded(.down)))
        say("load: \(TextTable.fixed(options.minutes, 1)) min, \(count) samples")
        // Whose CPU each window used: the daemon, the load (this process and the origin), the rest.
        let groups = [("thumbd", [daemon.process.pid]), ("load", [getpid()]), ("origin", [origin.process.pid])]
        let cores = results.cores
        let load = BenchSoakLoad.start(plan)
        let start = BenchStats.now()
        var lastSampleAt = start
        var lastCPU = BenchCPUSnapshot.take(groups: groups, threadsOf: nil)
        for index in 1...count {
            let due = start + Double(index) * options.sampleSeconds
            while BenchStats.now() < due && daemon.process.isRunning { usleep(20_000) }
            guard daemon.process.isRunning else {
                results.notes.append("the daemon ended during the run (exit status \(daemon.process.exitStatus ?? -1)): \(daemon.process.stderrTail(lines: 5))")
                break
            }
            let now = BenchStats.now()
            let cpu = BenchCPUSnapshot.take(groups: groups, threadsOf: nil)
            let sample = BenchSoakSample.take(pid: daemon.process.pid, port: daemon.port, seconds: Double(index) * options.sampleSeconds,
                                              window: load.recorder.takeWindow(), windowSeconds: now - lastSampleAt,
                                              previous: results.samples.last, cpu: BenchCPUUsage(from: lastCPU, to: cpu, cores: cores))
            (lastSampleAt, lastCPU) = (now, cpu)
            results.samples.append(sample)
            say(Self.progressLine(sample))
        }
        if !load.stop(waitSeconds: 70) { results.notes.append("a client was still waiting for an answer 70 s after the end") }

        let totals = load.recorder.runTotals
        results.requests = Dictionary(uniqueKeysWithValues: totals.requests.map { ($0.key.rawValue, $0.value) })
        results.hotMisses = totals.hotMisses
        results.errors = totals.errors
        if daemon.process.isRunning {
            let status = daemon.process.stop(SIGTERM, grace: 30)
            if status != 0 { results.errors["daemon: exit status \(status.map(String.init) ?? "?") on SIGTERM (expected 0)", default: 0] += 1 }
        } else {
            results.errors["daemon: ended during the run", default: 0] += 1
        }
        daemonStopped = true
        let others = results.samples.compactMap(\.othersCores)
        if let mean = others.isEmpty ? nil : others.reduce(0, +) / Double(others.count), mean > BenchCPUUsage.noteworthyOthersCores {
            results.notes.append("other processes used \(TextTable.fixed(mean, 2)) cores on average (others_cores in the CSV): "
                                 + "the latency figures are disturbed; measure on a quiet machine")
        }
        results.targets = BenchSoakTargets(samples: results.samples, totalSeconds: Double(count) * options.sampleSeconds,
                                           unexpectedErrors: results.errors.values.reduce(0, +))

        try BenchSoakCSV.write(results.samples, to: csv)
        let title = "thumbd soak: \(TextTable.fixed(options.minutes, options.minutes < 10 ? 1 : 0)) min, \(results.cores) cores, "
            + "memory \(options.memoryMiB) MiB, disk \(options.diskMiB) MiB"
        if case .skipped(let why) = BenchSoakChart.draw(csv: csv, svg: chart, title: title, hitTargetMs: BenchSoakTargets.hitP99Ms) {
            results.chartSkipped = why
        }
        return results
    }

    /// "2:10  RSS 41.2 MiB  fds 38  threads 14  hits p50 0.21 p99 0.63 ms  112.0 req/s  0 errors"
    static func progressLine(_ s: BenchSoakSample) -> String {
        let seconds = Int(s.seconds.rounded())
        let clock = "\(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60)"
        return "\(clock)  RSS \(s.rssBytes.map { TextTable.fixed(Double($0) / 1_048_576, 1) } ?? "-") MiB"
            + " (heap in use \(TextTable.fixed(s.heapInUseBytes.map { $0 / 1_048_576 }, 1)), free \(TextTable.fixed(s.heapFreeBytes.map { $0 / 1_048_576 }, 1)))"
            + "  fds \(s.openFiles.map(String.init) ?? "-")"
            + "  threads \(s.threads.map(String.init) ?? "-")  entries \(TextTable.fixed(s.memoryEntries, 0))/\(TextTable.fixed(s.diskEntries, 0))"
            + "  hits p50 \(TextTable.fixed(s.hitP50Ms, 2)) p99 \(TextTable.fixed(s.hitP99Ms, 2)) ms"
            + "  \(TextTable.fixed(s.requestsPerSecond, 1)) req/s  \(s.errors) errors"
            + "  cores: thumbd \(TextTable.fixed(s.daemonCores, 2)) load \(TextTable.fixed(s.loadCores, 2)) others \(TextTable.fixed(s.othersCores, 2))"
    }

    func finish() {
        if options.keep {
            say("kept the scratch folder \(scratch.root) (logs in \(logs))")
        } else {
            scratch.remove()
        }
    }
}
