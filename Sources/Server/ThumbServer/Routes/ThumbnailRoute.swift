import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import ThumbCache
import ThumbFleet
import ThumbPipeline
import ThumbVariant

/// `GET /v1/thumbnail`: the route asks the pipeline for the thumbnail (`ThumbnailPipeline.thumbnail`:
/// a fresh hit, or the job that makes it, left if the client disconnects first) and writes the answer.
///
/// Fresh hits usually never get here: `ThumbnailFastPath` answers them inside the connection's
/// NIO pipeline. This route serves what the fast path passes on (misses, stale entries, errors,
/// pipelined requests), with the same parsing and the same headers.
struct ThumbnailRoute: Sendable {
    let pipeline: ThumbnailPipeline
    let settings: ServerSettings
    let metrics: ServerMetrics
    let queries: ThumbnailQueryMemo
    private let prepared = PreparedHits()
    private let cacheControl: String

    init(pipeline: ThumbnailPipeline, settings: ServerSettings, metrics: ServerMetrics) {
        self.pipeline = pipeline
        self.settings = settings
        self.metrics = metrics
        queries = ThumbnailQueryMemo(settings: settings, keyed: { [pipeline] in pipeline.keyed($0) })
        cacheControl = "public, max-age=\(settings.cacheMaxAgeSeconds)"
    }

