import ChildProcess
import Foundation

/// The load generator: wrk with a Lua script written for each run, whose `done` hook prints the
/// summary and latency percentiles in a form this file parses.
enum BenchWrk {
    static let installHint = "apt-get install wrk (or make bench-deps)"

    /// What one wrk run measured.
    struct Result: Encodable {
        var threads: Int
        var connections: Int
        var seconds: Double
        var requests: Int
        var requestsPerSecond: Double
        var bytes: Int
        /// Socket errors (connect, read, write) and timeouts.
        var socketErrors: Int
        /// Answers that were not 2xx or 3xx.
        var statusErrors: Int
        var latencyMs: Latency

        struct Latency: Encodable {
            var p50: Double
            var p90: Double
            var p99: Double
            var p999: Double
            var max: Double
            var mean: Double
        }

        var megabytesPerSecond: Double { Double(bytes) / seconds / 1e6 }
    }

    /// Prints the figures the report needs, on two lines that start with BENCH_.
    private static let done = """
        done = function(summary, latency, requests)
          local e = summary.errors
          io.write(string.format("BENCH_SUMMARY requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d\\n",
            summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout))
          io.write(string.format("BENCH_LATENCY p50=%d p90=%d p99=%d p999=%d max=%d mean=%.1f\\n",
            latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
            latency.max, latency.mean))
        end
        """

