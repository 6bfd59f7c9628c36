import Foundation
import Hummingbird
import ThumbCache
import ThumbPipeline

/// `GET /v1/cache/stats`, `GET /v1/cache/entries`, `DELETE /v1/cache/entries?url=[&variant=]|host=` (admin).
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

    func stats() async throws -> Response {
        let tier = cache.disk
        let disk = try await CacheQueries.run { () throws(CacheError) in try tier?.stats() }
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
    func entries(_ request: Request) async throws -> Response {
        let query = QueryParameters(request.uri.query)
        guard let disk = cache.disk else {
            return try JSONResponse.make(Listing(entries: [], sort: "lastAccess", limit: 0, offset: 0))
        }
        let order = try query.order()
        let limit = try query.int("limit") ?? 100
        let offset = try query.int("offset") ?? 0
        guard (1...1000).contains(limit), offset >= 0 else { throw Problem.badParameter("limit must be 1…1000 and offset at least 0") }
        let (host, text) = (query["host"], query["q"])
        let rows = try await CacheQueries.run { () throws(CacheError) in
            try disk.entries(sortedBy: order, host: host, urlContains: text, limit: limit, offset: offset)
        }
        return try JSONResponse.make(Listing(entries: rows, sort: order.rawValue, limit: limit, offset: offset))
    }

    /// Removes one entry (`?url=&variant=`), every variant of a URL (`?url=`), or every entry of a
    /// host (`?host=`), from both tiers.
    /// A host as the listing writes it: a name or IPv4 address (letters, digits, dots, dashes) or
    /// a bracketed IPv6 address, then `:port` (1 to 5 digits) when it is not the scheme's default.
    static func isListedHost(_ text: String) -> Bool {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        var name = Substring(text), port: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return false }
            let inside = text[text.index(after: text.startIndex)..<close]
            guard !inside.isEmpty, inside.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }) else { return false }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || rest.first == ":" else { return false }
            name = "x"
            port = rest.isEmpty ? nil : rest.dropFirst()
        } else {
            name = parts[0]
            port = parts.count == 2 ? parts[1] : nil
        }
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else { return false }
        if let port { return (1...5).contains(port.count) && port.allSatisfy { $0.isASCII && $0.isNumber } }
        return true
    }

    func evict(_ request: Request) async throws -> Response {
        try admin.check(request)
        let query = QueryParameters(request.uri.query)
        try query.refuseOthers(than: ["url", "variant", "host"])
        let scope: CacheScope
        switch (query["url"], query["host"]) {
        case (let text?, nil) where !text.isEmpty:
            let url: NormalizedURL
            // A presigned URL names its object's entries, as its key does.
            do { url = pipeline.keyed(try NormalizedURL(text)).key } catch { throw Problem(.badRequest, code: "invalid_url", detail: error.message) }
            if let variantText = query["variant"] {
                guard let variant = CacheVariant(variantText) else { throw Problem.badParameter("variant must look like 200/cover/jpeg/q82 or 300x400/pad/jpeg/q82/bg=ffffff (docs/variant.md)") }
                scope = .entry(CacheKey(url: url, variant: variant))
            } else {
                scope = .url(url)
            }
        case (nil, let host?) where !host.isEmpty && query["variant"] == nil:
            // As the listing shows hosts: lower-case, with ":port" when it is not the scheme's default.
            guard Self.isListedHost(host) else {
                throw Problem.badParameter("host must be a host name as the listing shows it (with :port if any), not \"\(host)\"")
            }
            scope = .host(host.lowercased())
        default:
            throw Problem.badParameter("give url (and variant for one entry) or host: DELETE /v1/cache/entries?url=…[&variant=…] or ?host=…")
        }
        let removed = cache.removeAll(scope)
        var body: [String: AnyEncodable] = ["removed": AnyEncodable(removed)]
        switch scope {
        case .entry(let key):
            body["url"] = AnyEncodable(key.url.value)
            body["variant"] = AnyEncodable(key.variant.description)
        case .url(let url): body["url"] = AnyEncodable(url.value)
        case .host(let host): body["host"] = AnyEncodable(host)
        }
        // The shared tier's objects of the URL go too, so the next request on any node makes it
        // anew. Its objects are not grouped by host: a host's eviction stays local.
        if let shared = pipeline.shared {
            do {
                switch scope {
                case .entry(let key): body["shared_removed"] = AnyEncodable(try await shared.evict(key))
                case .url(let url): body["shared_removed"] = AnyEncodable(try await shared.evict(url))
                case .host: break
                }
            } catch {
                body["shared_error"] = AnyEncodable("the shared tier could not be reached: \(error)")
            }
        }
        return try JSONResponse.make(body)
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
