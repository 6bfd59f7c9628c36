/// Whether a quantity sampled over a run stays flat once warm: the samples at the 20–30 % mark of
/// the run against those of its last 10 %. The first fifth is left out because caches and pools
/// are still filling there; a leak shows as a late stretch above the early one. `serve`'s RSS phase
/// and `soak` both judge this way.
struct BenchFlatness: Encodable, Equatable {
    /// The statistic of each stretch (mean or median, as the caller asks).
    var early: Double
    var late: Double
    /// (late - early) / early, in percent: negative when the quantity fell.
    var changePercent: Double
    /// Samples in each stretch.
    var earlySamples: Int
    var lateSamples: Int

    enum Statistic { case mean, median }

    /// Indices of the samples in each stretch. A sample at `t` stands for the window that ends at
    /// `t`, so the early stretch is 0.2 T < t <= 0.3 T and the late one 0.9 T < t <= T: with a
    /// sample every T/N, each holds exactly a tenth of the samples. A run too short for a sample in
    /// a stretch falls back to the first sample after 0.2 T (early) and the last sample (late).
    static func stretches(times: [Double], total: Double) -> (early: [Int], late: [Int]) {
        guard !times.isEmpty else { return ([], []) }
        // Sample times are whole multiples of the interval; keep 0.2 x 1800 from landing a hair
        // above or below a sample taken at 360 s.
        let slack = 1e-9 * max(1, total)
        var early = times.indices.filter { times[$0] > 0.2 * total + slack && times[$0] <= 0.3 * total + slack }
        var late = times.indices.filter { times[$0] > 0.9 * total + slack }
        if early.isEmpty { early = [times.firstIndex { $0 > 0.2 * total + slack } ?? times.count - 1] }
        if late.isEmpty { late = [times.count - 1] }
        return (early, late)
    }

    /// The two stretches' statistic and the change between them; nil without samples or when the
    /// early value is 0 (no change in percent can be given).
    static func judge(values: [Double], times: [Double], total: Double, statistic: Statistic) -> BenchFlatness? {
        guard values.count == times.count, !values.isEmpty else { return nil }
        let (earlyIndices, lateIndices) = stretches(times: times, total: total)
        func summary(_ indices: [Int]) -> Double? {
            let picked = indices.map { values[$0] }
            switch statistic {
            case .mean: return picked.isEmpty ? nil : picked.reduce(0, +) / Double(picked.count)
            case .median: return BenchStats.median(picked)
            }
        }
        guard let early = summary(earlyIndices), let late = summary(lateIndices), early != 0 else { return nil }
        return BenchFlatness(early: early, late: late, changePercent: 100 * (late - early) / early,
                             earlySamples: earlyIndices.count, lateSamples: lateIndices.count)
    }

    /// "within N %": the late stretch no more than `limitPercent` above or below the early one.
    func isWithin(_ limitPercent: Double) -> Bool { abs(changePercent) <= limitPercent }
}