    private static func luaString(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Gives each wrk thread its number (`tid`), so threads start at different places in a sequence.
    static let threadNumbering = """
        local threads = 0
        setup = function(thread)
          thread:set("tid", threads)
          threads = threads + 1
        end
        """

    /// Requests `paths` in turn, each connection from its own place in the list. The requests are
    /// formatted once in `init`, so the script costs wrk little per request.
    /// `delayMs` > 0: each connection waits that long before each request (wrk's `delay` hook, not
    /// counted in the latency), so the load is paced instead of as fast as the server answers.
    static func rotatingScript(paths: [String], delayMs: Int = 0) -> String {
        """
        local paths = { \(paths.map(luaString).joined(separator: ",\n  ")) }
        \(delayMs > 0 ? "delay = function() return \(delayMs) end" : "")
        local prepared = {}
        local n = 0
        \(threadNumbering)
        init = function(args)
          for i, p in ipairs(paths) do prepared[i] = wrk.format("GET", p) end
          n = (tid or 0) * 7
        end
        request = function()
          n = n + 1
          return prepared[(n % #prepared) + 1]
        end
        \(done)

        """
    }

    /// Every request for one path, as wrk sends it without a script: no Lua runs per request, so
    /// wrk spends the least of the two cores it shares with the server (the script is only there
    /// to print the figures at the end).
    static func fixedScript(path: String) -> String {
        """
        wrk.path = \(luaString(path))
        \(done)

        """
    }

    /// Sizes the miss storm asks for: never the hot set's size, each (photo, size, quality) once.
    static let stormSizes = 201...600

    /// Every request a thumbnail no one asked for before: photo i % P, then a size from
    /// `stormSizes`, then a quality from 82 down, so a run of a million requests never repeats.
    /// `prefixes` end in `&`; args: the first sequence number (distinct per run).
    static func stormScript(prefixes: [String]) -> String {
        """
        local prefixes = { \(prefixes.map(luaString).joined(separator: ",\n  ")) }
        local span = \(stormSizes.count)
        local n = 0
        local stride = 1
        \(threadNumbering)
        init = function(args)
          n = (tonumber(args[1]) or 0) + (tid or 0)
          stride = tonumber(args[2]) or 1
        end
        request = function()
          local i = n
          n = n + stride
          local p = #prefixes
          local k = math.floor(i / p)
          local size = \(stormSizes.lowerBound) + (k % span)
          local q = 82 - (math.floor(k / span) % 80)
          return wrk.format("GET", prefixes[(i % p) + 1] .. "size=" .. size .. "&q=" .. q)
        end
        \(done)

        """
    }

    /// Starts wrk; `finish` reads its figures once it has ended.
    static func start(executable: String, name: String, port: Int, script: String, scriptArguments: [String] = [],
                      threads: Int, connections: Int, seconds: Int, timeoutSeconds: Int, directory: String) throws -> BenchServeProcess {
        let scriptPath = (directory as NSString).appendingPathComponent("\(name).lua")
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let arguments = ["-t\(threads)", "-c\(max(connections, threads))", "-d\(seconds)s", "--timeout", "\(timeoutSeconds)s",
                         "-s", scriptPath, "http://127.0.0.1:\(port)/"] + (scriptArguments.isEmpty ? [] : ["--"] + scriptArguments)
        func spawn() throws -> BenchServeProcess {
            try BenchServeProcess(name: "wrk (\(name))", program: executable, arguments: arguments,
                                  environment: ProcessInfo.processInfo.environment,
                                  stdoutPath: (directory as NSString).appendingPathComponent("\(name).out"),
                                  stderrPath: (directory as NSString).appendingPathComponent("\(name).err"))
        }
        // wrk tries one connection before it starts and gives up at once if that fails. Seen once
        // (a refused connect to a daemon that was up and answering): try a second time.
        let first = try spawn()
        guard first.wait(timeout: 0.3) != nil, first.stderrTail().contains("unable to connect") else { return first }
        FileHandle.standardError.write(Data("bench: wrk (\(name)): \(first.stderrTail(lines: 1)); trying again in 1 s\n".utf8))
        sleep(1)
        return try spawn()
    }

    /// Waits for wrk (up to `seconds` + a margin) and parses what its script printed.
    static func finish(_ process: BenchServeProcess, threads: Int, connections: Int, waitSeconds: Double) throws -> Result {
        if process.wait(timeout: waitSeconds + 30) == nil {
            process.stop(SIGINT, grace: 10)
        }
        let text = process.stdoutText
        func fields(_ prefix: String) -> [String: Double]? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix + " ") }) else { return nil }
            var values: [String: Double] = [:]
            for token in line.split(separator: " ").dropFirst() {
                let pair = token.split(separator: "=", maxSplits: 1)
                if pair.count == 2, let value = Double(pair[1]) { values[String(pair[0])] = value }
            }
            return values
        }
        guard let summary = fields("BENCH_SUMMARY"), let latency = fields("BENCH_LATENCY"),
              let requests = summary["requests"], let micros = summary["duration_us"], micros > 0 else {
            throw ValidationErrorMessage("\(process.name) printed no figures (exit status \(process.exitStatus.map(String.init) ?? "?")): "
                                         + process.stderrTail() + " " + text.suffix(500))
        }
        func ms(_ key: String) -> Double { (latency[key] ?? 0) / 1000 }
        let seconds = micros / 1e6
        return Result(threads: threads, connections: max(connections, threads), seconds: seconds, requests: Int(requests),
                      requestsPerSecond: requests / seconds, bytes: Int(summary["bytes"] ?? 0),
                      socketErrors: Int((summary["connect"] ?? 0) + (summary["read"] ?? 0) + (summary["write"] ?? 0) + (summary["timeout"] ?? 0)),
                      statusErrors: Int(summary["status"] ?? 0),
                      latencyMs: .init(p50: ms("p50"), p90: ms("p90"), p99: ms("p99"), p999: ms("p999"), max: ms("max"), mean: ms("mean")))
    }

    static func version(executable: String) -> String? {
        // `wrk -v` prints "wrk 4.1.0 [epoll] Copyright ..." and exits 1.
        guard let run = try? ChildProcess.run(executable, ["-v"], timeoutSeconds: 10) else { return nil }
        let line = (run.stdoutText + run.stderrText).split(separator: "\n").first.map(String.init) ?? ""
        let words = line.split(separator: " ")
        return words.count >= 2 && words[0] == "wrk" ? words[1...].prefix(2).joined(separator: " ") : nil
    }
}
