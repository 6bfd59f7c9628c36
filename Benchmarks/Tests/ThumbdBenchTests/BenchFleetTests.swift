import Foundation
import Testing
@testable import ThumbdBench

/// `thumbd-bench fleet` without running a fleet: its help names every figure, its options are
/// checked, and the figures are worked out as its --help defines them. (The benchmark itself runs
/// three nodes and three nginx for minutes: `make bench-fleet`, never the test suite.)
@Suite struct BenchFleetTests {
    @Test func helpExplainsEveryFigure() throws {
        let result = try BenchCLI.run(["fleet", "--help"])
        #expect(result.status == 0, "\(result.stderrText)")
        let help = result.stdoutText
        for figure in ["HITS", "static", "edge cache", "X-Edge-Cache", "0.9x", "generator-bound", "FAILOVER", "failed requests",
                       "failover time", "worst", "RESTART", "/readyz", "came home", "DUPLICATION", "ORIGIN REQUESTS",
                       "--corpus", "--duration", "--json", "--failover-connections", "--keep",
                       "SHARED TIER", "--shared-tier", "fourth node", "no original downloaded again", "sent again"] {
            #expect(help.contains(figure), "--help does not mention \(figure)")
        }
    }

    @Test func badOptionsAreRefused() throws {
        for arguments in [["--duration", "0"], ["--threads", "4", "--connections", "2"], ["--failover-after", "0"]] {
            let result = try BenchCLI.run(["fleet"] + arguments)
            #expect(result.status != 0, "\(arguments) was accepted")
            #expect(result.stderrText.contains("--"), "\(arguments): \(result.stderrText)")
        }
    }

    @Test func aMissingCorpusIsASkipNotAFailure() throws {
        let result = try BenchCLI.run(["fleet", "--corpus", "/nonexistent/thumbd-bench-fleet"])
        #expect(result.status == 0)
        #expect(result.stderrText.contains("skipped"))
    }

    private func outcome(_ photo: Int, sent: Double, after latency: Double, status: Int = 200, cache: String = "memory") -> BenchFleetOutcome {
        BenchFleetOutcome(photo: photo, sent: sent, answered: sent + latency, status: status, cache: cache, failure: status == 200 ? nil : "x")
    }

    @Test func failoverEndsWhenEveryPhotoOfTheDeadNodeWasAnsweredByARequestSentAfterTheKill() {
        let kill = 10.0
        let outcomes = [
            outcome(0, sent: 9.0, after: 0.001), outcome(1, sent: 9.5, after: 0.002),
            // In flight at the kill, answered after it: not proof of a failover (sent before the kill).
            outcome(1, sent: 9.999, after: 0.010),
            outcome(1, sent: 10.1, after: 0.300, cache: "miss"),   // photo 1 moved at 10.4
            outcome(2, sent: 10.2, after: 0.050, status: 503),
            outcome(2, sent: 10.3, after: 0.400, cache: "miss"),   // photo 2 moved at 10.7
            outcome(0, sent: 11.0, after: 0.001), outcome(2, sent: 12.0, after: 0.002),
        ]
        let f = BenchFleetFailover.analyse(outcomes, startedAt: 9.0, killedAt: kill, killedNode: 1, killedNodePhotos: [1, 2],
                                           photoNames: ["a", "b", "c"], connections: 2, pauseMs: 0)
        #expect(f.failed == 1)
        #expect(f.failedByStatus == ["503": 1])
        #expect(abs((f.failoverSeconds ?? 0) - 0.7) < 1e-9)
        #expect(f.photosFailedOver == 2)
        #expect(f.missesAfterKill == 2)
        #expect(f.beforeKill.requests == 2)
        // Answered after the kill and sent before 10.7: the one in flight, the 503 and the two misses.
        #expect(f.failoverWindow.requests == 4)
        #expect(f.afterWindow.requests == 2)
        #expect(abs((f.worstKilledNodePhotoMs ?? 0) - 400) < 1e-6)

        let unfinished = BenchFleetFailover.analyse(Array(outcomes.prefix(4)), startedAt: 9.0, killedAt: kill, killedNode: 1,
                                                    killedNodePhotos: [1, 2], photoNames: ["a", "b", "c"], connections: 2, pauseMs: 0)
        #expect(unfinished.failoverSeconds == nil)
        #expect(unfinished.photosFailedOver == 1)
    }

    @Test func theSharedTierLoadIsSplitIntoStagesBySendTimeAndResendsAreNotFailures() {
        var resent = outcome(0, sent: 5.5, after: 0.01, cache: "shared")
        resent.resentAfterIdleClose = true
        let outcomes = [
            outcome(0, sent: 1.0, after: 0.001), outcome(1, sent: 2.0, after: 0.002),
            outcome(1, sent: 4.2, after: 0.010, cache: "shared"), outcome(0, sent: 4.9, after: 0.2, status: 0),
            resent, outcome(1, sent: 7.0, after: 0.001),
        ]
        let load = BenchFleetSharedTier.Load(outcomes, marks: [("three nodes", 0), ("killed", 4), ("fourth", 5)], end: 8,
                                             pathName: { ["a", "b"][$0] })
        #expect(load.requests == 6)
        #expect(load.failed == 1)
        #expect(load.failedByStatus == ["0": 1])
        #expect(load.resentAfterIdleClose == 1)
        #expect(load.stages.map(\.requests) == [2, 2, 2])
        #expect(load.stages.map(\.failed) == [0, 1, 0])
        #expect(load.stages[1].byTier == ["shared": 1])
        #expect(load.stages[2].byTier == ["shared": 1, "memory": 1])
        #expect(load.stages.map(\.seconds) == [4, 1, 3])
        #expect(load.failureSamples.first?.hasPrefix("a: ") == true)
    }

    @Test func duplicationCountsEntriesHeldTwiceAndTheOriginLogCountsGetsPerPhoto() throws {
        let listing = BenchFleetListing(entriesByNode: [["200 http://o/a.jpg", "original http://o/a.jpg"], ["200 http://o/a.jpg", "200 http://o/b.jpg"], []],
                                        photosByNode: [[0], [0, 1], []])
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-bench-fleet-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        try """
            127.0.0.1 - - [24/Nov/2025 23:20:01] "GET / HTTP/1.1" 200 -
            127.0.0.1 - - [24/Nov/2025 23:20:02] "GET /a%20b.jpg HTTP/1.1" 200 -
            127.0.0.1 - - [24/Nov/2025 23:20:03] "GET /c.jpg HTTP/1.1" 200 -
            127.0.0.1 - - [24/Nov/2025 23:20:04] "GET /c.jpg HTTP/1.1" 200 -

            """.write(to: log, atomically: true, encoding: .utf8)
        let origin = BenchFleetOriginRequests.read(logFile: log.path, photoPaths: ["/a b.jpg", "/c.jpg", "/d.jpg"], names: ["a b", "c", "d"])
        #expect(origin.total == 3)
        #expect(origin.photosAskedOnce == 1)
        #expect(origin.photosNeverAsked == 1)
        #expect(origin.repeated == ["c": 2])

        let holdings = BenchFleetHoldings(listing, origin: origin)
        #expect(holdings.entries == 4)
        #expect(holdings.distinctEntries == 3)
        #expect(abs((holdings.duplicationFactor ?? 0) - 4.0 / 3.0) < 1e-9)
        #expect(holdings.photosOnSeveralNodes == 1)
    }
}
