import Foundation
import Testing
@_spi(CacheFiles) import ThumbCache
@testable import ThumbdBench

/// The disk tier's measurement on a small cache: it runs through every phase on ThumbCache's
/// `package` internals, and its count of the files on disk leaves out older sidecars.
@Suite struct DiskCacheBenchmarkTests {
    @Test func everyPhaseRunsAndTheFillStaysWithinItsLimit() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-disk-bench-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = DiskCacheBenchmark.Options()
        options.entries = 1000
        options.lookups = 200
        options.inserts = 50
        options.fsync = .none
        options.fillLimitBytes = 1 << 20
        let cacheDir = directory.appendingPathComponent("cache")
        let filled = try DiskCacheBenchmark.prepare(directory: cacheDir, entries: 1000, progress: { _ in })
        #expect(filled > 0)
        #expect(try DiskCacheBenchmark.prepare(directory: cacheDir, entries: 1000, progress: { _ in }) == 0, "a cache of that size is reused")
        let result = try DiskCacheBenchmark.run(cacheDir: cacheDir, scratch: directory, options: options)
        #expect(result.entries == 1000)
        #expect(result.openMilliseconds > 0 && result.openAfterCrashMilliseconds > 0 && result.openAfterMachineCrashMilliseconds > 0)
        #expect(result.repairAfterCrashSeconds > 0 && result.repairAfterMachineCrashSeconds > 0)
        #expect(result.evictionsPerInsert >= 0.5, "every insert into the full cache evicts")
        #expect(result.lookupP99Microseconds >= result.lookupP50Microseconds)
        #expect(result.indexLookupP50Microseconds > 0 && result.indexLookupP99Microseconds >= result.indexLookupP50Microseconds)
        #expect(result.fillWrittenBytes >= 2 << 20)
        #expect(result.fillTargetMet, "\(result.fillMaxObservedBytes) bytes on disk over a limit of \(result.fillLimitBytes)")
    }

    @Test func theFilesOnDiskAreCountedWithoutSidecars() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-disk-bench-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try DiskCache.open(at: directory, limits: DiskCacheLimits(fsync: .none), warn: { _ in })
        let sizes = [1000, 2345, 17]
        for (index, size) in sizes.enumerated() {
            let key = CacheKey(url: try NormalizedURL("https://bench.example/\(index).jpg"),
                               variant: CacheVariant(size: 200, fit: "cover", format: "jpeg", quality: 82))
            try cache.store(key, [UInt8](repeating: UInt8(index), count: size))
        }
        cache.close()
        #expect(try DiskCacheBenchmark.onDiskBytes(DiskLayout(directory: directory)) == sizes.reduce(0, +))
    }
}
