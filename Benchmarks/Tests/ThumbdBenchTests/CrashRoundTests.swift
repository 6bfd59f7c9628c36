import ChildProcess
import Foundation
import Testing
import TestSupport
@testable import ThumbdBench

/// Issue 17's crash rounds, a few of them: the built thumbd serves a miss storm, a prefetch job and
/// admin evictions under small limits, is killed with SIGKILL at a seeded moment, and is started
/// again on the same directory; after each restart `thumbd cache verify` is clean, every index row
/// has its whole file, nothing is orphaned, and every 200 answered before is still cached whole or
/// absent, on a cache prefilled with 20,000 entries (the daemon repairs in the background; the
/// checks wait for it). `thumbd-bench crash` runs the same code for 50 rounds. Runs in `make test`'s CPU-heavy
/// pass: it keeps both cores busy.
@Suite(.serialized) struct CrashRoundTests {
    static let python = BackgroundProcess.which("python3")

    @Test(.requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)),
          .requires(python != nil, "python3 (the origin) is not installed"))
    func threeKillsUnderLoadLeaveNothingTornOrOrphaned() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-crash-rounds-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let photos = try #require(TestPaths.corpus("photos")).path
        var settings = CrashRunSettings(images: photos, thumbd: TestPaths.builtProduct("thumbd"), scratch: scratch)
        settings.rounds = 3
        settings.seed = 2026
        settings.loadSeconds = 0.8...1.6
        settings.connections = 3
        // On a cache that already holds many entries (`thumbd-bench crash --prefill 1000000` at full size).
        settings.prefillEntries = 20_000

        let report = try await CrashRun.runOffThePool(settings)

        #expect(report.rounds.count == 3)
        for round in report.rounds {
            #expect(round.passed, "round \(round.round): \(round.failures.prefix(10))")
            #expect(round.load.prefetchAccepted, "round \(round.round): the prefetch job was refused")
        }
        #expect(report.totals.torn == 0 && report.totals.orphans == 0 && report.totals.verifyFailures == 0)
        // The checks compared something: answers came before the kills, and some outlived them.
        #expect(report.totals.answers > 0, "no thumbnail was answered before any kill")
        #expect(report.totals.stillCached > 0, "no answered thumbnail was still cached after any restart: \(report.rounds.map { "round \($0.round): \($0.load.answered) answered, \($0.directory.absent) absent" })")
    }
}
