import Foundation
@_spi(CacheFiles) import ThumbCache

/// The disk tier's targets, measured in process (for `thumbd-bench cache`) on a cache of
/// `entries` entries: opening it after a clean close, after a kill and after a machine crash
/// (and how long the repair then runs beside it), a disk lookup (p99 under 1 ms), an insert that
/// evicts (p99 under 5 ms), and that the total never exceeds the limit while filling twice the
/// limit. The daemon's own figures (first answer, memory) are `DaemonStartBenchmark`'s. Build in
/// release to compare with the targets.
enum DiskCacheBenchmark {
    struct Options: Sendable {
        var entries = 100_000
        var lookups = 20_000
        var inserts = 3000
        /// For the timed inserts (filling writes without fsync; it is not what is measured).
        var fsync = DiskCacheLimits().fsync
        /// The limit of the fill test (filled to twice this).
        var fillLimitBytes = 32 << 20
    }

    struct Result: Sendable, Codable, Hashable {
        var entries: Int
        /// Seconds the bulk fill took (0 when an existing cache of that size was reused).
        var populateSeconds: Double
        var openMilliseconds: Double
        /// Opening after the owner process was killed (no clean-shutdown marker, same boot): the
        /// repair runs in the background; `repairAfterCrashSeconds` is how long it took.
        var openAfterCrashMilliseconds: Double
        var repairAfterCrashSeconds: Double
        /// Opening after the machine crashed (another boot id): the repair checksums recent files too.
        var openAfterMachineCrashMilliseconds: Double
        var repairAfterMachineCrashSeconds: Double
        /// Finding an entry: its index row, no file read.
        var indexLookupP50Microseconds: Double
        var indexLookupP99Microseconds: Double
        /// A hit as the daemon reads it: the index row and the file's bytes, checked.
        var lookupP50Microseconds: Double
        var lookupP99Microseconds: Double
        var insertWithEvictionP50Milliseconds: Double
        var insertWithEvictionP99Milliseconds: Double
        /// Entries evicted per timed insert, on average (each insert evicts what it needs room for).
        var evictionsPerInsert: Double
        var insertFsync: String
        var fillLimitBytes: Int
        var fillWrittenBytes: Int
        /// The largest total seen after any store of the fill (from the cache's totals after every
        /// store, and from the files themselves every 200 stores).
        var fillMaxObservedBytes: Int

        var openTargetMet: Bool { max(openMilliseconds, openAfterCrashMilliseconds, openAfterMachineCrashMilliseconds) < 1000 }
        var lookupTargetMet: Bool { indexLookupP99Microseconds < 1000 }
        var insertTargetMet: Bool { insertWithEvictionP99Milliseconds < 5 }
        var fillTargetMet: Bool { fillMaxObservedBytes <= fillLimitBytes }
    }

    /// A cache directory at `directory` holding exactly `entries` of `BenchCacheEntries`: filled
    /// now (in bulk, as `store` writes them), or reused when it already holds that many. Returns
    /// the seconds the fill took (0 when reused).
    static func prepare(directory: URL, entries: Int, progress: @Sendable (String) -> Void) throws -> Double {
        let limits = DiskCacheLimits(maxBytes: Int.max / 4, originalsMaxBytes: 0, fsync: .none)
        if DiskCache.exists(at: directory) {
            let existing = try DiskCache.open(at: directory, limits: limits, warn: { _ in })
            let count = existing.usage.thumbnails.entries
            existing.close()
            // The timed inserts of an earlier run evict about as many entries as they add.
            if abs(count - entries) * 100 <= entries {
                progress("reusing the cache at \(directory.path): \(count) entries")
                return 0
            }
            progress("the cache at \(directory.path) holds \(count) entries, not \(entries): filling it again")
            try FileManager.default.removeItem(at: directory)
        }
        let started = BenchStats.now()
        let cache = try DiskCache.open(at: directory, limits: limits, warn: { _ in })
        let step = max(10_000, entries / 20)
        try cache.bulkFill(count: entries, progress: { done in
            if done % step < 20_000 || done == entries {
                let rate = Double(done) / max(0.001, BenchStats.now() - started)
                progress("filled \(done) of \(entries) entries (\(Int(rate)) a second)")
            }
        }, make: BenchCacheEntries.make)
        cache.close()
        return BenchStats.now() - started
    }

