#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@_spi(CacheFiles) import ThumbCache

/// `thumbd serve` on a big cache, as an operator runs it: how soon it answers after each kind of
/// stop, how long its background repair takes, and how much memory the cache costs it.
enum DaemonStartBenchmark {
    struct Start: Sendable, Codable, Hashable {
        /// From spawning the daemon until `/readyz` answered 200.
        var readyMilliseconds: Double
        /// Until a request for a cached thumbnail was answered 200 from the cache.
        var firstHitMilliseconds: Double
        /// Until a request for a URL not in the cache was answered (after asking its origin, which
        /// answers 404 at once: the daemon's miss path, not an origin's speed, is timed).
        var firstMissMilliseconds: Double
        /// Until the repair after an unclean stop had been through every folder (0 after a clean stop).
        var repairSeconds: Double
    }

    struct Result: Sendable, Codable, Hashable {
        var entries: Int
        /// The daemon's VmRSS on an empty cache after the same requests: its base.
        var baseRSSBytes: Int
        /// Its VmRSS on the big cache after `hitsSampled` hits of random entries.
        var rssBytes: Int
        var hitsSampled: Int
        var hitsFromCache: Int
        var afterCleanStop: Start
        var afterKill: Start
        var afterMachineCrash: Start
        /// Restarted with the thumbnails' limit at half what they hold: the excess is trimmed in the
        /// background; its repairSeconds is the trim's seconds.
        var afterLoweredLimit: Start
        var loweredLimitBytes: Int

        var bytesPerEntry: Double { Double(rssBytes - baseRSSBytes) / Double(max(1, entries)) }
        var firstAnswerMilliseconds: Double {
            [afterCleanStop, afterKill, afterMachineCrash, afterLoweredLimit].map { max($0.firstHitMilliseconds, $0.firstMissMilliseconds) }.max() ?? 0
        }
        var firstAnswerTargetMet: Bool { firstAnswerMilliseconds <= 1000 }
        var memoryTargetMet: Bool { bytesPerEntry <= 200 }
    }

    static func run(thumbd: String, cacheDir: URL, entries: Int, scratch: URL, hits: Int = 2000,
                    progress: @Sendable (String) -> Void) throws -> Result {
        let logs = scratch.appendingPathComponent("logs").path
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        let environment = ["THUMBD_CACHE_DISK_MAX_MIB": "1048576"]
        let present = try presentEntries(cacheDir, entries: entries, count: hits)
        guard let python = BenchProc.which("python3") else { throw ValidationErrorMessage("python3 is needed for the origin of the misses") }
        let originRoot = scratch.appendingPathComponent("origin").path
        try FileManager.default.createDirectory(atPath: originRoot, withIntermediateDirectories: true)
        let origin = try BenchOrigin.start(python: python, directory: originRoot, logs: logs)
        defer { origin.process.stop() }
        let missPath: @Sendable (Int) -> String = { n in
            "/v1/thumbnail?url=" + BenchHTTP.queryEscape("http://127.0.0.1:\(origin.port)/missing/\(n).jpg") + "&size=200&format=jpeg"
        }

        // The base: the same daemon and requests on an empty cache.
        let empty = scratch.appendingPathComponent("empty-cache").path
        try? FileManager.default.removeItem(atPath: empty)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        var daemon = try BenchDaemon.launch(executable: thumbd, name: "cache-base", port: try BenchProc.freePort(), cacheDirectory: empty,
                                            accessLog: false, extra: environment, logs: logs)
        _ = try firstAnswers(daemon, since: BenchStats.now(), hitPath: BenchCacheEntries.requestPath(present[0]), missPath: missPath,
                             expectingHit: false)
        // The same number of requests, all misses here (their origin answers 404 at once).
        for n in 0..<hits { _ = try? BenchHTTP.get(port: daemon.port, path: missPath(n), timeout: 30) }
        let baseRSS = (BenchProc.statusNumber(daemon.process.pid, "VmRSS") ?? 0) * 1024
        _ = daemon.process.stop(SIGTERM, grace: 30)
        progress("daemon on an empty cache: VmRSS \(baseRSS >> 20) MiB")

        // After a clean stop (the fill or the last bench closed it).
        let port = try BenchProc.freePort()
        func start(_ name: String) throws -> (BenchServer, Start) {
            let started = BenchStats.now()
            let daemon = try BenchDaemon.launch(executable: thumbd, name: name, port: port, cacheDirectory: cacheDir.path,
                                                accessLog: false, extra: environment, logs: logs)
            var figures = try firstAnswers(daemon, since: started, hitPath: BenchCacheEntries.requestPath(present[0]), missPath: missPath)
            figures.repairSeconds = name == "cache-clean" ? 0 : try daemon.secondsUntilRepaired(since: started, timeout: 3600)
            progress("\(name): ready \(fixed(figures.readyMilliseconds)) ms, first hit \(fixed(figures.firstHitMilliseconds)) ms, "
                     + "first miss \(fixed(figures.firstMissMilliseconds)) ms, repair \(fixed(figures.repairSeconds)) s")
            return (daemon, figures)
        }
        let clean: Start
        (daemon, clean) = try start("cache-clean")
        let sampled = sampleHits(daemon, entries: present)
        let rss = (BenchProc.statusNumber(daemon.process.pid, "VmRSS") ?? 0) * 1024
        progress("daemon on \(entries) entries: VmRSS \(rss >> 20) MiB after \(hits) hits (\(sampled) from the cache)")
        _ = daemon.process.stop(SIGKILL, grace: 10)

        let killed: Start
        (daemon, killed) = try start("cache-after-kill")
        _ = daemon.process.stop(SIGKILL, grace: 10)
        // A machine crash, simulated: the owner's boot id is not this boot's, so recent files are suspect.
        let layout = DiskLayout(directory: cacheDir)
        _ = try? FileOps.remove(layout.ownerBootPath)
        try? FileOps.writeNew(layout.ownerBootPath, Array("another-boot".utf8), sync: false)
        let crashed: Start
        (daemon, crashed) = try start("cache-after-machine-crash")
        _ = daemon.process.stop(SIGTERM, grace: 60)

        // The limit halved: the daemon answers at once and trims the excess beside its answers.
        let held = try DiskCache.open(at: cacheDir, mode: .readOnly, warn: { _ in }).usage.thumbnails.bytes
        let lowered = max(1, (held / 2) >> 20)
        let loweredStarted = BenchStats.now()
        daemon = try BenchDaemon.launch(executable: thumbd, name: "cache-lowered-limit", port: port, cacheDirectory: cacheDir.path,
                                        accessLog: false, extra: ["THUMBD_CACHE_DISK_MAX_MIB": "\(lowered)"], logs: logs)
        var trimmed = try firstAnswers(daemon, since: loweredStarted, hitPath: BenchCacheEntries.requestPath(present[0]), missPath: missPath,
                                       expectingHit: false)
        trimmed.repairSeconds = try daemon.secondsUntilTrimmed(since: loweredStarted, timeout: 3600)
        progress("cache-lowered-limit (\(lowered) MiB for \(held >> 20) MiB): ready \(fixed(trimmed.readyMilliseconds)) ms, "
                 + "first answer \(fixed(trimmed.firstHitMilliseconds)) ms, first miss \(fixed(trimmed.firstMissMilliseconds)) ms, "
                 + "trimmed in \(fixed(trimmed.repairSeconds)) s")
        _ = daemon.process.stop(SIGTERM, grace: 60)

        return Result(entries: entries, baseRSSBytes: baseRSS, rssBytes: rss, hitsSampled: hits, hitsFromCache: sampled,
                      afterCleanStop: clean, afterKill: killed, afterMachineCrash: crashed,
                      afterLoweredLimit: trimmed, loweredLimitBytes: lowered << 20)
    }

