import Digests
import Foundation

/// The memory tier's budget. Both limits count the whole cache; `MemoryCache` splits them evenly
/// among its stripes, so the total never goes above either limit.
public struct MemoryCacheLimits: Sendable, Codable, Equatable {
    /// Total encoded bytes held (payload only: keys and bookkeeping, about 200 bytes an entry, are not counted).
    public var maxBytes: Int
    /// Total number of entries held.
    public var maxEntries: Int

    public static let defaultMaxBytes = 128 << 20
    public static let defaultMaxEntries = 100_000

    public init(maxBytes: Int = MemoryCacheLimits.defaultMaxBytes, maxEntries: Int = MemoryCacheLimits.defaultMaxEntries) {
        self.maxBytes = maxBytes
        self.maxEntries = maxEntries
    }
}

/// A snapshot of the memory tier. Each stripe is read under its own lock in turn, so under
/// concurrent traffic the sums are a near-instant view rather than one atomic snapshot.
/// The counters only grow; `entries == insertions - evictions - removals` always holds.
public struct MemoryCacheStats: Sendable, Codable, Equatable {
    public var entries: Int
    public var bytes: Int
    public var maxEntries: Int
    public var maxBytes: Int
    public var stripes: Int
    /// `get` calls that found an entry.
    public var hits: Int
    /// `get` calls that found nothing.
    public var misses: Int
    /// `set` calls that stored a new entry.
    public var insertions: Int
    /// `set` calls that replaced the bytes of an entry already held.
    public var replacements: Int
    /// Entries dropped to make room (least recently used first).
    public var evictions: Int
    /// Entries dropped by `remove`, `removeAll`, or a refused replacement.
    public var removals: Int
    /// `set` calls refused because the bytes were larger than a stripe's byte share.
    public var rejections: Int

    public init(
        entries: Int = 0, bytes: Int = 0, maxEntries: Int = 0, maxBytes: Int = 0, stripes: Int = 0,
        hits: Int = 0, misses: Int = 0, insertions: Int = 0, replacements: Int = 0,
        evictions: Int = 0, removals: Int = 0, rejections: Int = 0
    ) {
        self.entries = entries
        self.bytes = bytes
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
        self.stripes = stripes
        self.hits = hits
        self.misses = misses
        self.insertions = insertions
        self.replacements = replacements
        self.evictions = evictions
        self.removals = removals
        self.rejections = rejections
    }

    /// hits / (hits + misses), 0 before any lookup.
    public var hitRatio: Double {
        let lookups = hits + misses
        return lookups == 0 ? 0 : Double(hits) / Double(lookups)
    }
}

/// The memory tier: encoded thumbnail bytes by `CacheKey`, least recently used evicted first,
/// bounded by total bytes and by entry count.
///
/// Lock striping: the key's digest picks one of N stripes (a power of two); each stripe is an
/// independent lock around an O(1) LRU (a dictionary from key to slot, and a doubly linked
/// list threaded through arrays of slots, with a free list — no allocation per node). The lock
/// is a pthread adaptive mutex, not `Synchronization.Mutex`: see `StripeTable` for why. A hit
/// locks one stripe for a dictionary lookup and an unlink/relink, nothing else, so hits on
/// different stripes never meet and no hit waits behind a miss's work, an eviction elsewhere or
/// any I/O (the cache does none). Inside a stripe the bytes are never copied (an `[UInt8]` is
/// handed out by retaining its buffer) and never freed: replaced and evicted values are carried
/// out of the lock and released after it.
///
/// Each stripe gets 1/N of each limit, so the whole cache never holds more than the limits; the
/// price is that LRU order is exact within a stripe and approximate across them (an entry is
/// evicted when its own stripe is full, even if another stripe holds older entries), which is
/// what striped caches do. With `stripes: 1` the order is exact. An entry larger than its
/// stripe's byte share is not stored.
///
/// Entries are told apart by the key's SHA-256 (the identity the disk tier names files by),
/// compared as four words held inside the key, so a lookup never reads a string.
public final class MemoryCache: @unchecked Sendable {
    // @unchecked: every stored property is a `let`; `stripes` points at memory written once in
    // init and freed in deinit, and every access to a stripe's contents holds that stripe's lock.