    func handle(_ request: Request, context: ThumbdRequestContext) async throws -> Response {
        let parsed = try queries.parse(request.uri.query)
        guard let target = parsed.target(accept: request.headers[.accept]) else { throw Problem.notAcceptable }
        // A client that goes away cancels this wait (and the job, if no one else waits for it).
        let wait = await ClientWait(request, context: context)
        let result: PipelineResult
        do {
            let (pipeline, priority, signed) = (pipeline, Self.priority(of: request), parsed.signed)
            result = try await wait.run { try await pipeline.thumbnail(target, priority: priority, signed: signed) }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if let answer = try await fallback(for: error, target: target, variesByAccept: parsed.variesByAccept,
                                               priority: Self.priority(of: request), wait: wait) {
                return answer
            }
            var problem = Problem.from(error, retryAfter: settings.retryAfterSeconds)
            problem.closesConnection = wait.closesConnection
            throw problem
        }
        metrics.served(result.source)
        var (status, headers) = head(result, ifNoneMatch: request.headers[.ifNoneMatch], variesByAccept: parsed.variesByAccept)
        // Saying so keeps clients from sending their next request on a connection about to close.
        if wait.closesConnection { headers[.connection] = "close" }
        guard status == .ok else { return Response(status: status, headers: headers) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: result.bytes)))
    }

    /// The fallback picture in the asked variant, when one is configured and `error` means the photo
    /// cannot be had (`FallbackPicture.standsIn`); nil keeps the problem document. Its status is
    /// `server.fallback_status`, its max-age short, and `X-Thumbd-Error` names why.
    private func fallback(for error: any Error, target: KeyedVariant, variesByAccept: Bool, priority: WorkPriority,
                          wait: ClientWait) async throws -> Response? {
        guard let picture = settings.fallback.picture(forPreset: target.variant.preset), let code = FallbackPicture.standsIn(for: error) else { return nil }
        let pipeline = pipeline
        let made: PipelineResult
        do { made = try await wait.run { try await pipeline.fallback(picture, for: target, priority: priority) } } catch is CancellationError {
            throw CancellationError()
        } catch {
            return nil  // the picture could not be made in this variant: the photo's problem is the answer
        }
        metrics.fellBack(code)
        var headers = HTTPFields()
        headers[.contentType] = made.contentType
        headers[.cacheControl] = "public, max-age=\(settings.fallback.maxAgeSeconds)"
        headers[.xThumbdError] = code
        headers[.xCache] = "fallback"
        if variesByAccept { headers[.vary] = "Accept" }
        if wait.closesConnection { headers[.connection] = "close" }
        return Response(status: HTTPResponse.Status(code: settings.fallback.status), headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: made.bytes)))
    }

    /// A fleet's prefetch items arrive through the balancer like any request; they say so, and wait
    /// behind the requests someone is looking at.
    static func priority(of request: Request) -> WorkPriority {
        request.headers[.thumbdPriority] == "prefetch" ? .prefetch : .interactive
    }

    /// A fresh cache hit as ready NIO response parts, or nil when the request needs the full route
    /// (a miss, a stale entry, a bad parameter: the route makes the error document). The one
    /// answerer of fresh hits, for the raw path and NIO's parsed path alike: each passes the
    /// query it has (the text after `?`).
    func freshHit(query: String?, accept: String?, ifNoneMatch: String?, version: HTTPVersion, keepAlive: Bool) -> FastHit? {
        guard let (parsed, remembered) = try? queries.lookUp(query) else { return nil }
        let hit = freshHit(parsed, accept: accept, ifNoneMatch: ifNoneMatch, version: version, keepAlive: keepAlive)
        if hit != nil, !remembered { queries.remember(query, parsed) }
        return hit
    }

    private func freshHit(_ parsed: ThumbnailQueryMemo.Parsed, accept: String?, ifNoneMatch: String?, version: HTTPVersion,
                          keepAlive: Bool) -> FastHit? {
        guard !parsed.confirmsHits, let key = parsed.target(accept: accept)?.key else { return nil }
        let (second, date) = HTTPDate.current
        let hit: CacheHit
        switch pipeline.servable(key, readingUpTo: Self.sentUnreadFrom - 1) {
        case nil:
            return nil
        case .file(let file)?:
            return fileHit(file, key: key, parsed: parsed, ifNoneMatch: ifNoneMatch, date: (second, date), version: version,
                           keepAlive: keepAlive)
        case .bytes(let found)?:
            hit = found
        }
        guard !hit.isStale else { return nil }
        metrics.served(hit.tier == .memory ? .memory : .disk)
        // Reused only for the common case: HTTP/1.1 keep-alive, no conditional header.
        let reusable = ifNoneMatch == nil && keepAlive && version == .http1_1
        if reusable, let prepared = prepared.lookup(key, tier: hit.tier, checksum: hit.metadata?.checksum, second: second) {
            // A disk hit sends the bytes it has just read; a memory hit, the buffer made for them.
            return FastHit(head: prepared.head, body: hit.tier == .memory ? prepared.body : ByteBuffer(bytes: hit.bytes),
                           tier: hit.tier.rawValue, headBytes: prepared.headBytes)
        }
        let (status, responseHead) = nioHead(PipelineResult(hit), length: hit.bytes.count, ifNoneMatch: ifNoneMatch,
                                             variesByAccept: parsed.variesByAccept, date: date, version: version, keepAlive: keepAlive)
        guard status == .ok else { return FastHit(head: responseHead, body: nil, tier: hit.tier.rawValue) }
        let body = ByteBuffer(bytes: hit.bytes)
        if reusable, let checksum = hit.metadata?.checksum {
            let entry = PreparedHits.Entry(checksum: checksum, tier: hit.tier, second: second, head: responseHead, body: body)
            prepared.store(key, entry)
            return FastHit(head: responseHead, body: body, tier: hit.tier.rawValue, headBytes: entry.headBytes)
        }
        return FastHit(head: responseHead, body: body, tier: hit.tier.rawValue)
    }

    /// Disk files from this size on are sent unread (sendfile); smaller ones, nearly every
    /// thumbnail, are read through the cache's kept descriptor and leave with their head in one
    /// write: sendfile after the head's write would cost a second trip through the TCP stack, and
    /// opening the file by path for it more than the read (`thumbd-bench serve` measured 0.60x
    /// nginx's disk hits that way).
    static let sentUnreadFrom = 64 << 10

    /// A disk hit from its checked file: its bytes as read, or the file itself (sendfile) from
    /// `sentUnreadFrom` on. nil if the file cannot be opened (removed a moment ago): the full
    /// route then looks again.
    private func fileHit(_ file: DiskRead, key: CacheKey, parsed: ThumbnailQueryMemo.Parsed, ifNoneMatch: String?,
                         date: (second: Int, text: String), version: HTTPVersion, keepAlive: Bool) -> FastHit? {
        guard !file.isStale else { return nil }
        metrics.served(.disk)
        let reusable = ifNoneMatch == nil && keepAlive && version == .http1_1
        let status: HTTPResponse.Status
        let responseHead: HTTPResponseHead
        var headBytes: ByteBuffer?
        if reusable, let prepared = prepared.lookup(key, tier: .disk, checksum: file.entry.metadata.checksum, second: date.second) {
            (status, responseHead, headBytes) = (.ok, prepared.head, prepared.headBytes)
        } else {
            let result = PipelineResult(bytes: [], contentType: file.entry.contentType ?? "application/octet-stream",
                                        checksum: file.entry.checksum, source: .disk, photo: file.entry.metadata.photo)
            (status, responseHead) = nioHead(result, length: file.entry.size, ifNoneMatch: ifNoneMatch, variesByAccept: parsed.variesByAccept,
                                             date: date.text, version: version, keepAlive: keepAlive)
            if reusable, status == .ok {
                let entry = PreparedHits.Entry(checksum: file.entry.metadata.checksum, tier: .disk, second: date.second,
                                               head: responseHead, body: ByteBuffer())
                prepared.store(key, entry)
                headBytes = entry.headBytes
            }
        }
        guard status == .ok else { return FastHit(head: responseHead, body: nil, tier: "disk") }
        if file.entry.size < Self.sentUnreadFrom {
            return FastHit(head: responseHead, body: ByteBuffer(bytes: file.bytes), tier: "disk", headBytes: headBytes)
        }
        let descriptor = open(file.entry.filePath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
        return FastHit(head: responseHead, body: nil, tier: "disk", headBytes: headBytes,
                       file: FileRegion(fileHandle: handle, readerIndex: 0, endIndex: file.entry.size), fileHandle: handle)
    }

    /// NIO's response head: the route's headers, plus what the framework adds to its own responses
    /// (Date, Server) and HTTP/1.0's keep-alive or close.
    private func nioHead(_ result: PipelineResult, length: Int, ifNoneMatch: String?, variesByAccept: Bool, date: String,
                         version: HTTPVersion, keepAlive: Bool) -> (HTTPResponse.Status, HTTPResponseHead) {
        let (status, fields) = head(result, length: length, ifNoneMatch: ifNoneMatch, variesByAccept: variesByAccept)
        var headers = HTTPHeaders()
        headers.reserveCapacity(fields.count + 3)
        for field in fields { headers.add(name: field.name.rawName, value: field.value) }
        headers.add(name: "Date", value: date)
        headers.add(name: "Server", value: "thumbd")
        if !keepAlive {
            headers.add(name: "Connection", value: "close")
        } else if version.minor == 0 {
            headers.add(name: "Connection", value: "keep-alive")
        }
        return (status, HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: status.code), headers: headers))
    }

    /// The status (200, or 304 for a matching If-None-Match) and headers for `result`.
    func head(_ result: PipelineResult, length: Int? = nil, ifNoneMatch: String?, variesByAccept: Bool) -> (HTTPResponse.Status, HTTPFields) {
        let etag = "\"\(result.checksum.prefix(32))\""
        var headers = HTTPFields()
        headers.reserveCapacity(9)
        headers[.contentType] = result.contentType
        headers[.eTag] = etag
        headers[.cacheControl] = cacheControl
        headers[.xCache] = result.source.rawValue
        if variesByAccept { headers[.vary] = "Accept" }
        if result.revalidated { headers[.xCacheRevalidated] = "304" }
        if result.servedStale { headers[.staleWarning] = "110 thumbd \"Response is Stale\"" }
        // Only when the photo was not sRGB already: converted from its profile, or its profile ignored.
        if let color = result.photo?.color { headers[.xThumbdColor] = color }
        if let ifNoneMatch, Self.matches(ifNoneMatch, etag) { return (.notModified, headers) }
        headers[.contentLength] = String(length ?? result.bytes.count)
        return (.ok, headers)
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
    static let xThumbdColor = HTTPField.Name("X-Thumbd-Color")!
    static let xThumbdError = HTTPField.Name("X-Thumbd-Error")!
    static let staleWarning = HTTPField.Name("Warning")!
    static let thumbdPriority = HTTPField.Name(EntryPointMaker.priorityHeader)!
}

/// A hit the fast path answers: NIO's response head and the body (none for 304), or the file to
/// send (closed once written).
struct FastHit {
    let head: HTTPResponseHead
    let body: ByteBuffer?
    let tier: String
    /// The head already encoded, when it was prepared for reuse (the raw hit path writes it as is).
    var headBytes: ByteBuffer? = nil
    var file: FileRegion? = nil
    var fileHandle: NIOFileHandle? = nil
}
