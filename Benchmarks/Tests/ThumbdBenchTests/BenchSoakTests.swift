import Foundation
import Testing
import TestSupport
@testable import ThumbdBench

/// `thumbd-bench soak`: its targets' arithmetic on fixed numbers, and a run of a few seconds on
/// the repository's own small images whose samples must look like a live daemon's. (The soak
/// itself runs for 30 minutes: `make bench-soak`, never the test suite.)
@Suite struct BenchSoakTests {
    // MARK: - The flatness rule

    @Test func theStretchesAreTheTwentyToThirtyPercentMarkAndTheLastTenth() {
        // The issue's run: 30 minutes, a sample every 10 s, each at the end of its window.
        let times = (1...180).map { Double($0) * 10 }
        let (early, late) = BenchFlatness.stretches(times: times, total: 1800)
        #expect(early == Array(36..<54), "early: \(early)")   // 370 s ... 540 s
        #expect(late == Array(162..<180), "late: \(late)")    // 1630 s ... 1800 s
    }

    @Test func flatMeansTheLastTenthWithinTenPercentOfTheEarlyMark() throws {
        let times = (1...20).map { Double($0) * 10 }  // 200 s: early is 50 s and 60 s, late 190 s and 200 s
        func values(early: (Double, Double), late: (Double, Double)) -> [Double] {
            var list = Array(repeating: 500.0, count: 20)  // the warm-up and the middle count for nothing
            (list[4], list[5], list[18], list[19]) = (early.0, early.1, late.0, late.1)
            return list
        }
        let grew = try #require(BenchFlatness.judge(values: values(early: (100, 110), late: (112, 118)), times: times, total: 200, statistic: .mean))
        #expect(grew.early == 105 && grew.late == 115)
        #expect(abs(grew.changePercent - 100.0 * 10 / 105) < 1e-9)
        #expect(grew.isWithin(10))
        #expect(grew.earlySamples == 2 && grew.lateSamples == 2)

        let leaked = try #require(BenchFlatness.judge(values: values(early: (100, 110), late: (116, 120)), times: times, total: 200, statistic: .mean))
        #expect(abs(leaked.changePercent - 100.0 * 13 / 105) < 1e-9)
        #expect(!leaked.isWithin(10))

        // Falling by more than 10% is not flat either ("within").
        let fell = try #require(BenchFlatness.judge(values: values(early: (100, 100), late: (89, 89)), times: times, total: 200, statistic: .mean))
        #expect(fell.changePercent == -11)
        #expect(!fell.isWithin(10))

        // The median, as `serve`'s RSS phase takes it, on the same stretches.
        let median = try #require(BenchFlatness.judge(values: values(early: (100, 110), late: (112, 118)), times: times, total: 200, statistic: .median))
        #expect(median.early == 105 && median.late == 115)
    }

    @Test func aRunTooShortForAStretchFallsBackToTheNearestSamples() {
        // Three samples at 2, 4, 6 s of a 6 s run: nothing lies in (1.2, 1.8] s or (5.4, 6] s but 6.
        let (early, late) = BenchFlatness.stretches(times: [2, 4, 6], total: 6)
        #expect(early == [0])
        #expect(late == [2])
        #expect(BenchFlatness.judge(values: [0, 1, 2], times: [2, 4, 6], total: 6, statistic: .mean) == nil, "no percentage from 0")
    }

    // MARK: - The targets

    private func sample(_ seconds: Double, rss: Int = 100 << 20, fds: Int = 40, p99: Double? = 1) -> BenchSoakSample {
        BenchSoakSample(seconds: seconds, rssBytes: rss, openFiles: fds, threads: 12, requestsPerSecond: 100,
                        hits: p99 == nil ? 0 : 90, hitP50Ms: p99.map { $0 / 2 }, hitP99Ms: p99, errors: 0)
    }

    @Test func everyTargetMetOnASteadyRun() {
        let samples = (1...10).map { sample(Double($0) * 10, p99: 4.9) }
        let targets = BenchSoakTargets(samples: samples, totalSeconds: 100, unexpectedErrors: 0)
        #expect(targets.allMet, "\(targets.list)")
        #expect(targets.rss?.changePercent == 0 && targets.openFiles?.changePercent == 0)
        #expect(targets.worstHitP99Ms == 4.9)
    }

    @Test func oneSlowWindowOneLeakOrOneErrorMissesItsTarget() {
        var samples = (1...10).map { sample(Double($0) * 10) }
        samples[6].hitP99Ms = 5.0  // p99 < 5 ms, so 5.0 is over
        samples[9].rssBytes = 130 << 20  // the last tenth is one sample: +30%
        samples[9].openFiles = 50  // +25%
        let targets = BenchSoakTargets(samples: samples, totalSeconds: 100, unexpectedErrors: 1)
        #expect(targets.windowsOverHitTarget == 1)
        #expect(targets.list.allSatisfy { $0.met == false }, "\(targets.list)")
        #expect(abs((targets.rss?.changePercent ?? 0) - 30) < 1e-9)

        // A window in which no hit was answered cannot show the p99 held.
        samples = (1...10).map { sample(Double($0) * 10) }
        samples[3] = sample(40, p99: nil)
        let silent = BenchSoakTargets(samples: samples, totalSeconds: 100, unexpectedErrors: 0)
        #expect(silent.windowsWithoutHits == 1)
        #expect(silent.list.last?.met == false)
    }

