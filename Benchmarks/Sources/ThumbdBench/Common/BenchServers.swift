#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ChildProcess
import Foundation
import TestSupport

/// A server the benchmark started and talks to on 127.0.0.1.
struct BenchServer {
    var process: BenchServeProcess
    var port: Int

    /// The server's process and the ones it forked (nginx's workers, thumbor's), for CPU accounting.
    var processTree: [pid_t] { [process.pid] + BenchProc.children(of: process.pid) }

    /// Waits until `path` answers 200, or fails with the server's last words if it ends first.
    func waitUntilReady(path: String, timeout: Double = 60) throws {
        let deadline = BenchStats.now() + timeout
        while true {
            if let response = try? BenchHTTP.get(port: port, path: path, timeout: 5), response.status == 200 { return }
            guard process.isRunning else {
                throw ValidationErrorMessage("\(process.name) ended (exit status \(process.exitStatus ?? -1)) before it answered:\n"
                                             + process.stderrTail())
            }
            guard BenchStats.now() < deadline else {
                throw ValidationErrorMessage("\(process.name) did not answer \(path) on port \(port) within \(Int(timeout)) s:\n"
                                             + process.stderrTail())
            }
            usleep(50_000)
        }
    }

    /// Seconds from `started` until the daemon's repair of a cache left by a crash has been through
    /// every folder (`thumbd_cache_repair_progress_ratio` 1 in /metrics; the daemon serves meanwhile).
    func secondsUntilRepaired(since started: Double, timeout: Double = 600) throws -> Double {
        try secondsUntilDone("thumbd_cache_repair_progress_ratio", what: "repairing its cache", since: started, timeout: timeout)
    }

    /// The same for the trim of a cache found over its limits (`thumbd_cache_trim_progress_ratio`).
    func secondsUntilTrimmed(since started: Double, timeout: Double = 600) throws -> Double {
        try secondsUntilDone("thumbd_cache_trim_progress_ratio", what: "trimming its cache", since: started, timeout: timeout)
    }

    private func secondsUntilDone(_ metric: String, what: String, since started: Double, timeout: Double) throws -> Double {
        while process.isRunning && BenchStats.now() - started < timeout {
            if let response = try? BenchHTTP.get(port: port, path: "/metrics", timeout: 5), response.status == 200,
               let line = response.text.split(separator: "\n").first(where: { $0.hasPrefix(metric + " ") }),
               Double(line.split(separator: " ").last ?? "") == 1 {
                return BenchStats.now() - started
            }
            usleep(20_000)
        }
        throw ValidationErrorMessage("\(process.name) did not finish \(what) within \(Int(timeout)) s:\n" + process.stderrTail())
    }

    /// Seconds from `started` until /readyz answers 200, polled every 5 ms (the figure's resolution).
    func secondsUntilReady(since started: Double, timeout: Double = 60) throws -> Double {
        while process.isRunning && BenchStats.now() - started < timeout {
            if (try? BenchHTTP.get(port: port, path: "/readyz", timeout: 2))?.status == 200 { return BenchStats.now() - started }
            usleep(5_000)
        }
        // Not ready: one last try, which fails with the server's last words.
        try waitUntilReady(path: "/readyz", timeout: 0)
        return BenchStats.now() - started
    }
}

/// The photos' origin: `python3 -m http.server` on 127.0.0.1 over the corpus folder.
enum BenchOrigin {
    static func start(python: String, directory: String, logs: String) throws -> BenchServer {
        let port = try BenchProc.freePort()
        let process = try BenchServeProcess(
            name: "origin (python3 -m http.server)", program: python,
            arguments: ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", directory],
            environment: ProcessInfo.processInfo.environment, stdoutPath: (logs as NSString).appendingPathComponent("origin.log"))
        let server = BenchServer(process: process, port: port)
        try server.waitUntilReady(path: "/")
        return server
    }
}