    public let limits: MemoryCacheLimits
    /// How many independent stripes the cache is split into (a power of two).
    public let stripeCount: Int
    private let mask: Int
    private let stripes: StripeTable

    /// - Parameters:
    ///   - limits: the budget of the whole cache; negative values count as 0.
    ///   - stripes: rounded up to a power of two; by default 16, or 4 × the cores if that is more
    ///     (at most 256), and fewer when the limits are so small that a stripe would get under
    ///     16 entries or 1 MiB — tiny stripes would refuse ordinary thumbnails.
    public init(limits: MemoryCacheLimits = .init(), stripes: Int? = nil) {
        let limits = MemoryCacheLimits(maxBytes: max(0, limits.maxBytes), maxEntries: max(0, limits.maxEntries))
        let count: Int
        if let stripes {
            precondition(stripes >= 1, "a memory cache needs at least one stripe")
            count = Self.powerOfTwo(atLeast: min(stripes, 1 << 16))
        } else {
            count = Self.defaultStripeCount(for: limits, cores: ProcessInfo.processInfo.activeProcessorCount)
        }
        self.limits = limits
        self.stripeCount = count
        self.mask = count - 1
        self.stripes = StripeTable(count: count) { index in
            LRUStripe(
                maxBytes: Self.share(of: limits.maxBytes, stripe: index, of: count),
                maxEntries: Self.share(of: limits.maxEntries, stripe: index, of: count)
            )
        }
    }

    deinit {
        stripes.destroy()
    }

    /// The bytes for `key`, marking the entry most recently used; nil on a miss.
    @inline(__always)  // lets callers in this module lend the key without copying it
    public func get(_ key: CacheKey) -> [UInt8]? {
        let digest = key.digestBits
        return stripes.withLock(stripeIndex(for: digest)) { $0.get(digest) }
    }

    /// Whether `key` is held, without touching its recency or the hit counters.
    public func contains(_ key: CacheKey) -> Bool {
        let digest = key.digestBits
        return stripes.withLock(stripeIndex(for: digest)) { $0.contains(digest) }
    }

    /// Stores `bytes` for `key`, replacing what was there and evicting least recently used entries
    /// of the key's stripe until both of its limits hold. Bytes larger than the stripe's byte share
    /// are refused, and an older entry for the key is then removed rather than left stale.
    public func set(_ key: CacheKey, _ bytes: [UInt8]) {
        let dropped = stripes.withLock(stripeIndex(for: key.digestBits)) { $0.set(key, bytes) }
        withExtendedLifetime(dropped) {}  // released here, after the lock
    }

    /// Removes `key`'s entry; true if there was one.
    @discardableResult
    public func remove(_ key: CacheKey) -> Bool {
        let digest = key.digestBits
        let dropped = stripes.withLock(stripeIndex(for: digest)) { $0.remove(digest) }
        return dropped.count > 0
    }

    /// Removes every variant of `url`.
    @discardableResult
    public func removeAll(url: NormalizedURL) -> Int { removeAll(.url(url)) }

    /// Removes every entry in `scope`. The variants of one URL hash to different stripes, so this
    /// scans every stripe's slots — an admin operation, O(entries) — in chunks of
    /// `MemoryCache.scanChunk` slots per lock hold, so a hit never waits behind more than one chunk.
    /// An entry stored concurrently in a slot already scanned can survive; one present for the
    /// whole call cannot. (A url → keys index would make this O(variants) but cost every insert
    /// and eviction a second dictionary update and a string hash; not worth it for an admin call.)
    @discardableResult
    public func removeAll(_ scope: CacheScope) -> Int {
        if case .entry(let key) = scope { return remove(key) ? 1 : 0 }  // one key needs no scan
        var removed = 0
        for i in 0..<stripeCount {
            var start = 0
            while true {
                let (dropped, next) = stripes.withLock(i) { $0.removeAll(scope, slotsFrom: start, limit: Self.scanChunk) }
                removed += dropped.count
                guard let next else { break }
                start = next
            }
        }
        return removed
    }

