#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TestSupport

/// A node of the benchmark's fleet: `thumbd serve` on a port and cache directory that stay the same
/// when it is started again.
struct BenchFleetNode {
    let index: Int
    let port: Int
    let cacheDirectory: String
    /// The running process (the latest start).
    var server: BenchServer

    /// bench serve's daemon settings with the access log back at its default: a fleet node runs as
    /// operators run it. THUMBD_FLEET_ENTRY is the fleet's nginx, as docs/operations.md "Setting it up" sets it.
    static func environment(port: Int, cacheDirectory: String, fleetEntry: String, extra: [String: String]) -> [String: String] {
        BenchDaemon.environment(port: port, cacheDirectory: cacheDirectory, accessLog: true,
                                extra: extra.merging(["THUMBD_FLEET_ENTRY": fleetEntry]) { $1 })
    }

    /// Starts the node and waits for /readyz; also returns the seconds from its start until then.
    /// `extra`: settings beyond the defaults (the shared tier's); `label` names its log file.
    static func start(executable: String, index: Int, port: Int, cacheDirectory: String, fleetEntry: String,
                      extra: [String: String] = [:], label: String = "node",
                      logs: String, run: Int) throws -> (node: BenchFleetNode, secondsToReady: Double) {
        try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
        let started = BenchStats.now()
        let process = try BenchServeProcess(
            name: "thumbd serve (\(label) \(index))", program: executable, arguments: ["serve"],
            environment: environment(port: port, cacheDirectory: cacheDirectory, fleetEntry: fleetEntry, extra: extra),
            stdoutPath: (logs as NSString).appendingPathComponent("\(label)-\(index)-run-\(run).log"))
        let server = BenchServer(process: process, port: port)
        let seconds: Double
        do { seconds = try server.secondsUntilReady(since: started) } catch {
            process.stop(SIGKILL, grace: 2)
            throw error
        }
        return (BenchFleetNode(index: index, port: port, cacheDirectory: cacheDirectory, server: server), seconds)
    }
}

/// The benchmark's nginx instances: the fleet's front (the shipped config) and the static peer,
/// each with its access log on, as operators run nginx.
enum BenchFleetNginx {
    /// config/nginx/thumbd.conf as shipped, for these nodes, with or without the edge cache.
    static func startFront(executable: String, nodePorts: [Int], directory: String, edgeCache: Bool, workers: Int) throws -> BenchServer {
        let port = try BenchProc.freePort()
        var config = FleetNginxConfig(listenPort: port, nodePorts: nodePorts, directory: URL(fileURLWithPath: directory))
        config.edgeCache = edgeCache
        config.accessLog = true
        config.workers = workers
        let file = try config.write()
        return try spawn(name: edgeCache ? "nginx (fleet + edge cache)" : "nginx (fleet)", executable: executable,
                         arguments: config.arguments(configuration: file), directory: directory, port: port)
    }

    /// bench serve's static nginx with its access log turned on like the fronts' (`combined` to a
    /// file), and its open files cached as the edge cache's are.
    static func startStatic(executable: String, root: String, directory: String, workers: Int) throws -> BenchServer {
        let port = try BenchProc.freePort()
        try FileManager.default.createDirectory(atPath: (directory as NSString).appendingPathComponent("temp"),
                                                withIntermediateDirectories: true)
        let off = "access_log off;"
        let configuration = BenchNginx.configuration(directory: directory, root: root, port: port, workers: workers)
        guard configuration.contains(off) else {
            throw ValidationErrorMessage("bench serve's nginx configuration no longer says `\(off)`; update BenchFleetNginx.startStatic")
        }
        // The edge cache keeps its hot files open (thumbd-edge-cache.conf): the static peer gets the same.
        let logged = configuration.replacingOccurrences(
            of: off, with: "access_log \((directory as NSString).appendingPathComponent("access.log")) combined;\n"
                + "  open_file_cache max=10000 inactive=60s;\n  open_file_cache_valid 30s;")
        let file = (directory as NSString).appendingPathComponent("nginx.conf")
        try logged.write(toFile: file, atomically: true, encoding: .utf8)
        // The same command line as the fronts': prefix, error log and configuration in `directory`.
        let arguments = FleetNginxConfig(listenPort: port, nodePorts: [], directory: URL(fileURLWithPath: directory)).arguments(configuration: file)
        return try spawn(name: "nginx (static)", executable: executable, arguments: arguments, directory: directory, port: port)
    }

    private static func spawn(name: String, executable: String, arguments: [String], directory: String, port: Int) throws -> BenchServer {
        let process = try BenchServeProcess(name: name, program: executable, arguments: arguments,
                                            environment: ProcessInfo.processInfo.environment,
                                            stdoutPath: (directory as NSString).appendingPathComponent("stdout.log"))
        return BenchServer(process: process, port: port)
    }
}
