import Foundation
import Hummingbird
import ThumbCache
import ThumbPipeline

/// `GET /v1/cache/stats`, `GET /v1/cache/entries`, `DELETE /v1/cache/entries?url=` (admin).
struct CacheRoutes: Sendable {
    let pipeline: ThumbnailPipeline
    let admin: AdminGuard

    private var cache: TwoTierCache { pipeline.cache }

    struct Stats: Encodable {
        struct Pipeline: Encodable {
            var jobsInFlight: Int
            var downloadsInFlight: Int
            var queuedForCPU: Int
            var workerThreads: Int
        }
        var memory: MemoryCacheStats
        var disk: DiskCacheStats?
        var pipeline: Pipeline
    }

    func stats() throws -> Response {
        let disk: DiskCacheStats?
        do { disk = try cache.disk?.stats() } catch { throw Problem(.internalServerError, code: "cache_error", detail: "\(error)") }
        return try JSONResponse.make(Stats(
            memory: cache.memory.stats, disk: disk,
            pipeline: .init(jobsInFlight: pipeline.jobsInFlight, downloadsInFlight: pipeline.downloader.inFlight,
                            queuedForCPU: pipeline.pool.queued, workerThreads: pipeline.pool.threadCount)))
    }

    struct Listing: Encodable {
        var entries: [CacheEntry]
        var sort: String
        var limit: Int
        var offset: Int
    }

    /// `sort` (lastAccess, size, created, hits…), `host`, `q` (URL text), `limit` (1…1000, default 100), `offset`.
    func entries(_ request: Request) throws -> Response {
        let query = QueryParameters(request.uri.query)
        guard let disk = cache.disk else {
            return try JSONResponse.make(Listing(entries: [], sort: "lastAccess", limit: 0, offset: 0))
        }
        let sortText = query["sort"] ?? CacheEntryOrder.lastAccess.rawValue
        guard let order = CacheEntryOrder(rawValue: sortText) else {
            throw Problem.badParameter("sort must be one of \(CacheEntryOrder.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let limit = try query.int("limit") ?? 100
        let offset = try query.int("offset") ?? 0
        guard (1...1000).contains(limit), offset >= 0 else { throw Problem.badParameter("limit must be 1…1000 and offset at least 0") }
        do {
            let rows = try disk.entries(sortedBy: order, host: query["host"], urlContains: query["q"], limit: limit, offset: offset)
            return try JSONResponse.make(Listing(entries: rows, sort: order.rawValue, limit: limit, offset: offset))
        } catch let error as CacheError {
            throw Problem(.internalServerError, code: "cache_error", detail: "\(error)")
        }
    }

    /// Removes every variant of `url` from both tiers.
    func evict(_ request: Request) throws -> Response {
        try admin.check(request)
        let query = QueryParameters(request.uri.query)
        guard let text = query["url"], !text.isEmpty else { throw Problem.badParameter("url is required: DELETE /v1/cache/entries?url=…") }
        let url: NormalizedURL
        do { url = try NormalizedURL(text) } catch { throw Problem(.badRequest, code: "invalid_url", detail: error.message) }
        let removed = cache.removeAll(url: url)
        return try JSONResponse.make(["url": AnyEncodable(url.value), "removed": AnyEncodable(removed)])
    }
}

struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

enum JSONResponse {
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}
