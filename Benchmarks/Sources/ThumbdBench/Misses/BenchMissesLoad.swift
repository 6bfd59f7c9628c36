import Foundation
import ImageCodecs

/// One server's pass over a round's URLs: `concurrency` clients, each taking the next URL as soon as
/// its last answer is in, every answer checked (200, a JPEG of exactly the box).
struct BenchMissesLoad {
    struct Pass: Sendable {
        var server: String
        var wallSeconds: Double
        /// The server's CPU seconds (every process of it) and the origin's, over the pass.
        var serverCPUSeconds: Double
        var originCPUSeconds: Double
        /// This bench's own CPU seconds: the clients, reading and checking the answers.
        var clientCPUSeconds: Double
        /// Every core's busy time together (/proc/stat), to tell other processes' share from ours.
        var machineBusySeconds: Double?
        var latencies: [Double]
        var thumbnailBytes: Int
        var failures: [String]

        var count: Int { latencies.count }
        var thumbnailsPerSecond: Double { Double(count - failures.count) / wallSeconds }
        var cpuMillisecondsPerThumbnail: Double { 1000 * serverCPUSeconds / Double(max(1, count)) }
    }

    var concurrency: Int
    var shape: BenchShape

    func run(server: String, port: Int, processes: () -> [pid_t], origin: () -> [pid_t], paths: [String]) -> Pass {
        let next = BenchCounter()
        let answers = BenchIndexed<(seconds: Double, bytes: Int, failure: String?)>()
        let serverBefore = cpuSeconds(processes())
        let originBefore = cpuSeconds(origin())
        let clientBefore = BenchStats.ownCPUSeconds()
        let machineBefore = BenchStats.cpuSnapshot()?.machineBusy
        let started = BenchStats.now()
        BenchThreads.run(concurrency) { _ in
            while true {
                let index = next.take()
                guard index < paths.count else { return }
                let begun = BenchStats.now()
                let outcome = check(try? BenchHTTP.get(port: port, path: paths[index], timeout: 120), path: paths[index])
                answers.record(index, (BenchStats.now() - begun, outcome.bytes, outcome.failure))
            }
        }
        let wall = BenchStats.now() - started
        let machineAfter = BenchStats.cpuSnapshot()?.machineBusy
        let recorded = answers.all.sorted { $0.key < $1.key }.map(\.value)
        return Pass(server: server, wallSeconds: wall, serverCPUSeconds: cpuSeconds(processes()) - serverBefore,
                    originCPUSeconds: cpuSeconds(origin()) - originBefore, clientCPUSeconds: BenchStats.ownCPUSeconds() - clientBefore,
                    machineBusySeconds: machineBefore.flatMap { before in machineAfter.map { $0 - before } },
                    latencies: recorded.map(\.seconds),
                    thumbnailBytes: recorded.map(\.bytes).reduce(0, +), failures: recorded.compactMap(\.failure))
    }

    private func check(_ response: BenchHTTP.Response?, path: String) -> (bytes: Int, failure: String?) {
        guard let response else { return (0, "\(path): no answer") }
        guard response.status == 200 else {
            return (0, "\(path): status \(response.status): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        }
        guard let info = try? ImageCodecs.readInfo(response.body), info.format == .jpeg else {
            return (response.body.count, "\(path): the answer is not a JPEG")
        }
        guard info.width == shape.width, info.height == shape.height else {
            return (response.body.count, "\(path): \(info.width)x\(info.height), not \(shape)")
        }
        return (response.body.count, nil)
    }

    private func cpuSeconds(_ pids: [pid_t]) -> Double { pids.compactMap(BenchProc.cpuSeconds).reduce(0, +) }
}
