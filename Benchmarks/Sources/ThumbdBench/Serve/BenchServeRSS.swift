#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ConsoleText
import Foundation

/// The RSS phase of `thumbd-bench serve`: a fresh daemon under minutes of mixed hits and misses,
/// its resident set sampled to show whether it grows.
extension BenchServeRunner {
    mutating func rss(photos allPhotos: [BenchPhoto], notes: inout [String]) throws -> BenchServeResults.RSS {
        let seconds = options.rssDuration
        let interval = options.rssInterval ?? min(5, max(1, Double(seconds) / 60))
        say("rss: a fresh daemon (memory tier \(options.rssMemoryMiB) MiB), \(seconds) s of hits and misses, RSS every \(TextTable.fixed(interval, 1)) s")
        let daemon = track(try BenchDaemon.start(executable: executable, name: "rss", cacheDirectory: path("cache-rss"),
                                                 accessLog: options.accessLog != .off, extra: ["THUMBD_CACHE_MEMORY_MAX_MIB": String(options.rssMemoryMiB)], logs: logs))
        var photos = allPhotos
        if photos.first?.bytes.isEmpty ?? true {
            say("warming \(daemon.process.name): \(photos.count) thumbnails")
            try BenchHotPhotos.warm(daemon, photos: &photos, expectTier: "memory", notes: &notes)
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
                if let kib = BenchProc.statusNumber(daemon.process.pid, "VmRSS") {
                    let metrics = BenchMetrics.scrape(port: daemon.port)
                    samples.append(.init(seconds: now - start, rssBytes: kib * 1024,
                                         memoryTierBytes: metrics?.value("thumbd_cache_bytes", "tier=\"memory\""),
                                         diskTierBytes: metrics?.value("thumbd_cache_bytes", "tier=\"disk\""),
                                         responses: metrics?.value("thumbd_thumbnail_responses_total"),
                                         heapInUseBytes: metrics?.value("thumbd_heap_in_use_bytes"),
                                         heapFreeBytes: metrics?.value("thumbd_heap_free_bytes")))
                }
                next += interval
            }
            usleep(50_000)
        }
        let peak = BenchProc.statusNumber(daemon.process.pid, "VmHWM").map { $0 * 1024 }
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
        // median of the samples at 20–30% of the run with the median of the last 10%.
        let (early, late) = BenchFlatness.stretches(times: samples.map(\.seconds), total: total)
        func median(_ indices: [Int], _ value: (BenchServeResults.RSS.Sample) -> Double) -> Double {
            BenchStats.median(indices.map { value(samples[$0]) }) ?? value(last)
        }
        let earlyRSS = median(early) { Double($0.rssBytes) }
        let lateRSS = median(late) { Double($0.rssBytes) }
        let earlyTier = median(early) { $0.memoryTierBytes ?? 0 }
        let lateTier = median(late) { $0.memoryTierBytes ?? 0 }
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
}
