#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ConsoleText
import Foundation
import TestSupport
import ThumbCache

/// Rounds of a real `thumbd serve` killed under load: each round drives the load for a seeded
/// while, SIGKILLs the daemon, starts it again on the same directory, and checks what it recovered
/// (see `CrashRoundResult`). Everything it starts (the origin, each daemon) is stopped by its own
/// pid before it returns, also on failure.
enum CrashRun {
    /// `run` on a thread of its own: it blocks (processes, sockets, sleeps) for the whole run, and a
    /// test's caller must not lose one of the cooperative pool's few threads to it.
    static func runOffThePool(_ settings: CrashRunSettings) async throws -> CrashReport {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try run(settings) }) }
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    static func run(_ settings: CrashRunSettings) throws -> CrashReport {
        var settings = settings
        if settings.prefillEntries > 0 {
            let bytes = try prefill(settings)
            settings.diskMiB += Int((bytes + (1 << 20) - 1) >> 20)
        }
        let photos = ((try? FileManager.default.contentsOfDirectory(atPath: settings.images)) ?? [])
            .filter { ["jpg", "jpeg", "png", "webp"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
        guard !photos.isEmpty else { throw ValidationErrorMessage("no photos (JPEG, PNG, WebP) in \(settings.images)") }
        guard let python = BenchProc.which("python3") else { throw ValidationErrorMessage("python3 is needed for the origin") }
        try FileManager.default.createDirectory(atPath: settings.logs, withIntermediateDirectories: true)

        let origin = try BenchOrigin.start(python: python, directory: settings.images, logs: settings.logs)
        defer { origin.process.stop() }
        let plan = CrashURLPlan(originPort: origin.port, photos: photos)
        let answers = CrashAnswers()
        let port = try BenchProc.freePort()
        var random = SeededRandom(seed: settings.seed)

        var daemon = try launch(settings, port: port, name: "crash-start")
        defer { daemon.process.stop(SIGTERM, grace: 10) }
        _ = try daemon.secondsUntilReady(since: BenchStats.now())
        var results: [CrashRoundResult] = []
        for round in 1...settings.rounds {
            let loadSeconds = Double.random(in: settings.loadSeconds, using: &random)
            let load = CrashLoad.start(port: port, plan: plan, answers: answers, settings: settings, seed: random.next())
            usleep(useconds_t(loadSeconds * 1e6))
            let killStatus = daemon.process.stop(SIGKILL, grace: 10) ?? -1
            let counts = load.stop()

            let started = BenchStats.now()
            daemon = try launch(settings, port: port, name: "crash-round-\(round)")
            let restartSeconds = try daemon.secondsUntilReady(since: started)
            let repairSeconds = try daemon.secondsUntilRepaired(since: started)
            // Nothing runs in the daemon now (prefetch jobs do not outlive a process, and its repair
            // is done): the directory holds still while it is read.
            let verify = CrashVerifyCLI.run(thumbd: settings.thumbd, directory: settings.cacheDirectory)
            let directory = try CrashDirectoryCheck.check(directory: settings.cacheDirectory, answers: answers.all)
            let served = CrashServedCheck.run(port: port, keys: directory.stillCached)
            let log = (try? String(contentsOfFile: daemon.process.stdoutPath, encoding: .utf8)) ?? ""
            let result = CrashRoundResult(
                round: round, loadSeconds: loadSeconds, load: counts, killStatus: killStatus, restartSeconds: restartSeconds,
                repairSeconds: repairSeconds,
                recoveryRepaired: log.contains("repair finished") && !log.contains(" 0 adopted from their metadata, 0 index rows dropped, 0 stray"),
                verify: verify, directory: directory.findings,
                served: served)
            results.append(result)
            settings.say("round \(round): \(TextTable.fixed(loadSeconds, 2)) s of load, \(counts.answered) answers; "
                         + "\(directory.findings.stillCached) still cached, \(directory.findings.absent) absent, \(result.torn) torn, "
                         + "\(directory.findings.orphans.count) orphans; verify \(verify.isClean ? "clean" : "FAILED"); "
                         + "ready again in \(TextTable.fixed(restartSeconds * 1000, 1)) ms, repaired in \(TextTable.fixed(repairSeconds, 2)) s")
        }
        return CrashReport(settings: settings, photos: photos.count, rounds: results)
    }

    /// Writes `prefillEntries` small entries (of URLs the load never asks for) into the cache
    /// directory before the daemon first starts; returns their bytes.
    private static func prefill(_ settings: CrashRunSettings) throws -> Int {
        let limits = DiskCacheLimits(maxBytes: Int.max / 4, originalsMaxBytes: 0, fsync: .none)
        let cache = try DiskCache.open(at: URL(fileURLWithPath: settings.cacheDirectory, isDirectory: true), limits: limits, warn: { _ in })
        defer { cache.close() }
        let count = settings.prefillEntries
        let say = settings.say
        return try cache.bulkFill(count: count, progress: { done in if done % 200_000 == 0 || done == count { say("prefilled \(done) of \(count) entries") } },
                                  make: BenchCacheEntries.make)
    }

    /// The daemon on the run's one cache directory and port, with the small limits.
    private static func launch(_ settings: CrashRunSettings, port: Int, name: String) throws -> BenchServer {
        try BenchDaemon.launch(executable: settings.thumbd, name: name, port: port, cacheDirectory: settings.cacheDirectory,
                               accessLog: false, extra: settings.daemonEnvironment, logs: settings.logs)
    }
}
