import Foundation

/// The runs of one server under wrk; figures of the median run (by requests per second).
struct BenchSeries: Encodable {
    var name: String
    var runs: [BenchWrk.Result]
    var median: BenchWrk.Result
    var cpu: BenchCPUUsage?
    /// The daemon's answers during the median run, by the tier that had them (from /metrics).
    var answeredBy: [String: Int]?
    /// Cores wrk used during the median run.
    var wrkCores: Double?
    /// The server's own CPU time per answered request (all its processes): what it costs,
    /// whatever the load generator took.
    var serverMicrosecondsPerRequest: Double?
    /// wrk held a saturated machine's figure down (`BenchCPUUsage.isGeneratorBound`).
    var generatorBound: Bool

    init(name: String, runs: [BenchWrk.Result], median: BenchWrk.Result, cpu: BenchCPUUsage?, answeredBy: [String: Int]?, cores: Int) {
        (self.name, self.runs, self.median, self.cpu, self.answeredBy) = (name, runs, median, cpu, answeredBy)
        wrkCores = cpu?.cores(of: "wrk")
        let serverCores = cpu.map { $0.processes.filter { $0.name != "wrk" }.map(\.cores).reduce(0, +) }
        serverMicrosecondsPerRequest = serverCores.flatMap { median.requestsPerSecond > 0 ? $0 / median.requestsPerSecond * 1e6 : nil }
        generatorBound = cpu?.isGeneratorBound(cores: cores) ?? false
    }
}
