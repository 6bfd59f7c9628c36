import ConsoleText

/// The soak's targets, judged from the samples exactly as issue 17 puts them: RSS and open
/// descriptors flat after warm-up (the mean of the last 10 % of samples within 10 % of the mean at
/// the 20–30 % mark), no error but those the load asks for, and the p99 of hits under 5 ms in
/// every window.
struct BenchSoakTargets: Encodable {
    static let flatWithinPercent = 10.0
    static let hitP99Ms = 5.0

    typealias Target = BenchTarget

    var rss: BenchFlatness?
    var openFiles: BenchFlatness?
    /// The worst window's p99, and the windows over the target or without any hit answered.
    var worstHitP99Ms: Double?
    var windowsOverHitTarget: Int
    var windowsWithoutHits: Int
    var unexpectedErrors: Int
    var list: [Target]

    var allMet: Bool { list.allSatisfy { $0.met == true } }

    init(samples: [BenchSoakSample], totalSeconds: Double, unexpectedErrors: Int) {
        let times = samples.map(\.seconds)
        func flatness(_ value: (BenchSoakSample) -> Int?) -> BenchFlatness? {
            let values = samples.map { value($0).map(Double.init) }
            // A sample the daemon could not be read for (it had ended) leaves the series unjudged.
            guard values.allSatisfy({ $0 != nil }) else { return nil }
            return BenchFlatness.judge(values: values.map { $0! }, times: times, total: totalSeconds, statistic: .mean)
        }
        rss = flatness(\.rssBytes)
        openFiles = flatness(\.openFiles)
        let p99s = samples.compactMap(\.hitP99Ms)
        let worst = p99s.max()
        let over = p99s.filter { $0 >= Self.hitP99Ms }.count
        let silent = samples.filter { $0.hitP99Ms == nil }.count
        (worstHitP99Ms, windowsOverHitTarget, windowsWithoutHits) = (worst, over, silent)
        self.unexpectedErrors = unexpectedErrors

        func flat(_ name: String, _ result: BenchFlatness?, _ unit: (Double) -> String) -> Target {
            Target(name: "\(name) flat after warm-up", value: result?.changePercent, measured: result.map {
                       "\(TextTable.fixed($0.changePercent, 1))% (mean \(unit($0.early)) at 20–30% -> \(unit($0.late)) in the last 10%)"
                   } ?? "- (not sampled)",
                   target: "within \(TextTable.fixed(Self.flatWithinPercent, 0))%", met: result?.isWithin(Self.flatWithinPercent) ?? false)
        }
        list = [
            flat("RSS", rss) { TextTable.fixed($0 / 1_048_576, 1) + " MiB" },
            flat("open file descriptors", openFiles) { TextTable.fixed($0, 1) },
            Target(name: "errors the load did not ask for", value: Double(unexpectedErrors), measured: String(unexpectedErrors), target: "0", met: unexpectedErrors == 0),
            Target(name: "hit p99 in every \(samples.count > 1 ? "window" : "sample")", value: worst,
                   measured: worst.map { "worst \(TextTable.fixed($0, 2)) ms; \(over) of \(samples.count) windows over" }
                       .map { silent > 0 ? $0 + ", \(silent) without a hit" : $0 } ?? "- (no hit answered)",
                   target: "< \(TextTable.fixed(Self.hitP99Ms, 0)) ms",
                   met: !samples.isEmpty && over == 0 && silent == 0),
        ]
    }
}
