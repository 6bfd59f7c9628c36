import ArgumentParser
import ConsoleText
import Foundation
import Synchronization
import ThumbCache

/// `thumbd-bench ui`: the cache inspector's JSON calls against a daemon whose cache holds
/// 100,000 entries. Target: each call of the page's first paint answers in under 100 ms.
struct BenchUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "Measure the cache inspector's JSON calls with 100,000 entries in the cache (target < 100 ms each).",
        discussion: HelpText.reflowed("""
            Fills a scratch cache with --entries entries (small files; 60% on one host, the rest on 200
            others; 5% originals; sizes, ages, hits and access times spread out), starts `thumbd serve` on
            it, and times every call the page makes: first paint (overview, hosts, the default page),
            then sorting by size, age and hits, the next and the last page, a page deep in the listing
            reached by cursor, the host filter (the big host and a small one), URL text (matching many
            and matching few), and originals only. Each call is made --repeat times after one warm-up;
            the first call after the daemon starts is reported too (a cold index).
            """)
    )

    @Option(help: "Entries to fill the cache with.") var entries = 100_000
    @Option(help: "Timed calls per request (after one warm-up).") var `repeat` = 25
    @Option(help: "Scratch directory (kept afterwards when given; an existing cache there is reused).") var dir: String?
    @Flag(help: "Print JSON for tools.") var json = false

    func validate() throws {
        guard entries >= 1000 else { throw ValidationError("--entries must be at least 1000.") }
        guard (1...1000).contains(`repeat`) else { throw ValidationError("--repeat must be 1…1000.") }
    }

    struct Call: Encodable {
        var name: String
        var path: String
        var firstPaint: Bool
        var medianMs: Double
        var p95Ms: Double
        var maxMs: Double
        var bytes: Int
    }

    struct Report: Encodable {
        var entries: Int
        var populateSeconds: Double?
        var coldOverviewMs: Double
        var coldEntriesMs: Double
        var calls: [Call]
        var firstPaintWorstMs: Double
        var targetMet: Bool
    }

    func run() async throws {
        let scratch = dir ?? FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-bench-ui-\(getpid())").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { if dir == nil { try? FileManager.default.removeItem(atPath: scratch) } }
        let cacheDirectory = (scratch as NSString).appendingPathComponent("cache")

        var populateSeconds: Double?
        let existing = (try? DiskCache.open(at: URL(fileURLWithPath: cacheDirectory), mode: .readOnly, warn: { _ in }))
        let present = (try? existing?.stats().entries) ?? 0
        existing?.close()
        if present < entries {
            log("filling \(cacheDirectory) with \(entries) entries")
            populateSeconds = try Self.populate(URL(fileURLWithPath: cacheDirectory), count: entries, progress: log)
        } else {
            log("reusing \(present) entries in \(cacheDirectory)")
        }

        let daemon = try BenchDaemon.start(executable: try ThumbdExecutable.required(), name: "ui", cacheDirectory: cacheDirectory,
                                           accessLog: true, extra: ["THUMBD_ADMIN_TOKEN": "bench"], logs: scratch)
        defer { _ = daemon.process.stop() }
        let port = daemon.port

        let coldOverview = try Self.time(port, "/ui/api/overview").ms
        let coldEntries = try Self.time(port, "/ui/api/entries?sort=lastAccess&limit=60").ms

        // Cursors and names for the deeper calls, found the way the page finds them.
        let last = try Self.object(port, "/ui/api/entries?sort=size&at=last&limit=60")
        let recent = try Self.object(port, "/ui/api/entries?sort=lastAccess&limit=60")
        let hosts = try Self.array(port, "/ui/api/hosts")
        let bigHost = hosts.first?["host"] as? String ?? "shop.example"
        let smallHost = hosts.last?["host"] as? String ?? bigHost
        // A cursor at the median thumbnail size lands in the middle of the listing, as paging there would.
        let middle = CacheEntryCursor(value: 5250, row: 0).description

        let calls: [(String, String, Bool)] = [
            ("overview (header)", "/ui/api/overview", true),
            ("hosts (filter)", "/ui/api/hosts", true),
            ("first page, last access", "/ui/api/entries?sort=lastAccess&limit=60", true),
            ("first page, size", "/ui/api/entries?sort=size&limit=60", false),
            ("first page, age", "/ui/api/entries?sort=age&limit=60", false),
            ("first page, hits", "/ui/api/entries?sort=hits&limit=60", false),
            ("first page, size reversed", "/ui/api/entries?sort=size&reverse=1&limit=60", false),
            ("next page", "/ui/api/entries?sort=size&limit=60&after=\(Self.escape(last["previous"] as? String ?? ""))", false),
            ("last page", "/ui/api/entries?sort=size&at=last&limit=60", false),
            ("next page, last access", "/ui/api/entries?sort=lastAccess&limit=60&after=\(Self.escape(recent["next"] as? String ?? ""))", false),
            ("last page, last access", "/ui/api/entries?sort=lastAccess&at=last&limit=60", false),
            ("page in the middle (cursor)", "/ui/api/entries?sort=size&limit=60&after=\(Self.escape(middle))", false),
            ("host \(bigHost) (most entries)", "/ui/api/entries?sort=hits&limit=60&host=\(Self.escape(bigHost))", false),
            ("host \(smallHost) (few entries)", "/ui/api/entries?sort=hits&limit=60&host=\(Self.escape(smallHost))", false),
            ("URL text matching many", "/ui/api/entries?sort=size&limit=60&q=products", false),
            ("URL text matching few", "/ui/api/entries?sort=size&limit=60&q=%2F4242", false),
            ("URL text matching none, last page", "/ui/api/entries?sort=age&at=last&limit=60&q=no-such-thing", false),
            ("originals only", "/ui/api/entries?sort=size&limit=60&kind=original", false),
        ]
        var results: [Call] = []
        for (name, path, firstPaint) in calls {
            _ = try Self.time(port, path)
            var times: [Double] = []
            var bytes = 0
            for _ in 0..<`repeat` {
                let (ms, size) = try Self.time(port, path)
                times.append(ms)
                bytes = size
            }
            results.append(Call(name: name, path: path, firstPaint: firstPaint, medianMs: BenchStats.median(times) ?? 0,
                                p95Ms: BenchStats.percentile(times, 95) ?? 0, maxMs: times.max() ?? 0, bytes: bytes))
        }
        let worst = results.filter(\.firstPaint).map(\.p95Ms).max() ?? 0
        let report = Report(entries: entries, populateSeconds: populateSeconds, coldOverviewMs: coldOverview, coldEntriesMs: coldEntries,
                            calls: results, firstPaintWorstMs: worst, targetMet: results.allSatisfy { $0.p95Ms < 100 })
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        print("thumbd-bench ui: \(entries) entries, \(`repeat`) timed calls each (HTTP on 127.0.0.1, a new connection per call)")
        if let populateSeconds { print(String(format: "filled the cache in %.1f s", populateSeconds)) }
        print(String(format: "cold (first calls after the daemon started): overview %.1f ms, first page %.1f ms", coldOverview, coldEntries))
        let rows = results.map { call in
            [call.name, String(format: "%.1f ms", call.medianMs), String(format: "%.1f ms", call.p95Ms),
             String(format: "%.1f ms", call.maxMs), TextTable.bytes(call.bytes), call.firstPaint ? "first paint" : ""]
        }
        print(TextTable.render(["call", "median", "p95", "max", "answer", ""], rows, left: [5]))
        print(String(format: "first paint's JSON calls: worst p95 %.1f ms (target < 100 ms) %@; every call under 100 ms at p95: %@",
                     worst, worst < 100 ? "met" : "MISSED", report.targetMet ? "yes" : "NO"))
    }

    /// Writes `count` small entries with the spread a real cache has.
    static func populate(_ directory: URL, count: Int, progress: (String) -> Void) throws -> Double {
        let start = BenchStats.now()
        var limits = DiskCacheLimits(maxBytes: Int.max / 4, originalsMaxBytes: Int.max / 4, fsync: .none)
        limits.accessFlushInterval = .seconds(3600)
        var random = SystemRandomNumberGenerator()
        let pool = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let thumb = CacheVariant(size: 200, fit: "cover", format: "jpeg", quality: 82)
        let large = CacheVariant(size: 400, fit: "cover", format: "webp", quality: 80)
        // A clock that moves half a second per entry, so ages and access times spread over days.
        let clock = Mutex(1_790_000_000.0)
        let cache = try DiskCache.open(at: directory, limits: limits, clock: CacheClock { Date(timeIntervalSince1970: clock.withLock { $0 }) },
                                       warn: { _ in })
        defer { cache.close() }
        var keys: [CacheKey] = []
        keys.reserveCapacity(count)
        for i in 0..<count {
            let host = i % 5 < 3 ? "cdn.shop.example" : "seller\(i % 200).example"
            let url = try NormalizedURL("https://\(host)/products/\(i / 2)/photo-\(i).jpg")
            let variant = i % 20 == 0 ? CacheVariant.original : (i % 7 == 0 ? large : thumb)
            let size = variant.isOriginal ? Int.random(in: 20_000...60_000, using: &random) : Int.random(in: 1500...9000, using: &random)
            var bytes = Array(pool[0..<size])
            withUnsafeBytes(of: UInt64(i).littleEndian) { for (j, byte) in $0.enumerated() { bytes[j] = byte } }
            let key = CacheKey(url: url, variant: variant)
            try cache.store(key, bytes, contentType: variant.isOriginal ? "image/jpeg" : "image/\(variant.format)")
            keys.append(key)
            clock.withLock { $0 += 0.5 }
            if i % 10_000 == 9_999 { progress("stored \(i + 1) of \(count)") }
        }
        // Hits and access times, skewed towards some entries as real traffic is.
        for _ in 0..<(count / 2) {
            let index = Int(Double(count) * pow(Double.random(in: 0..<1, using: &random), 3))
            clock.withLock { $0 += 0.1 }
            _ = try cache.read(keys[min(count - 1, index)], .bytes)
        }
        return BenchStats.now() - start
    }

    static func time(_ port: Int, _ path: String) throws -> (ms: Double, bytes: Int) {
        let start = BenchStats.now()
        let response = try BenchHTTP.get(port: port, path: path)
        let ms = (BenchStats.now() - start) * 1000
        guard response.status == 200 else { throw ValidationErrorMessage("\(path): HTTP \(response.status): \(response.text.prefix(300))") }
        return (ms, response.body.count)
    }

    static func object(_ port: Int, _ path: String) throws -> [String: Any] {
        let response = try BenchHTTP.get(port: port, path: path)
        guard let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
            throw ValidationErrorMessage("\(path): not a JSON object")
        }
        return object
    }

    static func array(_ port: Int, _ path: String) throws -> [[String: Any]] {
        let response = try BenchHTTP.get(port: port, path: path)
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]) ?? []
    }

    static func escape(_ text: String) -> String { BenchHTTP.queryEscape(text) }

    private func log(_ text: String) {
        FileHandle.standardError.write(Data("bench: \(text)\n".utf8))
    }
}
