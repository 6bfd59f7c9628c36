import ChildProcess
import Foundation

/// The servers of `thumbd-bench misses` and the rounds they take turns in.
final class BenchMissesRun {
    struct Round {
        var set: String
        var index: Int
        var thumbd: BenchMissesLoad.Pass
        var thumbor: BenchMissesLoad.Pass
    }

    let shape: BenchShape
    let concurrency: Int
    let sets: [BenchMissesSet]
    /// Requests of a pass at least: a set smaller than this is asked for several times over, each
    /// time under new URLs, so a pass lasts long enough to time.
    let minimumRequests: Int
    private let www: String
    private let origin: BenchServer
    private let originName: String
    private let daemon: BenchServer
    private let thumbor: BenchServer
    private let thumborProcesses: Int
    private let thumborExecutable: String

    init(thumbd: String, thumbor thumborExecutable: String, thumborProcesses: Int, shape: BenchShape, concurrency: Int,
         minimumRequests: Int, scratch: BenchScratch, sets: [BenchMissesSet]) throws {
        self.minimumRequests = minimumRequests
        self.shape = shape
        self.concurrency = concurrency
        self.sets = sets
        self.thumborProcesses = thumborProcesses
        self.thumborExecutable = thumborExecutable
        www = try scratch.folder("www")
        try Data("ready\n".utf8).write(to: URL(fileURLWithPath: (www as NSString).appendingPathComponent("ready")))
        let logs = try scratch.folder("logs")
        if let nginx = BenchProc.which("nginx") {
            origin = try BenchNginx.start(executable: nginx, root: www, directory: try scratch.folder("origin"), workers: 1, accessLog: false)
            try origin.waitUntilReady(path: "/ready")
            originName = "nginx, one worker"
        } else {
            origin = try BenchOrigin.start(python: "python3", directory: www, logs: logs)
            originName = "python3 -m http.server (no nginx: \(BenchNginx.installHint))"
        }
        daemon = try BenchDaemon.start(executable: thumbd, name: "misses", cacheDirectory: try scratch.folder("cache"),
                                       accessLog: true, extra: [:], logs: logs)
        thumbor = try BenchThumbor.start(executable: thumborExecutable, processes: thumborProcesses,
                                         quality: BenchMissesCommand.quality, directory: try scratch.folder("thumbor"))
    }

    func stop() {
        _ = daemon.process.stop(SIGTERM, grace: 10)
        // thumbor's forked workers outlive their parent, which restarts any that dies: the parent
        // goes first, then the workers it had.
        let workers = BenchProc.children(of: thumbor.process.pid)
        _ = thumbor.process.stop(SIGKILL, grace: 5)
        for worker in workers { kill(worker, SIGKILL) }
        _ = origin.process.stop(SIGTERM, grace: 5)
    }

    func header(cores: Int, rounds: Int) -> String {
        var lines = ["misses: \(shape) centre crops, JPEG q\(BenchMissesCommand.quality), \(concurrency) clients at once, \(rounds) rounds, \(cores) cores"]
        lines += sets.map { set in
            let times = copies(of: set)
            return "  \(set.name): \(set.description)" + (times > 1 ? ", each asked \(times) times a pass under new URLs" : "")
        }
        lines.append("  origin: \(originName); thumbd serve: defaults, a fresh cache; thumbor \(thumborVersion()): \(thumborProcesses) processes, PIL engine, file storage")
        return lines.joined(separator: "\n")
    }

    /// An untimed pass of each server, then each set's rounds, the servers taking turns.
    func measure(rounds: Int) throws -> [Round] {
        let load = BenchMissesLoad(concurrency: concurrency, shape: shape)
        if let first = sets.first {
            let warm = try publish(Array(first.files.prefix(concurrency)), folder: "warm")
            for pass in [pass(load, thumbdServer: true, urls: warm), pass(load, thumbdServer: false, urls: warm)] where !pass.failures.isEmpty {
                throw ValidationErrorMessage("\(pass.server) failed in the warm-up:\n  " + pass.failures.prefix(5).joined(separator: "\n  "))
            }
        }
        var results: [Round] = []
        for set in sets {
            for index in 0..<rounds {
                let urls = try (1...copies(of: set)).flatMap { copy in try publish(set.files, folder: "\(set.name)-\(index + 1)-\(copy)") }
                let thumbdFirst = index % 2 == 0
                let first = pass(load, thumbdServer: thumbdFirst, urls: urls)
                let second = pass(load, thumbdServer: !thumbdFirst, urls: urls)
                let round = Round(set: set.name, index: index + 1, thumbd: thumbdFirst ? first : second, thumbor: thumbdFirst ? second : first)
                print(String(format: "  %@ round %d: thumbd %.1f/s, thumbor %.1f/s", set.name, index + 1,
                             round.thumbd.thumbnailsPerSecond, round.thumbor.thumbnailsPerSecond))
                results.append(round)
            }
        }
        return results
    }

    /// How many times a pass asks for each of `set`'s files to make `minimumRequests`.
    private func copies(of set: BenchMissesSet) -> Int {
        max(1, (minimumRequests + set.files.count - 1) / set.files.count)
    }

    private func pass(_ load: BenchMissesLoad, thumbdServer: Bool, urls: [String]) -> BenchMissesLoad.Pass {
        let originPIDs = { [origin] in origin.processTree }
        if thumbdServer {
            let paths = urls.map { "/v1/thumbnail?url=\(BenchHTTP.queryEscape($0))&size=\(shape)&gravity=center" }
            return load.run(server: "thumbd", port: daemon.port, processes: { [daemon] in [daemon.process.pid] },
                            origin: originPIDs, paths: paths)
        }
        return load.run(server: "thumbor", port: thumbor.port,
                        processes: { [thumbor] in thumbor.processTree },
                        origin: originPIDs, paths: urls.map { BenchThumbor.path($0, shape: shape) })
    }

    /// Links to `files` under www/FOLDER, so their URLs are new to both servers; returns the URLs.
    private func publish(_ files: [String], folder: String) throws -> [String] {
        let directory = (www as NSString).appendingPathComponent(folder)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        return try files.map { file in
            let name = (file as NSString).lastPathComponent
            try FileManager.default.createSymbolicLink(atPath: (directory as NSString).appendingPathComponent(name), withDestinationPath: file)
            let escaped = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._"))) ?? name
            return "http://127.0.0.1:\(origin.port)/\(folder)/\(escaped)"
        }
    }

    private func thumborVersion() -> String {
        let run = try? ChildProcess.run(thumborExecutable, ["--version"], timeoutSeconds: 20)
        return run.map { ($0.stdoutText + $0.stderrText).trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 } ?? "(version unknown)"
    }
}
