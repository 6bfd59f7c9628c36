import Testing
import ThumbCache

/// Many tasks reading, writing and removing on one cache at once. Bounded by operation count,
/// not by time. Every value encodes which key it was written for, so a value that ever ends up
/// under the wrong key, torn or mixed with another, is caught when read.
struct MemoryCacheStressTests {
    struct Scenario: Sendable, CustomTestStringConvertible {
        var tasks: Int
        var operationsPerTask: Int
        var urls: Int
        var variants: Int
        var stripes: Int
        var limits: MemoryCacheLimits
        var testDescription: String { "\(tasks) tasks, \(urls * variants) keys, \(stripes) stripes" }
    }

    static let scenarios = [
        // Many keys, evictions mostly by bytes, the usual striping.
        Scenario(tasks: 12, operationsPerTask: 40_000, urls: 500, variants: 3, stripes: 8,
                 limits: .init(maxBytes: 60_000, maxEntries: 300)),
        // A few hot keys on one lock, evictions by count: every operation contends.
        Scenario(tasks: 8, operationsPerTask: 40_000, urls: 8, variants: 2, stripes: 1,
                 limits: .init(maxBytes: 20_000, maxEntries: 10)),
    ]

    /// Value for key number `k`, written by `writer`: a header naming the key, then a fill that
    /// depends on the key and the length, so truncation or mixing shows.
    static func value(key k: Int, writer: Int, length: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(length, 8))
        withUnsafeBytes(of: UInt32(k).littleEndian) { bytes.replaceSubrange(0..<4, with: $0) }
        bytes[4] = UInt8(writer)
        bytes[5] = UInt8(truncatingIfNeeded: bytes.count)
        for j in 8..<bytes.count { bytes[j] = UInt8(truncatingIfNeeded: k &* 31 &+ j &+ bytes.count) }
        return bytes
    }

    /// Whether `bytes` is an intact value written for key `k` by one of `writers` tasks.
    static func isValid(_ bytes: [UInt8], key k: Int, writers: Int) -> Bool {
        guard bytes.count >= 8 else { return false }
        let stored = bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
        guard stored == UInt32(k), Int(bytes[4]) < writers, bytes[5] == UInt8(truncatingIfNeeded: bytes.count) else { return false }
        for j in 8..<bytes.count where bytes[j] != UInt8(truncatingIfNeeded: k &* 31 &+ j &+ bytes.count) {
            return false
        }
        return true
    }

    struct Tally: Sendable {
        var hits = 0
        var misses = 0
        var corrupt = 0
        var sets = 0
        var oversized = 0
    }

    @Test("concurrent get/set/remove keep every invariant", arguments: scenarios)
    func stress(_ s: Scenario) async {
        let cache = MemoryCache(limits: s.limits, stripes: s.stripes)
        let keyCount = s.urls * s.variants
        let keys = (0..<keyCount).map { MemoryFixture.key($0 % s.urls, variant: $0 / s.urls) }
        let maxLength = min(1_000, cache.maxEntryBytes * 2 / 3)  // small: debug-build byte loops are slow

        let total = await withTaskGroup(of: Tally.self) { group in
            for task in 0..<s.tasks {
                group.addTask {
                    var rng = Xorshift(seed: UInt64(task + 1) &* 0x9E37_79B9_7F4A_7C15)
                    var tally = Tally()
                    for op in 0..<s.operationsPerTask {
                        let k = Int(rng.next() % UInt64(keyCount))
                        let dice = rng.next() % 1000
                        switch dice {
                        case 0..<550:
                            if let bytes = cache.get(keys[k]) {
                                tally.hits += 1
                                if !Self.isValid(bytes, key: k, writers: s.tasks) { tally.corrupt += 1 }
                            } else {
                                tally.misses += 1
                            }
                        case 550..<900:
                            let length = Int(rng.next() % UInt64(maxLength))
                            cache.set(keys[k], Self.value(key: k, writer: task, length: length))
                            tally.sets += 1
                        case 900..<960:
                            cache.remove(keys[k])
                        case 960..<985:
                            _ = cache.contains(keys[k])
                        case 985..<995:
                            let stats = cache.stats
                            if stats.entries > s.limits.maxEntries || stats.bytes > s.limits.maxBytes { tally.corrupt += 1 }
                        case 995..<998:
                            // Refused, and removes the key's older entry.
                            cache.set(keys[k], Self.value(key: k, writer: task, length: cache.maxEntryBytes + 1))
                            tally.oversized += 1
                        default:
                            cache.removeAll(url: MemoryFixture.url(k % s.urls))
                        }
                        if op % 256 == 255 { await Task.yield() }
                    }
                    return tally
                }
            }
            var total = Tally()
            for await tally in group {
                total.hits += tally.hits
                total.misses += tally.misses
                total.corrupt += tally.corrupt
                total.sets += tally.sets
                total.oversized += tally.oversized
            }
            return total
        }

        #expect(total.corrupt == 0)
        #expect(cache.consistencyProblems() == [])
        let stats = cache.stats
        #expect(stats.hits == total.hits)
        #expect(stats.misses == total.misses)
        #expect(stats.hits > 0 && stats.misses > 0 && stats.evictions > 0)
        #expect(stats.entries <= s.limits.maxEntries)
        #expect(stats.bytes <= s.limits.maxBytes)
        #expect(stats.entries == stats.insertions - stats.evictions - stats.removals)
        #expect(stats.insertions + stats.replacements == total.sets)
        #expect(stats.rejections == total.oversized)

        var held = 0
        var bytes = 0
        var invalid = 0
        for (k, key) in keys.enumerated() where cache.contains(key) {
            guard let value = cache.get(key) else { invalid += 1; continue }
            held += 1
            bytes += value.count
            if !Self.isValid(value, key: k, writers: s.tasks) { invalid += 1 }
        }
        #expect(invalid == 0)
        #expect(held == stats.entries)
        #expect(bytes == stats.bytes)
    }

    /// A seeded generator, so a failing run can be repeated.
    struct Xorshift {
        var state: UInt64
        init(seed: UInt64) { state = seed == 0 ? 0x1234_5678 : seed }
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
    }
}