    @Test func theCSVHasAColumnPerFigureAndEmptyFieldsForWhatWasNotRead() {
        var missing = sample(20, p99: nil)
        missing.rssBytes = nil
        let lines = BenchSoakCSV.text([sample(10), missing]).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4 && lines[3].isEmpty)
        let header = lines[0].split(separator: ",").map(String.init)
        for column in ["seconds", "rss_mib", "heap_in_use_mib", "heap_free_mib", "open_fds", "threads", "memory_entries", "disk_mib", "evictions", "hit_p50_ms", "hit_p99_ms", "requests_per_s", "errors"] {
            #expect(header.contains(column), "no column \(column)")
        }
        let first = lines[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(first[header.firstIndex(of: "rss_mib")!] == "100")
        #expect(first[header.firstIndex(of: "hit_p99_ms")!] == "1")
        let second = lines[2].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(second.count == header.count)
        #expect(second[header.firstIndex(of: "rss_mib")!] == "")
        #expect(second[header.firstIndex(of: "hit_p99_ms")!] == "")
    }

    // MARK: - The command

    @Test func helpTeachesWhatIsMeasuredAndTheTargets() throws {
        let result = try BenchCLI.run(["soak", "--help"])
        #expect(result.status == 0, "\(result.stderrText)")
        let help = result.stdoutText
        for figure in ["RSS", "/proc/PID/fd", "Threads", "p99", "5 ms", "20-30%", "last 10%", "If-None-Match", "304", "prefetch",
                       "DELETE", "inspector", "eviction", "gnuplot", "CSV", "--minutes", "--sample-seconds", "--chart", "--json"] {
            #expect(help.contains(figure), "--help does not mention \(figure)")
        }
    }

    @Test func badOptionsAreRefused() throws {
        for arguments in [["--minutes", "0"], ["--sample-seconds", "0.1"], ["--chart", "soak.png"], ["--minutes", "0.01", "--sample-seconds", "10"]] {
            let result = try BenchCLI.run(["soak"] + arguments)
            #expect(result.status == 2, "\(arguments) was accepted: \(result.stderrText)")
        }
    }

    /// 18 seconds of the real load on the repository's small images: a live daemon's samples, every
    /// kind of request answered as asked, and the CSV (and the chart when gnuplot is here) written.
    /// The targets are not asserted: a test machine busy with other suites says nothing about them.
    @Test func aShortSoakSamplesALiveDaemon() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-bench-soak-\(UUID().uuidString)")
        let corpus = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["webp/lossy_rgb_48x32.webp", "webp/exif_orientation_8.webp", "png/interlaced-rgb.png", "png/gradient-rgba8.png"] {
            let from = TestPaths.testImages.appendingPathComponent(name)
            try FileManager.default.copyItem(at: from, to: corpus.appendingPathComponent(from.lastPathComponent))
        }
        let chart = folder.appendingPathComponent("soak.svg").path
        let result = try BenchCLI.run(["soak", "--minutes", "0.3", "--sample-seconds", "2", "--corpus", corpus.path, "--size", "32",
                                       "--hits-per-second", "50", "--misses-per-second", "2", "--chart", chart, "--json"], timeout: 240)
        #expect(result.status == 0, "soak failed: \(result.stderrText)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any], "\(result.stdoutText)")

        let samples = try #require(json["samples"] as? [[String: Any]])
        #expect(samples.count == 9, "18 s every 2 s: \(samples.count) samples")
        func number(_ object: [String: Any], _ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }
        for (index, sample) in samples.enumerated() {
            #expect(number(sample, "seconds") == Double(index + 1) * 2)
            let rss = number(sample, "rss_bytes") ?? 0
            #expect(rss > 4 * 1_048_576 && rss < 4 * 1_073_741_824, "RSS \(rss)")
            #expect((number(sample, "open_files") ?? 0) > 3)
            #expect((number(sample, "threads") ?? 0) >= 2)
            #expect((number(sample, "memory_entries") ?? 0) >= 4, "the hot set is in memory")
            #expect((number(sample, "requests_per_second") ?? 0) > 10)
            let p50 = number(sample, "hit_p50_ms"), p99 = number(sample, "hit_p99_ms")
            #expect(p50 != nil && p99 != nil && p50! > 0 && p50! <= p99!, "hit latency \(String(describing: p50)) / \(String(describing: p99))")
        }
        let requests = try #require(json["requests"] as? [String: Int])
        for kind in ["hit", "not_modified", "miss", "prefetch", "inspector", "eviction"] {
            #expect(requests[kind, default: 0] > 0, "no \(kind) request in \(requests)")
        }
        #expect((json["errors"] as? [String: Int])?.isEmpty == true, "errors: \(json["errors"] ?? "")")
        #expect(json["targets"] is [String: Any])

        let csv = try String(contentsOfFile: folder.appendingPathComponent("soak.csv").path, encoding: .utf8)
        let rows = csv.split(separator: "\n")
        #expect(rows.count == 10, "a header and 9 rows: \(csv)")
        #expect(rows.first?.hasPrefix("seconds,rss_mib,open_fds,threads") == true)
        if let skipped = json["chart_skipped"] as? String {
            #expect(skipped.contains("gnuplot"), "\(skipped)")
        } else {
            let svg = try String(contentsOfFile: chart, encoding: .utf8)
            #expect(svg.contains("<svg") && svg.contains("hit latency"), "\(svg.prefix(300))")
        }
    }
}
