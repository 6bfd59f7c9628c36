import ChildProcess
import Foundation
import TestSupport

/// `thumbd serve` as a child process: the built binary, started on an ephemeral port with its own
/// cache, its listening port read from its log, and waited for when it should exit. For the tests
/// that need a real process (signals, exit status, several daemons), not the in-process `TestDaemon`.
///
/// Spawned with `BackgroundProcess` (posix_spawn, closefrom), not Foundation's `Process`: on Linux its
/// `run()` lists /proc/self/fd copying each entry's whole 256-byte name, which read past the end of
/// the listing's buffer and crashed a test process holding 1,300 descriptors (CI, signal 11).
public enum ServeProcess {
    /// The built `thumbd`, beside the test binary.
    public static let executable = TestPaths.builtProduct("thumbd")

    /// `thumbd serve` on an ephemeral port with its cache in `directory/cache`, the loopback origin
    /// allowed, `extra` added to its environment, its stderr in `directory/daemon.log`.
    public static func start(in directory: URL, _ extra: [String: String] = [:]) throws -> (process: BackgroundProcess, log: URL) {
        let log = directory.appendingPathComponent("daemon.log")
        var environment = ProcessInfo.processInfo.environment
        environment["THUMBD_LISTEN"] = "127.0.0.1:0"
        environment["THUMBD_CACHE_DIR"] = directory.appendingPathComponent("cache").path
        environment["THUMBD_ALLOW_NETWORKS"] = "127.0.0.1/32"
        environment.merge(extra) { $1 }
        let process = try BackgroundProcess(name: "thumbd serve", program: executable, arguments: ["serve"], environment: environment,
                                            stdoutPath: "/dev/null", stderrPath: log.path)
        return (process, log)
    }

    /// `thumbd ARGUMENTS` to its end, on a thread of its own (waiting must not hold one of the few
    /// threads that run an in-process daemon's handlers): its exit status (128 + the signal when one
    /// ended it) and what it wrote to stderr.
    public static func runCLI(_ arguments: [String], environment: [String: String],
                              timeout: Double = 300) async throws -> (status: Int32, stderr: String) {
        let stderr = try TestDaemon.temporaryDirectory().appendingPathComponent("stderr.txt")
        let process = try BackgroundProcess(name: "thumbd \(arguments.first ?? "")", program: executable, arguments: arguments,
                                            environment: environment, stdoutPath: "/dev/null", stderrPath: stderr.path)
        return await withCheckedContinuation { continuation in
            Thread {
                let status = process.wait(timeout: timeout) ?? process.stop(SIGKILL, grace: 5) ?? -1
                continuation.resume(returning: (status, (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""))
            }.start()
        }
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
    public static func waitForExit(_ process: BackgroundProcess, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        guard process.isRunning else { return true }
        kill(process.pid, SIGKILL)
        while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        return false
    }
}
