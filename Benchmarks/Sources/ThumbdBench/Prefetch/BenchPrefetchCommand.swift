import ArgumentParser
import AsyncHTTPClient
import ConsoleText
import Foundation
import NIOCore
import ThumbPipeline

/// `thumbd-bench prefetch`: how fast a page of thumbnails is prefetched against the bound the
/// network and the CPU set, and how quickly a cancelled job stops reaching the origin.
struct BenchPrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Measure prefetch jobs: 500 thumbnails behind 50 ms of origin latency, and DELETE to the last origin request.",
        discussion: HelpText.reflowed("""
            Starts on 127.0.0.1 an origin over --corpus (a small Python server adding --latency-ms to every
            request and logging when each arrives) and `thumbd serve` on a fresh cache. Each URL is a photo
            with its own query (?n=…), so every one is downloaded and made.

            1. thumbd's own rate: a job of --rate-urls URLs against the same origin without latency gives
               thumbnails per second on this machine.
            2. The job: --urls URLs with the latency. Its bound is max(urls x latency / download concurrency
               (6: the per-host limit, one origin), urls / rate); target: at most 1.25x the bound.
            3. Cancellation: a job of --urls URLs whose origin answers after 2 s is cancelled after 1 s; the
               time from the DELETE to the last request the origin saw; target: under 200 ms.
            """)
    )

    @Option(help: "Folder of photos the origin serves.") var corpus = "../shared/corpora/photos"
    @Option(name: .customLong("urls"), help: "URLs in the timed job.") var urlCount = 500
    @Option(name: .customLong("rate-urls"), help: "URLs in the rate run.") var rateURLs = 150
    @Option(name: .customLong("latency-ms"), help: "Origin latency per request.") var latencyMs = 50
    @Option(help: "Thumbnail size.") var size = 200
    @Flag(help: "Keep the scratch folder.") var keep = false

    func run() async throws {
        let photos = ((try? FileManager.default.contentsOfDirectory(atPath: corpus)) ?? []).filter { $0.lowercased().hasSuffix(".jpg") }.sorted()
        guard !photos.isEmpty else { throw ValidationErrorMessage("no JPEG photos in \(corpus) (give --corpus DIR)") }
        guard let python = BenchProc.which("python3") else { throw ValidationErrorMessage("python3 is needed for the origin") }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-bench-prefetch-\(getpid())").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { if !keep { try? FileManager.default.removeItem(atPath: scratch) } }
        let script = try BenchScript.prefetchOrigin.write(into: scratch)
        let thumbd = try ThumbdExecutable.required()

        func origin(_ name: String, latency: Int) throws -> (BenchServer, String) {
            let port = try BenchProc.freePort()
            let log = (scratch as NSString).appendingPathComponent("\(name)-requests.log")
            let process = try BenchServeProcess(name: "origin \(name)", program: python,
                                                arguments: [script, corpus, String(port), String(latency), log],
                                                environment: ProcessInfo.processInfo.environment,
                                                stdoutPath: (scratch as NSString).appendingPathComponent("\(name).log"))
            let server = BenchServer(process: process, port: port)
            try server.waitUntilReady(path: "/" + photos[0])
            return (server, log)
        }
        let (fast, _) = try origin("fast", latency: 0)
        let (slow, slowLog) = try origin("slow", latency: latencyMs)
        defer { _ = fast.process.stop(); _ = slow.process.stop() }
        let daemon = try BenchDaemon.start(executable: thumbd, name: "prefetch",
                                           cacheDirectory: (scratch as NSString).appendingPathComponent("cache"), accessLog: true,
                                           extra: ["THUMBD_PREFETCH_MAX_URLS_PER_JOB": "100000"], logs: scratch)
        defer { _ = daemon.process.stop() }
        let base = "http://127.0.0.1:\(daemon.port)"
        func urls(_ port: Int, _ prefix: String, _ count: Int) -> [String] {
            (0..<count).map { "http://127.0.0.1:\(port)/\(prefix)\(photos[$0 % photos.count])?n=\($0)" }
        }

        log("rate: \(rateURLs) thumbnails from the origin without latency")
        let rateRun = try await runJob(base, urls(fast.port, "", rateURLs))
        let rate = Double(rateRun.done) / rateRun.elapsedSeconds
        log("job: \(urlCount) thumbnails behind \(latencyMs) ms of latency")
        let job = try await runJob(base, urls(slow.port, "", urlCount))
        // One origin host: the per-host limit (6), not the total (16), is the download concurrency.
        let concurrency = 6.0
        let networkBound = Double(urlCount) * Double(latencyMs) / 1000 / concurrency
        let cpuBound = Double(urlCount) / rate
        let bound = max(networkBound, cpuBound)

        log("cancel: \(urlCount) URLs answered after 2 s, DELETE after 1 s")
        let cancelJob = try await submit(base, urls(slow.port, "slow/", urlCount))
        try await Task.sleep(for: .seconds(1))
        var delete = HTTPClientRequest(url: "\(base)/v1/prefetch/\(cancelJob)")
        delete.method = .DELETE
        let deletedAt = Date().timeIntervalSince1970
        _ = try await HTTPClient.shared.execute(delete, timeout: .seconds(30))
        try await Task.sleep(for: .seconds(2))
        let lines = ((try? String(contentsOfFile: slowLog, encoding: .utf8)) ?? "").split(separator: "\n")
        let slowTimes = lines.filter { $0.contains(" /slow/") }.compactMap { Double($0.split(separator: " ")[0]) }
        let lastRequest = slowTimes.max() ?? deletedAt
        let stopMs = (lastRequest - deletedAt) * 1000

        print("""
            thumbd-bench prefetch: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(photos.count) photos from \(corpus), size \(size)
            thumbd's rate on this machine: \(String(format: "%.1f", rate)) thumbnails/s (\(rateRun.done) made in \(String(format: "%.2f", rateRun.elapsedSeconds)) s, no latency)
            job of \(urlCount) URLs, \(latencyMs) ms latency: \(String(format: "%.2f", job.elapsedSeconds)) s (\(job.done) made, \(job.failed) failed)
              bound max(\(urlCount) x \(latencyMs) ms / 6 per host = \(String(format: "%.2f", networkBound)) s, \(urlCount) / \(String(format: "%.1f", rate))/s = \(String(format: "%.2f", cpuBound)) s) = \(String(format: "%.2f", bound)) s
              ratio \(String(format: "%.2f", job.elapsedSeconds / bound))x the bound (target <= 1.25x) \(job.elapsedSeconds / bound <= 1.25 ? "met" : "MISSED")
            cancel: \(slowTimes.count) origin requests in all; \(stopMs <= 0 ? "none after the DELETE" : "the last \(String(format: "%.0f", stopMs)) ms after the DELETE") (target < 200 ms) \(stopMs < 200 ? "met" : "MISSED")
            """)
    }

    private func log(_ text: String) {
        FileHandle.standardError.write(Data("bench: \(text)\n".utf8))
    }

    private func submit(_ base: String, _ urls: [String]) async throws -> String {
        var request = HTTPClientRequest(url: "\(base)/v1/prefetch")
        request.method = .POST
        request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: ["urls": urls, "size": size])))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        guard response.status.code == 202,
              let object = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any], let id = object["id"] as? String else {
            throw ValidationErrorMessage("the daemon refused the job: \(String(buffer: body))")
        }
        return id
    }

    private func runJob(_ base: String, _ urls: [String]) async throws -> PrefetchStatus {
        let id = try await submit(base, urls)
        while true {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "\(base)/v1/prefetch/\(id)"), timeout: .seconds(30))
            let status = try BenchPrefetchAPI.decode(Data(buffer: try await response.body.collect(upTo: 16 << 20)))
            if status.state != .running { return status }
            try await Task.sleep(for: .milliseconds(25))
        }
    }
}
