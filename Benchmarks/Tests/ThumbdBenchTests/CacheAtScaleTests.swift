import ChildProcess
import Foundation
import Testing
import TestSupport
import ThumbCache
@testable import ThumbdBench

/// Issue 30 at the size CI's time allows: the built `thumbd serve` on a cache of 200,000 entries
/// answers a cached entry and a miss within a second of its start after a clean stop, a SIGKILL
/// and a simulated machine crash, finishes its background repair, answers as soon after a restart
/// with half the limit and trims the excess beside its answers (issue 43), and holds no memory per entry
/// (VmRSS within 200 bytes an entry of the same daemon on an empty cache). `thumbd-bench cache
/// --entries 10000000` measures the same at ten million. Runs in `make test`'s CPU-heavy pass.
@Suite(.serialized) struct CacheAtScaleTests {
    static let python = BackgroundProcess.which("python3")

    @Test(.requires(python != nil, "python3 (the origin of the misses) is not installed"))
    func aBigCacheAnswersAtOnceAfterEveryStopInLittleMemory() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-cache-scale-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let entries = 200_000
        let cacheDir = scratch.appendingPathComponent("cache")
        _ = try DiskCacheBenchmark.prepare(directory: cacheDir, entries: entries, progress: { _ in })

        let result = try DaemonStartBenchmark.run(thumbd: TestPaths.builtProduct("thumbd"), cacheDir: cacheDir, entries: entries,
                                                  scratch: scratch, hits: 500, progress: { _ in })

        for (name, start) in [("clean", result.afterCleanStop), ("kill", result.afterKill), ("machine crash", result.afterMachineCrash),
                              ("half the limit", result.afterLoweredLimit)] {
            #expect(start.firstHitMilliseconds <= 1000, "\(name): first hit after \(start.firstHitMilliseconds) ms")
            #expect(start.firstMissMilliseconds <= 1000, "\(name): first miss answered after \(start.firstMissMilliseconds) ms")
        }
        #expect(result.afterKill.repairSeconds > 0 && result.afterMachineCrash.repairSeconds > 0)
        #expect(result.hitsFromCache == result.hitsSampled, "\(result.hitsFromCache) of \(result.hitsSampled) hits came from the cache")
        #expect(result.bytesPerEntry <= 200, "VmRSS \(result.rssBytes) against \(result.baseRSSBytes) on an empty cache: \(result.bytesPerEntry) bytes an entry")

        #expect(result.afterLoweredLimit.repairSeconds > 0, "no trim ran after the limit was halved")

        // Every row still has its whole file after the starts, the two crashes and the trim, which
        // left the thumbnails within the halved limit.
        let cache = try DiskCache.open(at: cacheDir, limits: DiskCacheLimits(maxBytes: Int.max / 4, fsync: .none), mode: .readOnly)
        #expect(cache.usage.thumbnails.bytes <= result.loweredLimitBytes, "\(cache.usage.thumbnails.bytes) over \(result.loweredLimitBytes)")
        #expect(cache.usage.thumbnails.entries < entries && cache.usage.thumbnails.entries > entries / 3)
        let report = try cache.verify()
        #expect(report.isClean && report.checkedEntries == cache.usage.thumbnails.entries, "\(report.problems.prefix(5))")
        cache.close()
    }
}
