import Foundation
import TestSupport
import ThumbCache
import Testing

/// Many tasks get, set, remove and evict at once for a few seconds. Run once under ThreadSanitizer
/// (`swift test --sanitize=thread --filter 'Disk|TwoTier|Crash'`) as well.
@Suite("Disk cache concurrency")
struct DiskConcurrencyTests {
    static let seconds = 2.5

    @Test func manyTasksGetSetAndEvictAndTotalsMatchTheFiles() async throws {
        let dir = DiskTest.makeDirectory("concurrency")
        defer { DiskTest.cleanUp(dir) }
        let warnings = WarningLog()
        let limits = DiskCacheLimits(maxBytes: 192 << 10, originalsMaxBytes: 96 << 10, fsync: .none,
                                     accessFlushBatch: 40, accessFlushInterval: .milliseconds(100))
        let cache = try DiskCache.open(at: dir, limits: limits, warn: warnings.sink)
        let deadline = Date().addingTimeInterval(Self.seconds)
        let tasks = 8
        let results = await withTaskGroup(of: (operations: Int, problems: [String]).self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var random = SeededRandom(seed: UInt64(task + 1))
                    var problems: [String] = []
                    var operations = 0
                    var generation = UInt64(task + 1) << 40
                    while operations < 200 || Date() < deadline {
                        operations += 1
                        let key = CrashKeys.key(Int.random(in: 0..<32, using: &random), Int.random(in: 0..<4, using: &random))
                        do {
                            switch Int.random(in: 0..<100, using: &random) {
                            case 0..<40:
                                generation += 1
                                let length = key.variant.isOriginal ? Int.random(in: 2000...12000, using: &random)
                                                                    : Int.random(in: 100...5000, using: &random)
                                try cache.store(key, CrashPayload.make(digest: key.digest, generation: generation, bodyLength: length),
                                                validators: CacheValidators(etag: "\"g\(generation)\""))
                            case 40..<75:
                                if let hit = try cache.read(key, .bytes) {
                                    let found = CrashPayload.check(hit.bytes, key: key)
                                    if found == nil { problems.append("wrong bytes for \(key)") }
                                }
                            case 75..<83:
                                try cache.remove(key)
                            case 83..<85:
                                try cache.removeAll(url: key.url)
                            case 85..<90:
                                try cache.refresh(key, validators: nil)
                            case 90..<94:
                                // A file handed out by path is complete while it exists.
                                if let url = try cache.read(key, .facts, countingHit: false)?.entry.fileURL, let data = try? Data(contentsOf: url),
                                   CrashPayload.check([UInt8](data), key: key) == nil {
                                    problems.append("wrong file for \(key)")
                                }
                            case 94..<97:
                                _ = try cache.entries(sortedBy: .size, limit: 10)
                                _ = try cache.stats()
                            case 97..<99:
                                try cache.flushAccessLog()
                            default:
                                let report = try cache.verify()
                                if !report.isClean { problems.append("verify: \(report.problems)") }
                            }
                        } catch {
                            problems.append("\(error)")
                        }
                        if operations % 8 == 0 { await Task.yield() }
                    }
                    return (operations, problems)
                }
            }
            return await group.reduce(into: [(operations: Int, problems: [String])]()) { $0.append($1) }
        }
        let problems = results.flatMap(\.problems)
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        #expect(results.allSatisfy { $0.operations >= 200 })
        #expect(warnings.all.isEmpty, "\(warnings.all.prefix(5))")

        let usage = cache.usage
        let files = DiskTest.files(in: dir)
        let stats = try cache.stats()
        #expect(files == DiskTest.Files(entries: usage.thumbnails.entries + usage.originals.entries,
                                        bytes: usage.thumbnails.bytes + usage.originals.bytes, sidecars: 0))
        #expect(stats.thumbnails == usage.thumbnails && stats.originals == usage.originals)
        #expect(usage.thumbnails.bytes <= limits.maxBytes && usage.originals.bytes <= limits.originalsMaxBytes)
        #expect(stats.evictions > 0)
        cache.close()

        // A clean close: the next start trusts the index, which agrees with the files.
        let reopened = try DiskCache.open(at: dir, limits: limits, warn: warnings.sink)
        #expect(warnings.all.isEmpty)
        #expect(reopened.usage.thumbnails == usage.thumbnails && reopened.usage.originals == usage.originals)
        #expect(try reopened.verify().isClean)
        for entry in try reopened.entries(limit: nil) {
            let hit = try #require(try reopened.read(entry.key, .bytes))
            #expect(CrashPayload.check(hit.bytes, key: entry.key) != nil)
        }
    }
}