    /// Polls every 2 ms from `started` until `/readyz` says 200 and a cached entry is answered from
    /// the cache; then times one miss.
    private static func firstAnswers(_ daemon: BenchServer, since started: Double, hitPath path: String, missPath: (Int) -> String,
                                     expectingHit: Bool = true) throws -> Start {
        var ready: Double?, hit: Double?
        while ready == nil || hit == nil {
            guard daemon.process.isRunning, BenchStats.now() - started < 600 else {
                try daemon.waitUntilReady(path: "/readyz", timeout: 0)
                throw ValidationErrorMessage("\(daemon.process.name) did not answer a cached entry within 600 s")
            }
            if ready == nil, (try? BenchHTTP.get(port: daemon.port, path: "/readyz", timeout: 2))?.status == 200 {
                ready = BenchStats.now() - started
            }
            if hit == nil, let response = try? BenchHTTP.get(port: daemon.port, path: path, timeout: 30) {
                // An empty cache answers a miss (a 502 after its origin refused, retried): that is its answer.
                if response.status == 200 || !expectingHit { hit = BenchStats.now() - started }
            }
            if ready == nil || hit == nil { usleep(2_000) }
        }
        _ = try? BenchHTTP.get(port: daemon.port, path: missPath(Int.random(in: 0..<1_000_000_000)), timeout: 30)
        let miss = BenchStats.now() - started
        return Start(readyMilliseconds: ready! * 1000, firstHitMilliseconds: hit! * 1000, firstMissMilliseconds: miss * 1000,
                     repairSeconds: 0)
    }

    /// `count` entries the cache holds now, in random order (the in-process measurements looked
    /// up random entries and then evicted the least recently used).
    private static func presentEntries(_ cacheDir: URL, entries: Int, count: Int) throws -> [Int] {
        let cache = try DiskCache.open(at: cacheDir, mode: .readOnly, warn: { _ in })
        defer { cache.close() }
        var random = SystemRandomNumberGenerator()
        var found: [Int] = []
        var tries = 0
        while found.count < count && tries < count * 100 {
            let i = Int.random(in: 0..<entries, using: &random)
            if cache.contains(BenchCacheEntries.key(i)) { found.append(i) }
            tries += 1
        }
        guard found.count == count else { throw ValidationErrorMessage("only \(found.count) of \(count) sampled entries are in the cache") }
        return found
    }

    /// A request for each of `entries`; how many were answered 200 from the cache.
    private static func sampleHits(_ daemon: BenchServer, entries: [Int]) -> Int {
        var fromCache = 0
        for i in entries {
            let response = try? BenchHTTP.get(port: daemon.port, path: BenchCacheEntries.requestPath(i), timeout: 10)
            if response?.status == 200, response?.headers["x-cache"] != "miss" { fromCache += 1 }
        }
        return fromCache
    }

    private static func fixed(_ value: Double) -> String { String(format: "%.1f", value) }
}