    /// The hits each entry has had since the last call, which then count from zero again: for the
    /// disk tier, so an entry people see from memory is not the least recently used one on disk.
    /// Scans in chunks like `removeAll`; an evicted entry's uncollected hits are lost.
    public func drainHits() -> [(key: CacheKey, hits: Int)] {
        var found: [(key: CacheKey, hits: Int)] = []
        for i in 0..<stripeCount {
            var start = 0
            while let next = stripes.withLock(i, { $0.drainHits(slotsFrom: start, limit: Self.scanChunk, into: &found) }) {
                start = next
            }
        }
        return found
    }

    /// Empties the cache; the counters keep counting (the entries count as removals).
    public func removeAll() {
        for i in 0..<stripeCount {
            let dropped = stripes.withLock(i) { $0.clear() }
            withExtendedLifetime(dropped) {}
        }
    }

    public var stats: MemoryCacheStats {
        var stats = MemoryCacheStats(maxEntries: limits.maxEntries, maxBytes: limits.maxBytes, stripes: stripeCount)
        for i in 0..<stripeCount {
            stripes.withLock(i) { state in
                stats.entries += state.count
                stats.bytes += state.bytes
                stats.hits += state.counters.hits
                stats.misses += state.counters.misses
                stats.insertions += state.counters.insertions
                stats.replacements += state.counters.replacements
                stats.evictions += state.counters.evictions
                stats.removals += state.counters.removals
                stats.rejections += state.counters.rejections
            }
        }
        return stats
    }

    /// The largest entry a stripe can hold (the smallest stripe's byte share); larger `set`s are refused.
    public var maxEntryBytes: Int { limits.maxBytes / stripeCount }

    /// Every entry's key and size, most recently used first within each stripe, stripe by stripe.
    /// O(entries); for inspection, not for the request path.
    public func entries() -> [(key: CacheKey, size: Int)] {
        var result: [(key: CacheKey, size: Int)] = []
        for i in 0..<stripeCount {
            let part = stripes.withLock(i) { $0.listed() }
            result += part
        }
        return result
    }

    /// Walks every stripe's bookkeeping (list links, dictionary, free list, byte and entry totals,
    /// limits) and describes whatever does not agree; empty when all is well. O(entries); for tests
    /// and `cache verify`.
    public func consistencyProblems() -> [String] {
        var problems: [String] = []
        for index in 0..<stripeCount {
            problems += stripes.withLock(index) { $0.problems() }.map { "stripe \(index): \($0)" }
        }
        return problems
    }

    /// Slots examined per lock hold by `removeAll(url:)`.
    public static let scanChunk = 1024

    @inline(__always)
    private func stripeIndex(for digest: SHA256Digest) -> Int {
        // Bits of the digest's second word pick the stripe; the dictionary inside hashes the first
        // word through the seeded Hasher, so the two choices do not correlate.
        Int(truncatingIfNeeded: digest.w1) & mask
    }

    static func powerOfTwo(atLeast n: Int) -> Int {
        var p = 1
        while p < n { p <<= 1 }
        return p
    }

    static func defaultStripeCount(for limits: MemoryCacheLimits, cores: Int) -> Int {
        var count = min(256, max(16, powerOfTwo(atLeast: 4 * max(1, cores))))
        while count > 1 && (limits.maxEntries / count < 16 || limits.maxBytes / count < 1 << 20) {
            count >>= 1
        }
        return count
    }

    /// Stripe `index`'s part of `total`: the remainder goes one apiece to the first stripes, so the
    /// parts add up to `total` exactly.
    static func share(of total: Int, stripe index: Int, of count: Int) -> Int {
        total / count + (index < total % count ? 1 : 0)
    }
}