/// `thumbd serve` as a child, configured only through THUMBD_* variables.
enum BenchDaemon {
    /// The settings every daemon of the benchmark gets: loopback origin allowed; the access log at
    /// its default (on, to the daemon's log file) unless `accessLog` is false.
    static func environment(port: Int, cacheDirectory: String, accessLog: Bool, extra: [String: String]) -> [String: String] {
        // The caller's own THUMBD_* settings (a config file, limits) must not change what is measured.
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("THUMBD_") }
        environment["THUMBD_LISTEN"] = "127.0.0.1:\(port)"
        environment["THUMBD_CACHE_DIR"] = cacheDirectory
        environment["THUMBD_ALLOW_NETWORKS"] = "127.0.0.0/8"
        if !accessLog { environment["THUMBD_SERVER_ACCESS_LOG"] = "false" }
        environment.merge(extra) { $1 }
        return environment
    }

    static func start(executable: String, name: String, cacheDirectory: String, accessLog: Bool, extra: [String: String],
                      logs: String) throws -> BenchServer {
        let server = try launch(executable: executable, name: name, port: try BenchProc.freePort(), cacheDirectory: cacheDirectory,
                                accessLog: accessLog, extra: extra, logs: logs)
        try server.waitUntilReady(path: "/healthz")
        return server
    }

    /// Spawns the daemon and returns at once, without waiting for it to answer (for a caller that
    /// times its start); its output goes to `logs/thumbd-NAME.log`.
    static func launch(executable: String, name: String, port: Int, cacheDirectory: String, accessLog: Bool,
                       extra: [String: String], logs: String) throws -> BenchServer {
        try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
        let process = try BenchServeProcess(
            name: "thumbd serve (\(name))", program: executable, arguments: ["serve"],
            environment: environment(port: port, cacheDirectory: cacheDirectory, accessLog: accessLog, extra: extra),
            stdoutPath: (logs as NSString).appendingPathComponent("thumbd-\(name).log"))
        return BenchServer(process: process, port: port)
    }
}

/// nginx serving the thumbnails as static files, with a configuration written for the run.
enum BenchNginx {
    static let installHint = "apt-get install nginx (or nginx-light; make bench-deps)"

    static func version(executable: String) -> String? {
        guard let run = try? ChildProcess.run(executable, ["-v"], timeoutSeconds: 10) else { return nil }
        let text = (run.stderrText + run.stdoutText).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.components(separatedBy: "nginx/").last.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The whole configuration: one worker per core, sendfile, keep-alive, the access log (nginx's
    /// `combined` to a file in `directory`) or none, and every path nginx writes (pid, error log,
    /// temp folders) inside `directory`, so it runs unprivileged.
    static func configuration(directory: String, root: String, port: Int, workers: Int, accessLog: Bool = false) -> String {
        let log = accessLog ? "access_log \((directory as NSString).appendingPathComponent("access.log")) combined;" : "access_log off;"
        return FleetNginxConfig.mainConfiguration(directory: directory, workers: workers, http: """
            \(log)
              types { image/jpeg jpg; image/png png; image/webp webp; }
              default_type application/octet-stream;
              server {
                listen 127.0.0.1:\(port);
                root \(root);
                location / { }
              }
            """)
    }

    static func start(executable: String, root: String, directory: String, workers: Int, accessLog: Bool) throws -> BenchServer {
        let port = try BenchProc.freePort()
        try FileManager.default.createDirectory(atPath: (directory as NSString).appendingPathComponent("temp"),
                                                withIntermediateDirectories: true)
        let file = (directory as NSString).appendingPathComponent("nginx.conf")
        try configuration(directory: directory, root: root, port: port, workers: workers, accessLog: accessLog)
            .write(toFile: file, atomically: true, encoding: .utf8)
        // -e: the error log from the first moment (before the configuration is read), not /var/log/nginx.
        let process = try BenchServeProcess(
            name: "nginx", program: executable,
            arguments: ["-p", directory, "-e", (directory as NSString).appendingPathComponent("error.log"),
                        "-c", file, "-g", "daemon off;"],
            environment: ProcessInfo.processInfo.environment,
            stdoutPath: (directory as NSString).appendingPathComponent("stdout.log"))
        return BenchServer(process: process, port: port)
    }
}
