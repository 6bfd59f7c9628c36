import Foundation
import ThumbCache

/// The disk tier's targets, measured (for `thumbd-bench cache`): with `entries` entries on disk,
/// opening the cache (after a clean close: target under 300 ms), a disk lookup (p99 under 1 ms),
/// an insert that evicts (p99 under 5 ms), and that the total never exceeds the limit while
/// filling twice the limit. Build in release to compare with the targets.
enum DiskCacheBenchmark {
    struct Options: Sendable {
        var entries = 100_000
        /// Entry sizes; small by default so 100,000 entries fill the index, not the disk.
        var entryBytes = 1000...4000
        var lookups = 20_000
        var inserts = 3000
        /// For the timed inserts (filling uses `.none`; it is not what is measured).
        var fsync = FsyncPolicy.data
        /// The limit of the fill test (filled to twice this).
        var fillLimitBytes = 32 << 20
    }

    struct Result: Sendable, Codable, Hashable {
        var entries: Int
        var populateSeconds: Double
        var openMilliseconds: Double
        /// Opening after the owner process was killed (no clean-shutdown marker, same boot): every
        /// file is listed and reconciled with the index; files the index cannot vouch for are read.
        var openAfterCrashMilliseconds: Double
        /// Opening after the machine crashed (another boot id): recently written files are read too.
        var openAfterMachineCrashMilliseconds: Double
        var lookupP50Microseconds: Double
        var lookupP99Microseconds: Double
        var insertWithEvictionP50Milliseconds: Double
        var insertWithEvictionP99Milliseconds: Double
        var insertFsync: String
        var fillLimitBytes: Int
        var fillWrittenBytes: Int
        /// The largest total seen after any store of the fill (from the map after every store,
        /// and from the files themselves every 200 stores).
        var fillMaxObservedBytes: Int

        var openTargetMet: Bool { openMilliseconds < 300 }
        var lookupTargetMet: Bool { lookupP99Microseconds < 1000 }
        var insertTargetMet: Bool { insertWithEvictionP99Milliseconds < 5 }
        var fillTargetMet: Bool { fillMaxObservedBytes <= fillLimitBytes }
    }

