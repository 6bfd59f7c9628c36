#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ConsoleText
import Foundation

/// What one round did and found after its restart.
struct CrashRoundResult: Sendable, Codable {
    var round: Int
    /// Seconds of load before the kill (drawn from the seed).
    var loadSeconds: Double
    var load: CrashLoad.Counts
    /// The daemon's exit status as reaped: 137 (SIGKILL), or what it died of before the kill.
    var killStatus: Int32
    /// From spawning the daemon again on the directory until /readyz answered 200.
    var restartSeconds: Double
    /// From spawning it until its background repair had been through every folder.
    var repairSeconds: Double
    /// The restarted daemon's log says its recovery changed something (removed, dropped, adopted).
    var recoveryRepaired: Bool
    var verify: CrashVerifyCLI.Outcome
    var directory: CrashDirectoryFindings
    var served: CrashServedCheck.Outcome

    var killedBySIGKILL: Bool { killStatus == 128 + SIGKILL }
    var torn: Int { directory.torn.count + served.differentBytes.count }
    var passed: Bool {
        killedBySIGKILL && verify.isClean && directory.isClean && served.differentBytes.isEmpty && served.notFromCache.isEmpty
    }

    /// Each broken promise of the round, one line each.
    var failures: [String] {
        var lines: [String] = []
        if !killedBySIGKILL { lines.append("the daemon exited with status \(killStatus) before the kill") }
        lines += verify.problems.map { "thumbd cache verify (exit \(verify.exitStatus)): \($0)" }
        if verify.exitStatus != 0 && verify.problems.isEmpty { lines.append("thumbd cache verify exited \(verify.exitStatus)") }
        lines += directory.rowProblems.map { "index row: \($0)" }
        lines += directory.orphans.map { "orphan: \($0)" }
        lines += directory.torn.map { "torn on disk: \($0)" }
        lines += served.differentBytes.map { "torn as served: \($0)" }
        lines += served.notFromCache.map { "listed but not served from the cache: \($0)" }
        return lines
    }
}

/// Every round, and the totals the issue asks for.
struct CrashReport: Sendable, Codable {
    struct Totals: Sendable, Codable {
        var rounds = 0
        /// 200s received whole before a kill.
        var answers = 0
        /// Answered keys checked after the restarts (each round checks every key answered so far).
        var answersChecked = 0
        var stillCached = 0
        var absent = 0
        /// Must be 0.
        var torn = 0
        var orphans = 0
        var rowProblems = 0
        var verifyFailures = 0
        var notServedFromCache = 0
        /// Rounds whose daemon was not alive to be killed.
        var earlyExits = 0
        /// Restarts whose recovery removed, dropped or adopted something.
        var repairedRestarts = 0
        var indexRebuilds = 0
        var restartP50Ms: Double?
        var restartMaxMs: Double?
        var repairP50Seconds: Double?
        var repairMaxSeconds: Double?
        var passed = true
    }

    var seed: UInt64
    var photos: Int
    var connections: Int
    var loadSeconds: [Double]
    var limitsMebibytes: [String: Int]
    var rounds: [CrashRoundResult]
    var totals: Totals

    init(settings: CrashRunSettings, photos: Int, rounds: [CrashRoundResult]) {
        seed = settings.seed
        self.photos = photos
        connections = settings.connections
        loadSeconds = [settings.loadSeconds.lowerBound, settings.loadSeconds.upperBound]
        limitsMebibytes = ["memory": settings.memoryMiB, "disk": settings.diskMiB, "originals": settings.originalsMiB]
        self.rounds = rounds
        var totals = Totals()
        totals.rounds = rounds.count
        for round in rounds {
            totals.answers += round.load.answered
            totals.answersChecked += round.directory.answersChecked
            totals.stillCached += round.directory.stillCached
            totals.absent += round.directory.absent
            totals.torn += round.torn
            totals.orphans += round.directory.orphans.count
            totals.rowProblems += round.directory.rowProblems.count
            totals.verifyFailures += round.verify.isClean ? 0 : 1
            totals.notServedFromCache += round.served.notFromCache.count
            totals.earlyExits += round.killedBySIGKILL ? 0 : 1
            totals.repairedRestarts += round.recoveryRepaired ? 1 : 0
            totals.indexRebuilds += round.directory.indexRebuilt ? 1 : 0
            totals.passed = totals.passed && round.passed
        }
        let restarts = rounds.map { $0.restartSeconds * 1000 }
        totals.restartP50Ms = BenchStats.median(restarts)
        totals.restartMaxMs = restarts.max()
        let repairs = rounds.map(\.repairSeconds)
        totals.repairP50Seconds = BenchStats.median(repairs)
        totals.repairMaxSeconds = repairs.max()
        self.totals = totals
    }

    func render() -> String {
        let header = ["round", "load s", "200s", "keys checked", "still cached", "absent", "torn", "orphans", "verify", "restart ms",
                      "repair s", "repaired"]
        let rows = rounds.map { r in
            [String(r.round), TextTable.fixed(r.loadSeconds, 2), String(r.load.answered), String(r.directory.answersChecked),
             String(r.directory.stillCached), String(r.directory.absent), String(r.torn), String(r.directory.orphans.count),
             r.verify.isClean ? "clean" : "FAILED", TextTable.fixed(r.restartSeconds * 1000, 1), TextTable.fixed(r.repairSeconds, 2),
             r.recoveryRepaired ? "yes" : "no"]
        }
        var text = "thumbd-bench crash: \(rounds.count) rounds, seed \(seed), \(photos) photos, \(connections) storm connections, "
            + "load \(TextTable.fixed(loadSeconds[0], 1))-\(TextTable.fixed(loadSeconds[1], 1)) s, limits memory \(limitsMebibytes["memory"] ?? 0) MiB, "
            + "disk \(limitsMebibytes["disk"] ?? 0) MiB, originals \(limitsMebibytes["originals"] ?? 0) MiB\n\n"
        text += TextTable.render(header, rows) + "\n"
        let t = totals
        text += """
            answers: \(t.answers) 200s received whole before the kills; \(t.answersChecked) key checks after the restarts: \
            \(t.stillCached) still cached whole, \(t.absent) absent, \(t.torn) torn (must be 0)
            directory: \(t.orphans) orphan files, \(t.rowProblems) index rows without their whole file, \(t.verifyFailures) rounds \
            where thumbd cache verify was not clean, \(t.notServedFromCache) listed keys not served from the cache
            restarts: to /readyz p50 \(TextTable.fixed(t.restartP50Ms, 1)) ms, max \(TextTable.fixed(t.restartMaxMs, 1)) ms; \
            background repair done p50 \(TextTable.fixed(t.repairP50Seconds ?? 0, 2)) s, max \(TextTable.fixed(t.repairMaxSeconds ?? 0, 2)) s; \
            \(t.repairedRestarts) of \(t.rounds) recoveries repaired something, \(t.indexRebuilds) rebuilt the index; \
            \(t.earlyExits) daemons died before their kill
            result: \(t.passed ? "PASSED: nothing torn, nothing orphaned, verify clean after every restart" : "FAILED")

            """
        for round in rounds where !round.passed {
            text += "round \(round.round):\n" + round.failures.prefix(20).map { "  \($0)\n" }.joined()
        }
        return text
    }
}
