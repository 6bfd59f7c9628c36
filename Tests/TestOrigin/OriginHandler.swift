import NIOCore
import NIOHTTP1

/// Answers the requests of one connection from the routes, on the connection's event loop.
///
/// Sits after `configureHTTPServerPipeline`, whose pipelining handler hands over one request at a time
/// and holds the next until this response's `.end` was written.
final class OriginHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// One request and its response, from the request head until the response end was written.
    private struct Exchange {
        let id: Int
        let head: HTTPRequestHead
        let path: String
        let route: OriginRoute
    }

    /// What follows a response head.
    private enum BodyPlan {
        case none
        case bytes([UInt8])
        case stall(prefix: [UInt8])
        case truncated([UInt8])
        case endless(chunk: Int, every: Duration)
        case drip([UInt8], every: Duration)
        case sized(length: Int)
    }

    /// Pieces of a `.sized` body: a whole number of the 251-byte pattern, so every piece starts in phase.
    private static let sizedPieceLength = 251 * 256

    private let shared: OriginState
    private let connection: Int
    private var nextExchangeID = 0
    /// The request whose response is not fully sent yet; a client close while set is an early close.
    private var current: Exchange?
    private var pendingDelay: Scheduled<Void>?
    /// Set when the origin itself closes the connection, which is no early close.
    private var closedByServer = false

    init(shared: OriginState, connection: Int) {
        self.shared = shared
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            let (path, route) = self.shared.record(head, connection: self.connection)
            self.nextExchangeID += 1
            self.current = Exchange(id: self.nextExchangeID, head: head, path: path, route: route)
        case .body:
            ()  // request bodies are read and ignored
        case .end:
            guard let exchange = self.current else { return }
            self.start(exchange, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.pendingDelay?.cancel()
        self.pendingDelay = nil
        if let exchange = self.current, !self.closedByServer {
            self.shared.earlyClose(exchange.path)
        }
        self.current = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or broken pipe when the client went away, or anything else: the connection is done.
        context.close(promise: nil)
    }

    // MARK: - Responding

    private func start(_ exchange: Exchange, context: ChannelHandlerContext) {
        let (latency, route) = exchange.route.splitLatency()
        guard latency > .zero else {
            self.respond(exchange, route: route, context: context)
            return
        }
        self.pendingDelay = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(latency)) {
            self.pendingDelay = nil
            guard context.channel.isActive, self.current?.id == exchange.id else { return }
            self.respond(exchange, route: route, context: context)
        }
    }

    private func respond(_ exchange: Exchange, route: OriginRoute, extraHeaders: [OriginHeader] = [],
                         context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        let status: Int
        let plan: BodyPlan

        switch route {
        case let .body(bytes, contentType, etag, lastModified, _):
            if let etag { headers.add(name: "ETag", value: etag) }
            if let lastModified { headers.add(name: "Last-Modified", value: lastModified) }
            if Self.isNotModified(exchange.head.headers, etag: etag, lastModified: lastModified) {
                status = 304
                plan = .none
            } else {
                status = 200
                headers.add(name: "Content-Type", value: contentType)
                headers.add(name: "Content-Length", value: String(bytes.count))
                plan = .bytes(bytes)
            }
        case let .status(code, body):
            let bytes = Array(body.utf8)
            status = code
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Content-Length", value: String(bytes.count))
            plan = .bytes(bytes)
        case let .stall(prefix, contentLength):
            status = 200
            headers.add(name: "Content-Type", value: "application/octet-stream")
            headers.add(name: "Content-Length", value: String(contentLength))
            plan = .stall(prefix: prefix)
        case let .truncated(bytes, declaredLength):
            status = 200
            headers.add(name: "Content-Type", value: "application/octet-stream")
            headers.add(name: "Content-Length", value: String(declaredLength))
            plan = .truncated(bytes)
        case let .endless(chunk, every):
            status = 200
            headers.add(name: "Content-Type", value: "application/octet-stream")
            headers.add(name: "Transfer-Encoding", value: "chunked")
            plan = .endless(chunk: max(chunk, 1), every: every)
        case let .drip(bytes, every):
            status = 200
            headers.add(name: "Content-Type", value: "application/octet-stream")
            headers.add(name: "Content-Length", value: String(bytes.count))
            plan = .drip(bytes, every: every)
        case let .overlong(bytes, declaredLength):
            status = 200
            headers.add(name: "Content-Type", value: "image/jpeg")
            headers.add(name: "Content-Length", value: String(declaredLength))
            plan = .bytes(bytes)
        case let .sized(length, contentType):
            status = 200
            headers.add(name: "Content-Type", value: contentType)
            headers.add(name: "Content-Length", value: String(max(length, 0)))
            plan = .sized(length: max(length, 0))
        case let .redirect(to, code):
            status = code
            headers.add(name: "Location", value: to)
            headers.add(name: "Content-Length", value: "0")
            plan = .none
        case let .delayedStatus(code, _):
            self.respond(exchange, route: .status(code), extraHeaders: extraHeaders, context: context)
            return
        case let .delayed(_, inner):
            self.respond(exchange, route: inner, extraHeaders: extraHeaders, context: context)
            return
        case let .withHeaders(added, inner):
            self.respond(exchange, route: inner, extraHeaders: extraHeaders + added, context: context)
            return
        }
        for header in extraHeaders { headers.add(name: header.name, value: header.value) }

        let keepAlive = exchange.head.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(
            version: exchange.head.version,
            status: HTTPResponseStatus(statusCode: status),
            headers: headers
        )
        context.write(Self.wrapOutboundOut(.head(head)), promise: nil)

        if exchange.head.method == .HEAD {
            if case .truncated = plan {
                self.closeAfterFlush(context: context)
            } else {
                self.finish(exchange, context: context)
            }
            return
        }

        switch plan {
        case .none:
            self.finish(exchange, context: context)
        case .bytes(let bytes):
            if !bytes.isEmpty { self.writeBody(bytes, context: context) }
            self.finish(exchange, context: context)
        case .stall(let prefix):
            // Never finished: the client has to give up and close, which counts as an early close.
            if !prefix.isEmpty { self.writeBody(prefix, context: context) }
            context.flush()
        case .truncated(let bytes):
            if !bytes.isEmpty { self.writeBody(bytes, context: context) }
            self.closeAfterFlush(context: context)
        case let .endless(chunk, every):
            let piece = ByteBuffer(bytes: TestOrigin.sizedBytes(chunk))
            self.writePieces(exchange, piece: piece, remaining: nil, every: every, context: context)
        case let .drip(bytes, every):
            self.writeDrip(exchange, bytes: ByteBuffer(bytes: bytes), every: every, context: context)
        case .sized(let length):
            let piece = ByteBuffer(bytes: TestOrigin.sizedBytes(min(length, Self.sizedPieceLength)))
            self.writePieces(exchange, piece: piece, remaining: length, every: .zero, context: context)
        }
    }

    private func writeBody(_ bytes: [UInt8], context: ChannelHandlerContext) {
        let buffer = context.channel.allocator.buffer(bytes: bytes)
        context.write(Self.wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
    }

    /// Writes `piece` (or its head, for the last one) until `remaining` bytes are sent, or forever when
    /// nil, each write only after the previous one completed (and `every` passed) so memory stays flat.
    private func writePieces(_ exchange: Exchange, piece: ByteBuffer, remaining: Int?, every: Duration,
                             context: ChannelHandlerContext) {
        guard context.channel.isActive, self.current?.id == exchange.id else { return }
        if remaining == 0 {
            self.finish(exchange, context: context)
            return
        }
        let length = min(remaining ?? piece.readableBytes, piece.readableBytes)
        let slice = piece.getSlice(at: piece.readerIndex, length: length) ?? piece
        let written = context.writeAndFlush(Self.wrapOutboundOut(.body(.byteBuffer(slice))))
        written.assumeIsolated().whenSuccess {
            // A write can complete synchronously; hop through the loop so the stack never grows.
            self.afterPause(every, context: context) {
                self.writePieces(exchange, piece: piece, remaining: remaining.map { $0 - length }, every: every, context: context)
            }
        }
    }

    /// Writes `bytes` one byte at a time, `every` apart, then ends the response.
    private func writeDrip(_ exchange: Exchange, bytes: ByteBuffer, every: Duration, context: ChannelHandlerContext) {
        guard context.channel.isActive, self.current?.id == exchange.id else { return }
        var rest = bytes
        guard let byte = rest.readSlice(length: 1) else {
            self.finish(exchange, context: context)
            return
        }
        let written = context.writeAndFlush(Self.wrapOutboundOut(.body(.byteBuffer(byte))))
        written.assumeIsolated().whenSuccess {
            self.afterPause(every, context: context) {
                self.writeDrip(exchange, bytes: rest, every: every, context: context)
            }
        }
    }

    /// Runs `next` on the loop after `pause` (at once, but never on this stack, when zero). A
    /// connection closed meanwhile is caught by `next`'s own checks.
    private func afterPause(_ pause: Duration, context: ChannelHandlerContext, _ next: @escaping () -> Void) {
        let loop = context.eventLoop.assumeIsolated()
        if pause > .zero {
            loop.scheduleTask(in: TimeAmount(pause)) { next() }
        } else {
            loop.execute { next() }
        }
    }

    /// Ends the response; once the end is written the exchange is complete, and a connection the
    /// request did not keep alive is closed.
    private func finish(_ exchange: Exchange, context: ChannelHandlerContext) {
        let keepAlive = exchange.head.isKeepAlive
        let written = context.writeAndFlush(Self.wrapOutboundOut(.end(nil)))
        written.assumeIsolated().whenSuccess {
            // The pipelining handler may already have handed over the next request: only clear our own.
            if self.current?.id == exchange.id { self.current = nil }
            if !keepAlive {
                self.closedByServer = true
                context.close(promise: nil)
            }
        }
    }

    /// Flushes what was written, then closes the connection from the server side.
    private func closeAfterFlush(context: ChannelHandlerContext) {
        self.closedByServer = true
        let flushed = context.writeAndFlush(Self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer()))))
        flushed.assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    // MARK: - Conditional requests

    private static func isNotModified(_ request: HTTPHeaders, etag: String?, lastModified: String?) -> Bool {
        let ifNoneMatch = request["If-None-Match"]
        if !ifNoneMatch.isEmpty {
            // If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2).
            guard let etag else { return false }
            return ifNoneMatch.contains { Self.listContainsETag($0, etag) }
        }
        if let lastModified, let since = request.first(name: "If-Modified-Since") {
            return since.trimmingSpaces() == lastModified
        }
        return false
    }

    /// Whether a comma-separated If-None-Match value names `etag` (weak comparison) or is `*`.
    private static func listContainsETag(_ list: String, _ etag: String) -> Bool {
        let wanted = Self.opaqueTag(etag)
        return list.split(separator: ",").contains { item in
            let candidate = String(item).trimmingSpaces()
            return candidate == "*" || Self.opaqueTag(candidate) == wanted
        }
    }

    private static func opaqueTag(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = self.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = self.lastIndex(where: { !isSpace($0) })!
        return String(self[first...last])
    }
}