    /// Runs every measurement on the cache at `cacheDir` (filled or reused by `prepare`, and
    /// changed by the timed inserts) and on a scratch folder for the fill test. Every open of
    /// `cacheDir` reads its index through as the daemon's does.
    static func run(cacheDir: URL, scratch: URL, options: Options = Options(), populateSeconds: Double = 0,
                    progress: @Sendable (String) -> Void = { _ in }) throws -> Result {
        var random = SystemRandomNumberGenerator()
        var limits = DiskCacheLimits(maxBytes: Int.max / 4, originalsMaxBytes: 0, fsync: options.fsync)
        limits.accessFlushInterval = .seconds(3600)

        // Open after a clean close, then random lookups.
        var begin = BenchStats.now()
        var cache = try DiskCache.open(at: cacheDir, limits: limits, warmIndex: true, warn: { _ in })
        let openMilliseconds = (BenchStats.now() - begin) * 1000
        progress("opened \(options.entries) entries in \(String(format: "%.1f", openMilliseconds)) ms")
        // Finding an entry (its index row) apart from reading its file: once the files outgrow the
        // page cache (ten million entries are 40 GB), a read is the disk's latency, not the cache's.
        var indexTimes: [Double] = []
        indexTimes.reserveCapacity(options.lookups)
        for _ in 0..<options.lookups {
            let k = BenchCacheEntries.key(Int.random(in: 0..<options.entries, using: &random))
            begin = BenchStats.now()
            _ = cache.contains(k)
            indexTimes.append((BenchStats.now() - begin) * 1e6)
        }
        var lookupTimes: [Double] = []
        lookupTimes.reserveCapacity(options.lookups)
        var found = 0
        for _ in 0..<options.lookups {
            let k = BenchCacheEntries.key(Int.random(in: 0..<options.entries, using: &random))
            begin = BenchStats.now()
            let hit = try cache.read(k, .bytes)
            lookupTimes.append((BenchStats.now() - begin) * 1e6)
            if hit != nil { found += 1 }
        }
        // Earlier timed inserts of a reused cache evicted a few entries: most must be there.
        precondition(found * 10 >= options.lookups * 9, "benchmark entries missing: \(found) of \(options.lookups) found")

        // Inserts that evict: the budget is what is stored now.
        let total = cache.usage.thumbnails.bytes
        let evictionsBefore = cache.activity.evictions
        cache.close()
        limits.maxBytes = total
        cache = try DiskCache.open(at: cacheDir, limits: limits, warmIndex: true, warn: { _ in })
        var insertTimes: [Double] = []
        let first = options.entries + Int.random(in: 0..<1_000_000_000, using: &random)
        for n in 0..<options.inserts {
            let entry = BenchCacheEntries.make(first + n)
            begin = BenchStats.now()
            try cache.store(entry.key, entry.bytes, validators: entry.validators, contentType: entry.contentType)
            insertTimes.append((BenchStats.now() - begin) * 1000)
        }
        precondition(cache.usage.thumbnails.bytes <= total)
        let evictions = cache.activity.evictions - evictionsBefore
        cache.close()
        progress("timed \(options.inserts) inserts with eviction")

        // Open after a crash: drop the marker as a kill -9 would have; the repair runs beside.
        let layout = DiskLayout(directory: cacheDir)
        func crashOpen(machine: Bool) throws -> (Double, Double) {
            _ = try? FileOps.remove(layout.cleanMarkerPath)
            if machine {
                _ = try? FileOps.remove(layout.ownerBootPath)
                try? FileOps.writeNew(layout.ownerBootPath, Array("another-boot".utf8), sync: false)
            }
            let begin = BenchStats.now()
            let cache = try DiskCache.open(at: cacheDir, limits: limits, repair: .inBackground, warmIndex: true, warn: { _ in })
            let opened = (BenchStats.now() - begin) * 1000
            cache.waitForRepair()
            let repaired = BenchStats.now() - begin
            cache.close()
            return (opened, repaired)
        }
        let (openAfterCrash, repairAfterCrash) = try crashOpen(machine: false)
        progress("opened after a kill in \(String(format: "%.1f", openAfterCrash)) ms; repaired in \(String(format: "%.1f", repairAfterCrash)) s")
        let (openAfterMachineCrash, repairAfterMachineCrash) = try crashOpen(machine: true)
        progress("opened after a machine crash in \(String(format: "%.1f", openAfterMachineCrash)) ms; repaired in \(String(format: "%.1f", repairAfterMachineCrash)) s")

        // Fill twice the limit.
        let fillDir = scratch.appendingPathComponent("fill-\(getpid())")
        try? FileManager.default.removeItem(at: fillDir)
        defer { try? FileManager.default.removeItem(at: fillDir) }
        var fillLimits = DiskCacheLimits(maxBytes: options.fillLimitBytes, originalsMaxBytes: 0, fsync: .none)
        fillLimits.accessFlushInterval = .seconds(3600)
        let filling = try DiskCache.open(at: fillDir, limits: fillLimits, warn: { _ in })
        var written = 0, maxObserved = 0, n = 0
        let fillLayout = DiskLayout(directory: fillDir)
        while written < 2 * options.fillLimitBytes {
            let entry = BenchCacheEntries.make(n)
            try filling.store(entry.key, entry.bytes)
            written += entry.bytes.count
            maxObserved = max(maxObserved, filling.usage.thumbnails.bytes)
            if n % 200 == 0 { maxObserved = max(maxObserved, try onDiskBytes(fillLayout)) }
            n += 1
        }
        maxObserved = max(maxObserved, try onDiskBytes(fillLayout))
        filling.close()
        progress("filled twice the limit")

        return Result(entries: options.entries, populateSeconds: populateSeconds, openMilliseconds: openMilliseconds,
                      openAfterCrashMilliseconds: openAfterCrash, repairAfterCrashSeconds: repairAfterCrash,
                      openAfterMachineCrashMilliseconds: openAfterMachineCrash, repairAfterMachineCrashSeconds: repairAfterMachineCrash,
                      indexLookupP50Microseconds: percentile(indexTimes, 0.5), indexLookupP99Microseconds: percentile(indexTimes, 0.99),
                      lookupP50Microseconds: percentile(lookupTimes, 0.5), lookupP99Microseconds: percentile(lookupTimes, 0.99),
                      insertWithEvictionP50Milliseconds: percentile(insertTimes, 0.5),
                      insertWithEvictionP99Milliseconds: percentile(insertTimes, 0.99),
                      evictionsPerInsert: Double(evictions) / Double(max(1, options.inserts)), insertFsync: options.fsync.rawValue,
                      fillLimitBytes: options.fillLimitBytes, fillWrittenBytes: written, fillMaxObservedBytes: maxObserved)
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    /// The bytes of entry files under objects/, from the files themselves: every file in a fan-out
    /// folder but an older format's `.meta` sidecars. Counted here rather than by the cache's
    /// recovery code, since the fill checks the cache's own sums.
    static func onDiskBytes(_ layout: DiskLayout) throws -> Int {
        var total = 0
        for fanout in try FileOps.list(layout.objectsPath) {
            let folder = layout.fanoutPath(fanout)
            for name in try FileOps.list(folder) where !name.hasSuffix(DiskLayout.sidecarSuffix) {
                total += Int(FileOps.status(folder + "/" + name)?.size ?? 0)
            }
        }
        return total
    }
}
