import ConsoleText
import Foundation
import TestSupport

/// One run of `thumbd-bench shared`: misses on node A, disk hits on A restarted, shared hits on B.
struct BenchSharedRun: Encodable {
    var run: Int
    var missMilliseconds: [Double]
    var diskHitMilliseconds: [Double]
    var sharedHitMilliseconds: [Double]
    /// Originals node B downloaded (bytes counted by its download metric; 0 is the promise).
    var originalsDownloadedByB: Double
    var sharedHitsOnB: Double

    enum CodingKeys: String, CodingKey {
        case run
        case missMilliseconds = "miss_ms"
        case diskHitMilliseconds = "disk_hit_ms"
        case sharedHitMilliseconds = "shared_hit_ms"
        case originalsDownloadedByB = "origin_bytes_downloaded_by_b"
        case sharedHitsOnB = "shared_hits_on_b"
    }

    static func measure(run: Int, names: [String], size: Int, executable: String, originPort: Int, store: S3TestServer,
                        scratch: BenchScratch, logs: String, say: (String) -> Void) throws -> BenchSharedRun {
        let environment = [
            "THUMBD_CACHE_SHARED": "s3://thumbd-bench/run-\(run)-\(UUID().uuidString.prefix(8))",
            "AWS_ACCESS_KEY_ID": S3TestServer.accessKey, "AWS_SECRET_ACCESS_KEY": S3TestServer.secretKey,
            "AWS_ENDPOINT_URL_S3": store.endpoint, "AWS_REGION": "us-east-1",
        ]
        let paths = names.enumerated().map { i, name in
            // A query per request keeps each URL its own entry when the corpus repeats.
            "/v1/thumbnail?url=" + BenchHTTP.queryEscape("http://127.0.0.1:\(originPort)/\(name)?n=\(i)") + "&size=\(size)"
        }
        let cacheA = try scratch.folder("run-\(run)-a"), cacheB = try scratch.folder("run-\(run)-b")

        say("run \(run): node A makes \(paths.count) thumbnails")
        var nodeA = try BenchDaemon.start(executable: executable, name: "run-\(run)-a", cacheDirectory: cacheA, accessLog: false,
                                          extra: environment, logs: logs)
        let misses = try timed(paths, port: nodeA.port, expecting: "miss")
        let deadline = BenchStats.now() + 120
        while (BenchMetrics.scrape(port: nodeA.port)?.value("thumbd_shared_writes_total") ?? 0) < Double(paths.count) {
            guard BenchStats.now() < deadline else { throw ValidationErrorMessage("node A wrote fewer than \(paths.count) thumbnails to the shared tier in 120 s") }
            usleep(50_000)
        }
        nodeA.process.stop()
        say("run \(run): node A again, its memory empty: disk hits")
        nodeA = try BenchDaemon.start(executable: executable, name: "run-\(run)-a2", cacheDirectory: cacheA, accessLog: false,
                                      extra: environment, logs: logs)
        let diskHits = try timed(paths, port: nodeA.port, expecting: "disk")
        nodeA.process.stop()

        say("run \(run): node B, empty: shared hits")
        let nodeB = try BenchDaemon.start(executable: executable, name: "run-\(run)-b", cacheDirectory: cacheB, accessLog: false,
                                          extra: environment, logs: logs)
        let sharedHits = try timed(paths, port: nodeB.port, expecting: "shared")
        let metrics = BenchMetrics.scrape(port: nodeB.port)
        nodeB.process.stop()
        return BenchSharedRun(run: run, missMilliseconds: misses, diskHitMilliseconds: diskHits, sharedHitMilliseconds: sharedHits,
                              originalsDownloadedByB: metrics?.value("thumbd_download_bytes_total") ?? 0,
                              sharedHitsOnB: metrics?.value("thumbd_shared_hits_total") ?? 0)
    }

    /// Each path once, one at a time; milliseconds from the request's send to its last byte.
    /// Every answer must be 200 from the tier named.
    static func timed(_ paths: [String], port: Int, expecting tier: String) throws -> [Double] {
        try paths.map { path in
            let start = BenchStats.now()
            let response = try BenchHTTP.get(port: port, path: path)
            let elapsed = (BenchStats.now() - start) * 1000
            guard response.status == 200, response.headers["x-cache"] == tier else {
                throw ValidationErrorMessage("\(path) answered \(response.status) X-Cache \(response.headers["x-cache"] ?? "-"), not 200 \(tier): "
                                             + response.text.prefix(300))
            }
            return elapsed
        }
    }
}

/// What `thumbd-bench shared` measured.
struct BenchSharedReport: Encodable {
    var photos: Int
    var size: Int
    var runs: [BenchSharedRun]

    func render() -> String {
        func ms(_ values: [Double], _ p: Double) -> String { BenchStats.percentile(values, p).map { TextTable.fixed($0, 2) } ?? "-" }
        var rows: [[String]] = []
        for run in runs {
            rows.append(["\(run.run)", ms(run.missMilliseconds, 50) + " / " + ms(run.missMilliseconds, 99),
                         ms(run.diskHitMilliseconds, 50) + " / " + ms(run.diskHitMilliseconds, 99),
                         ms(run.sharedHitMilliseconds, 50) + " / " + ms(run.sharedHitMilliseconds, 99),
                         TextTable.fixed(run.sharedHitsOnB, 0), TextTable.fixed(run.originalsDownloadedByB, 0)])
        }
        return "thumbd-bench shared: \(photos) thumbnails of \(size) px per run, one request at a time, SeaweedFS on loopback\n\n"
            + TextTable.render(["run", "miss p50 / p99 ms", "disk hit p50 / p99 ms", "shared hit p50 / p99 ms", "shared hits on B",
                                "origin bytes downloaded by B"], rows)
            + "\nthe promise: node B downloads no original the fleet made (0 bytes) "
            + (runs.allSatisfy { $0.originalsDownloadedByB == 0 && $0.sharedHitsOnB == Double(photos) } ? "met" : "MISSED")
    }
}