    /// Runs every measurement under `directory` (which it fills and removes).
    static func run(directory: URL, options: Options = Options(), progress: @Sendable (String) -> Void = { _ in }) throws -> Result {
        let variant = CacheVariant(size: 200, fit: "cover", format: "jpeg", quality: 82)
        func key(_ i: Int) -> CacheKey {
            CacheKey(url: try! NormalizedURL("https://bench\(i % 16).example/products/\(i).jpg"), variant: variant)
        }
        var random = SystemRandomNumberGenerator()
        let pool = (0..<(options.entryBytes.upperBound + 8)).map { _ in UInt8.random(in: 0...255, using: &random) }
        func bytes(_ i: Int) -> [UInt8] {
            let size = Int.random(in: options.entryBytes, using: &random)
            var result = Array(pool[0..<size])
            withUnsafeBytes(of: UInt64(i).littleEndian) { for (j, byte) in $0.enumerated() where j < size { result[j] = byte } }
            return result
        }
        let root = directory.appendingPathComponent("disk-bench-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        let cacheDir = root.appendingPathComponent("cache")

        // Populate.
        let started = FileOps.monotonicSeconds()
        var fill = DiskCacheLimits(maxBytes: Int.max / 4, originalsMaxBytes: 0, fsync: .none)
        fill.accessFlushInterval = .seconds(3600)
        do {
            let cache = try DiskCache.open(at: cacheDir, limits: fill, warn: { _ in })
            for i in 0..<options.entries {
                try cache.store(key(i), bytes(i), validators: CacheValidators(etag: "\"\(i)\""), contentType: "image/jpeg")
                if i % 10_000 == 9_999 { progress("populated \(i + 1) of \(options.entries) entries") }
            }
            cache.close()
        }
        let populateSeconds = FileOps.monotonicSeconds() - started

        // Open after a clean close.
        var limits = fill
        limits.fsync = options.fsync
        var begin = FileOps.monotonicSeconds()
        var cache = try DiskCache.open(at: cacheDir, limits: limits, warn: { _ in })
        let openMilliseconds = (FileOps.monotonicSeconds() - begin) * 1000
        progress("opened \(options.entries) entries in \(String(format: "%.1f", openMilliseconds)) ms")

        // Lookups.
        var lookupTimes: [Double] = []
        lookupTimes.reserveCapacity(options.lookups)
        for _ in 0..<options.lookups {
            let k = key(Int.random(in: 0..<options.entries, using: &random))
            begin = FileOps.monotonicSeconds()
            let hit = try cache.read(k, .bytes)
            lookupTimes.append((FileOps.monotonicSeconds() - begin) * 1e6)
            precondition(hit != nil, "benchmark entry missing")
        }
        cache.close()

        // Inserts that evict: the budget is what is stored now.
        let total = cache.usage.thumbnails.bytes
        limits.maxBytes = total
        cache = try DiskCache.open(at: cacheDir, limits: limits, warn: { _ in })
        var insertTimes: [Double] = []
        for n in 0..<options.inserts {
            let k = key(options.entries + n)
            let payload = bytes(options.entries + n)
            begin = FileOps.monotonicSeconds()
            try cache.store(k, payload, validators: CacheValidators(etag: "\"n\(n)\""), contentType: "image/jpeg")
            insertTimes.append((FileOps.monotonicSeconds() - begin) * 1000)
        }
        precondition(cache.usage.thumbnails.bytes <= total)
        cache.close()
        progress("timed \(options.inserts) inserts with eviction")

        // Open after a crash: drop the marker as a kill -9 would have.
        _ = try? FileOps.remove(DiskLayout(directory: cacheDir).cleanMarkerPath)
        begin = FileOps.monotonicSeconds()
        cache = try DiskCache.open(at: cacheDir, limits: limits, warn: { _ in })
        let openAfterCrash = (FileOps.monotonicSeconds() - begin) * 1000
        cache.close()
        // And as after a reboot: the boot id the owner wrote down is not this boot's.
        let layout = DiskLayout(directory: cacheDir)
        _ = try? FileOps.remove(layout.cleanMarkerPath)
        _ = try? FileOps.remove(layout.ownerBootPath)
        try? FileOps.writeNew(layout.ownerBootPath, Array("another-boot".utf8), sync: false)
        begin = FileOps.monotonicSeconds()
        cache = try DiskCache.open(at: cacheDir, limits: limits, warn: { _ in })
        let openAfterMachineCrash = (FileOps.monotonicSeconds() - begin) * 1000
        cache.close()

        // Fill twice the limit.
        let fillDir = root.appendingPathComponent("fill")
        var fillLimits = DiskCacheLimits(maxBytes: options.fillLimitBytes, originalsMaxBytes: 0, fsync: .none)
        fillLimits.accessFlushInterval = .seconds(3600)
        let filling = try DiskCache.open(at: fillDir, limits: fillLimits, warn: { _ in })
        var written = 0, maxObserved = 0, n = 0
        let fillLayout = DiskLayout(directory: fillDir)
        while written < 2 * options.fillLimitBytes {
            let payload = bytes(n)
            try filling.store(key(n), payload)
            written += payload.count
            maxObserved = max(maxObserved, filling.usage.thumbnails.bytes)
            if n % 200 == 0 { maxObserved = max(maxObserved, try onDiskBytes(fillLayout)) }
            n += 1
        }
        maxObserved = max(maxObserved, try onDiskBytes(fillLayout))
        filling.close()
        progress("filled twice the limit")

        return Result(entries: options.entries, populateSeconds: populateSeconds, openMilliseconds: openMilliseconds,
                      openAfterCrashMilliseconds: openAfterCrash, openAfterMachineCrashMilliseconds: openAfterMachineCrash,
                      lookupP50Microseconds: percentile(lookupTimes, 0.5), lookupP99Microseconds: percentile(lookupTimes, 0.99),
                      insertWithEvictionP50Milliseconds: percentile(insertTimes, 0.5),
                      insertWithEvictionP99Milliseconds: percentile(insertTimes, 0.99), insertFsync: options.fsync.rawValue,
                      fillLimitBytes: options.fillLimitBytes, fillWrittenBytes: written, fillMaxObservedBytes: maxObserved)
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    /// The bytes of entry files under objects/, from the files themselves: every file in a fan-out
    /// folder but the `.meta` sidecars (nothing else lives there while the cache runs). Counted
    /// here rather than by the cache's recovery code, since the fill checks the cache's own sums.
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
