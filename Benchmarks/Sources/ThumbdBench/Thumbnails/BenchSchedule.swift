/// One timed pass of one contender over its files.
struct BenchRound: Sendable {
    var seconds: Double
    /// Per-image milliseconds; in file order for sequential runs (so a subset's share can be summed).
    var perImageMs: [Double] = []
    /// thumbd's per-stage times (in-process one-core runs only), in file order.
    var stages: [BenchThumbd.ImageTiming] = []
    /// In-process runs: this process's VmHWM during the round (reset just before it).
    var peakRSSBytes: Int?
    /// CPU seconds the round used (all threads; a child's own for child runs), where measured.
    var cpuSeconds: Double?
}

/// Runs every contender's timed rounds interleaved: round 1 of each, then round 2 of each, and so
/// on. On a machine whose load changes while the benchmark runs, each tool then sees the same mix of
/// quiet and busy moments, so the ratios are fairer than with all of one tool's rounds in a row.
struct BenchSchedule {
    struct Contender {
        var key: String
        var round: () async throws -> BenchRound
    }

    var contenders: [Contender] = []

    mutating func add(_ key: String, _ round: @escaping () async throws -> BenchRound) {
        contenders.append(Contender(key: key, round: round))
    }

    /// The rounds of each contender by key; a contender that throws is dropped from later rounds
    /// and reported with its error.
    func run(rounds: Int, progress: (String) -> Void) async -> (rounds: [String: [BenchRound]], failures: [String: String]) {
        var results: [String: [BenchRound]] = [:]
        var failures: [String: String] = [:]
        for r in 1...max(1, rounds) {
            progress("timed round \(r) of \(rounds): " + contenders.filter { failures[$0.key] == nil }.map(\.key).joined(separator: ", "))
            for contender in contenders where failures[contender.key] == nil {
                do {
                    results[contender.key, default: []].append(try await contender.round())
                } catch {
                    failures[contender.key] = "\(error)"
                }
            }
        }
        return (results, failures)
    }
}

extension BenchResults.Throughput {
    /// The figure for a list of rounds: median round time; per-image percentiles pooled over rounds;
    /// the largest in-round peak RSS.
    init(images: Int, megapixels: Double, rounds: [BenchRound], concurrency: Int = 1) {
        self.init(images: images, megapixels: megapixels, roundSeconds: rounds.map(\.seconds),
                  perImageMs: rounds.flatMap(\.perImageMs), concurrency: concurrency)
        peakRSSBytes = rounds.compactMap(\.peakRSSBytes).max()
        cpuMsPerImage = images > 0 ? BenchStats.median(rounds.compactMap(\.cpuSeconds)).map { $0 * 1000 / Double(images) } : nil
    }

    /// The share of `subset` (indices into the files, which the rounds' per-image times follow) of
    /// each round, as if only those files had been run.
    static func share(of rounds: [BenchRound], subset: [Int], files: [BenchFile]) -> BenchResults.Throughput? {
        guard !subset.isEmpty, !rounds.isEmpty, rounds.allSatisfy({ $0.perImageMs.count == files.count }) else { return nil }
        let chosen = subset.map { files[$0] }
        let shares = rounds.map { round in
            BenchRound(seconds: subset.reduce(0) { $0 + round.perImageMs[$1] } / 1000, perImageMs: subset.map { round.perImageMs[$0] })
        }
        return BenchResults.Throughput(images: chosen.count, megapixels: BenchCorpus.megapixels(chosen), rounds: shares)
    }
}
