import HTTPTypes
import Hummingbird
import NIOCore
import ThumbCache
import ThumbPipeline

/// `GET /v1/thumbnail`: a fresh cache hit is answered on the spot; anything else joins the job
/// that makes it, and leaves it if the client disconnects first.
struct ThumbnailRoute: Sendable {
    let pipeline: ThumbnailPipeline
    let settings: ServerSettings
    let signer: URLSigner?
    let metrics: ServerMetrics
    private let cacheControl: String

    init(pipeline: ThumbnailPipeline, settings: ServerSettings, metrics: ServerMetrics) {
        self.pipeline = pipeline
        self.settings = settings
        signer = settings.signingKey.map(URLSigner.init(key:))
        self.metrics = metrics
        cacheControl = "public, max-age=\(settings.cacheMaxAgeSeconds)"
    }

    func handle(_ request: Request) async throws -> Response {
        let query = try ThumbnailQuery(QueryParameters(request.uri.query), settings: settings, signer: signer)
        let spec = query.spec(accept: request.headers[.accept])
        let key = CacheKey(url: query.url, variant: spec.variant)
        let result: PipelineResult
        let hit = pipeline.cache.get(key)
        if let hit, !hit.isStale {
            result = PipelineResult(hit)
        } else {
            do {
                // A client that goes away cancels this wait (and the job, if no one else waits for it).
                result = try await request.body.consumeWithCancellationOnInboundClose { _ in
                    try await pipeline.make(key, spec: spec, priority: .interactive, stale: hit)
                }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                var problem = Problem.from(error, retryAfter: settings.retryAfterSeconds)
                problem.closesConnection = true
                throw problem
            }
        }
        metrics.served(result.source)
        var response = response(result, request: request, variesByAccept: query.format == .auto)
        // Watching for the client going away consumes the connection's request stream, so the
        // server closes the connection after this response; saying so keeps clients from
        // sending their next request on it.
        if hit == nil || hit?.isStale == true { response.headers[.connection] = "close" }
        return response
    }

    private func response(_ result: PipelineResult, request: Request, variesByAccept: Bool) -> Response {
        let etag = "\"\(result.checksum.prefix(32))\""
        var headers = HTTPFields()
        headers.reserveCapacity(6)
        headers[.contentType] = result.contentType
        headers[.eTag] = etag
        headers[.cacheControl] = cacheControl
        headers[.xCache] = result.source.rawValue
        if variesByAccept { headers[.vary] = "Accept" }
        if result.revalidated { headers[.xCacheRevalidated] = "304" }
        if result.servedStale { headers[.staleWarning] = "110 thumbd \"Response is Stale\"" }
        if let ifNoneMatch = request.headers[.ifNoneMatch], Self.matches(ifNoneMatch, etag) {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: result.bytes)))
    }

    /// RFC 9110 weak comparison over a list of tags, or `*`.
    static func matches(_ header: String, _ etag: String) -> Bool {
        for candidate in header.split(separator: ",") {
            var tag = candidate.drop { $0 == " " }
            while tag.last == " " { tag = tag.dropLast() }
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if tag == etag { return true }
        }
        return false
    }
}

extension HTTPField.Name {
    static let xCache = HTTPField.Name("X-Cache")!
    static let xCacheRevalidated = HTTPField.Name("X-Cache-Revalidated")!
    static let staleWarning = HTTPField.Name("Warning")!
}
