import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The index as listings, pages and statistics.
extension DiskCache {
    // MARK: Listing and statistics

    /// Entries, filtered by host (exact, case-insensitive) and URL substring (case-insensitive),
    /// in the given order, paged with `limit` and `offset`.
    public func entries(sortedBy order: CacheEntryOrder = .lastAccess, host: String? = nil, urlContains: String? = nil,
                        limit: Int? = nil, offset: Int = 0) throws(CacheError) -> [CacheEntry] {
        let rows = try queryIndex { try $0.list(order: order, host: host, urlContains: urlContains, limit: limit, offset: offset) }
        return rows.compactMap { row in row.key.map { row.entry(key: $0, layout: layout) } }
    }

    /// One page of the listing (see `CacheEntryQuery`), with the total that passes its filters.
    public func page(_ query: CacheEntryQuery) throws(CacheError) -> CacheEntryPage {
        let page = try queryIndex { try $0.page(query) }
        var entries: [CacheEntry] = [], cursors: [CacheEntryCursor] = []
        for (row, cursor) in zip(page.rows, page.cursors) {
            guard let key = row.key else { continue }
            entries.append(row.entry(key: key, layout: layout))
            cursors.append(cursor)
        }
        return CacheEntryPage(entries: entries, variants: page.variants, total: page.total, offset: page.offset,
                              previous: page.offset > 0 ? cursors.first : nil,
                              next: page.offset + page.rows.count < page.total ? cursors.last : nil)
    }

    /// Hosts by number of entries, most first.
    public func hosts(limit: Int = 200) throws(CacheError) -> [CacheHostUsage] {
        try queryIndex { try $0.hosts(limit: limit) }
    }

    /// Every stored variant (and the original) of one URL.
    public func variants(of url: NormalizedURL) throws(CacheError) -> [CacheEntry] {
        let rows = try queryIndex { try $0.rows(url: url.value) }
        return rows.compactMap { row in row.key.map { row.entry(key: $0, layout: layout) } }
    }

    public func stats() throws(CacheError) -> DiskCacheStats {
        let now = clock.seconds
        let ttl = limits.ttl.secondsValue
        let (aggregate, indexBytes) = try queryIndex { index in (try index.aggregate(staleBefore: now - ttl), index.fileBytes) }
        let counters: DiskCounters
        if mode == .owner {
            counters = state.withLock { $0.counters }
        } else {
            counters = try queryIndex { try $0.counters() }
        }
        return DiskCacheStats(
            directory: layout.root,
            thumbnails: CacheTierUsage(entries: aggregate.thumbnails.entries, bytes: aggregate.thumbnails.bytes, maxBytes: limits.maxBytes),
            originals: CacheTierUsage(entries: aggregate.originals.entries, bytes: aggregate.originals.bytes,
                                      maxBytes: limits.originalsMaxBytes),
            ttlSeconds: ttl, staleEntries: aggregate.stale,
            oldestCreated: aggregate.oldestCreated.map(Date.init(timeIntervalSince1970:)),
            newestCreated: aggregate.newestCreated.map(Date.init(timeIntervalSince1970:)),
            leastRecentAccess: aggregate.leastRecentAccess.map(Date.init(timeIntervalSince1970:)),
            topHosts: aggregate.topHosts, sizeHistogram: aggregate.histogram,
            hits: counters.hits, misses: counters.misses, evictions: counters.evictions, indexBytes: indexBytes)
    }

    /// Totals as the index last reported them (no SQL): what eviction works with.
    public var usage: (thumbnails: CacheTierUsage, originals: CacheTierUsage) {
        state.withLock { s in
            (CacheTierUsage(entries: s.totals.count(originals: false), bytes: s.totals.bytes(originals: false), maxBytes: limits.maxBytes),
             CacheTierUsage(entries: s.totals.count(originals: true), bytes: s.totals.bytes(originals: true), maxBytes: limits.originalsMaxBytes))
        }
    }

    /// Lookups and evictions since this process opened the cache (no SQL; for metrics).
    public var activity: (hits: Int, misses: Int, evictions: Int) {
        state.withLock { s in (s.counters.hits, s.counters.misses, s.counters.evictions) }
    }
}
