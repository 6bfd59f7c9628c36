import Foundation
import HTTPTypes
import Hummingbird
import ThumbCache
import ThumbFleet
import ThumbPipeline

/// The JSON the cache inspector's page reads: `/ui/api/overview` (header: tiers, activity,
/// downloads, prefetch jobs, the last hour), `/ui/api/entries` (a page of the grid),
/// `/ui/api/hosts` (the host filter), `/ui/api/session` (is this admin token good?), and
/// `/ui/files` (a cached file's bytes). Reading never counts a hit or moves an entry in the LRU:
/// looking at the cache does not change it.
struct InspectorAPI: Sendable {
    let pipeline: ThumbnailPipeline
    let prefetcher: Prefetcher
    let history: ActivityHistory
    let answers: AnswerTally
    let admin: AdminGuard

    private var cache: TwoTierCache { pipeline.cache }

    // MARK: Overview

    struct Overview: Encodable {
        struct Tier: Encodable {
            var entries: Int
            var bytes: Int
            var maxBytes: Int
            var maxEntries: Int?
        }

        struct Shared: Encodable {
            var location: String
            var counts: SharedTierCounts
        }

        struct Job: Encodable {
            var id: String
            var state: String
            var total: Int
            var finished: Int
            var failed: Int
            var elapsedSeconds: Double
        }

        var now: Double
        var adminEnabled: Bool
        var memory: Tier
        var disk: Tier?
        var originals: Tier?
        /// The fleet's shared result tier, when cache.shared names one.
        var shared: Shared?
        /// The trim of a disk cache found over its limits at start (absent when there was none).
        var trim: DiskTrimProgress?
        var activity: CacheActivity
        var hitRatio: Double?
        var lastHourHitRatio: Double?
        var downloadsInFlight: Int
        var jobsInFlight: Int
        var queuedForCPU: Int
        var prefetch: [Job]
        var intervalSeconds: Double
        var history: [ActivityHistory.Sample]
    }

    func overview() throws -> Response {
        let memory = cache.memory.stats
        let usage = cache.disk?.usage
        let samples = history.samples
        let lastHour = samples.reduce(CacheActivity()) { $0 + $1.activity }
        let activity = CacheActivity(cache, answers: answers.counts)
        let jobs = prefetcher.list().map { job in
            Overview.Job(id: job.id, state: job.state.rawValue, total: job.total, finished: job.total - job.remaining,
                         failed: job.failed, elapsedSeconds: job.elapsedSeconds)
        }
        return try JSONResponse.make(Overview(
            now: Date().timeIntervalSince1970, adminEnabled: admin.token != nil,
            memory: .init(entries: memory.entries, bytes: memory.bytes, maxBytes: memory.maxBytes, maxEntries: memory.maxEntries),
            disk: usage.map { .init(entries: $0.thumbnails.entries, bytes: $0.thumbnails.bytes, maxBytes: $0.thumbnails.maxBytes) },
            originals: usage.map { .init(entries: $0.originals.entries, bytes: $0.originals.bytes, maxBytes: $0.originals.maxBytes) },
            shared: pipeline.shared.map { .init(location: $0.settings.description, counts: $0.counts) },
            trim: cache.disk.map(\.trimProgress).flatMap { $0.bytesOverAtStart > 0 ? $0 : nil },
            activity: activity, hitRatio: activity.hitRatio, lastHourHitRatio: lastHour.hitRatio,
            downloadsInFlight: pipeline.downloader.inFlight, jobsInFlight: pipeline.jobsInFlight, queuedForCPU: pipeline.pool.queued,
            prefetch: jobs, intervalSeconds: history.interval.secondsValue,
            history: samples))
    }

    // MARK: Entries

    struct Listing: Encodable {
        struct Entry: Encodable {
            var url: String
            var host: String
            var variant: String
            var kind: String
            var size: Int
            var contentType: String?
            var created: Double
            var lastAccess: Double
            var hits: Int
            var stale: Bool
            var inMemory: Bool
            /// Every variant held for this URL, this one among them.
            var variants: [String]
            /// Where the page loads the picture from.
            var image: String
        }

        var now: Double
        var diskTier: Bool
        var entries: [Entry]
        var total: Int
        var offset: Int
        var limit: Int
        var sort: String
        var reversed: Bool
        var previous: String?
        var next: String?
        var milliseconds: Double
    }

    /// `sort` (size, age, hits, lastAccess, evictionOrder), `reverse=1`, `host`, `q` (URL text),
    /// `kind` (thumbnail, original), `limit` (1…200, default 60), and one of `after=CURSOR`,
    /// `before=CURSOR`, `at=last`.
    func entries(_ request: Request) async throws -> Response {
        let query = try Self.entryQuery(QueryParameters(request.uri.query))
        guard let disk = cache.disk else {
            return try JSONResponse.make(Listing(now: Date().timeIntervalSince1970, diskTier: false, entries: [], total: 0, offset: 0,
                                                 limit: query.limit, sort: query.order.rawValue, reversed: query.reversed,
                                                 previous: nil, next: nil, milliseconds: 0))
        }
        let (memory, ttl) = (cache.memory, cache.ttl)
        let listing = try await CacheQueries.run { () throws(CacheError) -> Listing in
            let start = ContinuousClock.now
            let page = try disk.page(query)
            let now = Date()
            let entries = page.entries.map { entry in
                let variants = page.variants[entry.url.value] ?? [entry.variant.description]
                return Listing.Entry(url: entry.url.value, host: entry.url.host, variant: entry.variant.description,
                              kind: entry.isOriginal ? "original" : "thumbnail", size: entry.size, contentType: entry.contentType,
                              created: entry.created.timeIntervalSince1970, lastAccess: entry.lastAccess.timeIntervalSince1970,
                              hits: entry.hits, stale: entry.isStale(ttl: ttl, now: now), inMemory: memory.contains(entry.key),
                              variants: variants, image: Self.imagePath(entry, variants: variants))
            }
            return Listing(now: now.timeIntervalSince1970, diskTier: true, entries: entries, total: page.total, offset: page.offset,
                           limit: query.limit, sort: query.order.rawValue, reversed: query.reversed,
                           previous: page.previous?.description, next: page.next?.description,
                           milliseconds: (ContinuousClock.now - start).secondsValue * 1000)
        }
        return try JSONResponse.make(listing)
    }

