import Foundation
import TestSupport

/// `thumbd serve` as a child process: the built binary, started on an ephemeral port with its own
/// cache, its listening port read from its log, and waited for when it should exit. For the tests
/// that need a real process (signals, exit status, several daemons), not the in-process `TestDaemon`.
public enum ServeProcess {
    /// The built `thumbd`, beside the test binary.
    public static let executable = TestPaths.builtProduct("thumbd")

    /// `thumbd serve` on an ephemeral port with its cache in `directory/cache`, the loopback origin
    /// allowed, `extra` added to its environment, its stderr in `directory/daemon.log`.
    public static func start(in directory: URL, _ extra: [String: String] = [:]) throws -> (process: Process, log: URL) {
        let log = directory.appendingPathComponent("daemon.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve"]
        var environment = ProcessInfo.processInfo.environment
        environment["THUMBD_LISTEN"] = "127.0.0.1:0"
        environment["THUMBD_CACHE_DIR"] = directory.appendingPathComponent("cache").path
        environment["THUMBD_ALLOW_NETWORKS"] = "127.0.0.1/32"
        environment.merge(extra) { $1 }
        process.environment = environment
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, log)
    }

    /// The port the daemon logged (`address=http://127.0.0.1:PORT`) once it listens; throws with
    /// the log if it has not within 30 s.
    public static func listeningPort(log: URL) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"address=http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                let match = text[range]
                if let port = Int(match.split(separator: ":").last ?? "") { return port }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("the daemon did not report a listening address: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    }

    /// Whether `process` exited within `timeout`; one still running then is terminated, so no test
    /// leaves a daemon behind.
    public static func waitForExit(_ process: Process, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            process.terminate()
            return false
        }
        return true
    }
}