    static func entryQuery(_ parameters: QueryParameters) throws -> CacheEntryQuery {
        try parameters.refuseOthers(than: ["sort", "reverse", "host", "q", "kind", "limit", "after", "before", "at"])
        let order = try parameters.order()
        var kind: CacheEntryQuery.Kind?
        if let text = parameters["kind"], !text.isEmpty {
            guard let value = CacheEntryQuery.Kind(rawValue: text) else { throw Problem.badParameter("kind must be thumbnail or original") }
            kind = value
        }
        let limit = try parameters.int("limit") ?? 60
        guard (1...200).contains(limit) else { throw Problem.badParameter("limit must be 1…200") }
        let position: CacheEntryQuery.Position
        switch (parameters["after"], parameters["before"], parameters["at"]) {
        case (nil, nil, nil), (nil, nil, "first"): position = .first
        case (nil, nil, "last"): position = .last
        case (let text?, nil, nil):
            guard let cursor = CacheEntryCursor(text) else { throw Problem.badParameter("after is not a cursor this listing gave out") }
            position = .after(cursor)
        case (nil, let text?, nil):
            guard let cursor = CacheEntryCursor(text) else { throw Problem.badParameter("before is not a cursor this listing gave out") }
            position = .before(cursor)
        default:
            throw Problem.badParameter("give at most one of after=CURSOR, before=CURSOR, at=first|last")
        }
        let reverse = parameters["reverse"]
        guard reverse == nil || ["0", "1", "true", "false"].contains(reverse!) else { throw Problem.badParameter("reverse must be 1 or 0") }
        return CacheEntryQuery(order: order, reversed: reverse == "1" || reverse == "true",
                               host: parameters["host"].flatMap { $0.isEmpty ? nil : $0 },
                               urlContains: parameters["q"].flatMap { $0.isEmpty ? nil : $0 }, kind: kind, limit: limit, position: position)
    }

    /// The picture for a card: the entry itself, or for an original the smallest thumbnail of the
    /// same URL when there is one (an original can be megabytes).
    static func imagePath(_ entry: CacheEntry, variants: [String]) -> String {
        var shown = entry.variant
        if entry.isOriginal, let smallest = variants.compactMap(CacheVariant.init).filter({ !$0.isOriginal }).min(by: { $0.size < $1.size }) {
            shown = smallest
        }
        return "/ui/files?" + CanonicalQuery.write([("url", entry.url.value), ("variant", shown.description)])
    }

    // MARK: Hosts, session, files

    func hosts() async throws -> Response {
        guard let disk = cache.disk else { return try JSONResponse.make([CacheHostUsage]()) }
        let hosts = try await CacheQueries.run { () throws(CacheError) in try disk.hosts(limit: 500) }
        return try JSONResponse.make(hosts)
    }

    /// 204 when the request's bearer token is the admin token; the page then shows its evict buttons.
    func session(_ request: Request) throws -> Response {
        try admin.check(request)
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    /// A cached file's bytes, checked against the index's size, without counting a hit.
    func file(_ request: Request) async throws -> Response {
        let parameters = QueryParameters(request.uri.query)
        guard let urlText = parameters["url"], let variantText = parameters["variant"] else {
            throw Problem.badParameter("url and variant are required")
        }
        let url: NormalizedURL
        do { url = try NormalizedURL(urlText) } catch { throw Problem(.badRequest, code: "invalid_url", detail: error.message) }
        guard let variant = CacheVariant(variantText) else { throw Problem.badParameter("variant must look like 200/cover/jpeg/q82 or 300x400/pad/jpeg/q82/bg=ffffff (docs/variant.md)") }
        guard let disk = cache.disk else { throw Problem.notFound("the disk tier is off, so no files are kept") }
        let key = CacheKey(url: url, variant: variant)
        let found = try await CacheQueries.run { () throws(CacheError) in try disk.read(key, .bytes, countingHit: false) }
        guard let entry = found?.entry, let bytes = found?.bytes else { throw Problem.notFound("the cache holds no \(variant) of that URL") }
        // Revalidated on every view (a 304 costs no body): an entry replaced since shows its new bytes.
        var headers = HTTPFields()
        let etag = "\"\(entry.checksum)\""
        headers[.cacheControl] = "private, no-cache"
        headers[.eTag] = etag
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) == true {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = entry.contentType ?? "application/octet-stream"
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
