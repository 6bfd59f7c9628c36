import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Answers fresh cache hits for `GET /v1/thumbnail` among the requests NIO's decoder reads (those
/// `RawHitAnswerer` hands on: HTTP/1.0, `Connection: close`, hits pipelined behind a miss, any
/// request on a connection handed to the decoder), on the event loop that read the request: no task,
/// no router, no async hop, and no conversion to and from HTTP types. Everything else (misses, stale
/// entries, errors, other routes) goes on to Hummingbird untouched.
///
/// It sits between NIO's HTTP/1 codec and Hummingbird's conversion to HTTP types (the installer
/// below puts it there), so it sees the request's HTTP version and keep-alive, and writes NIO
/// response parts straight to the encoder. It also tells the raw answerer when each response it
/// was handed ends.
///
/// Responses must leave in request order, so while a request passed on to the framework is still
/// unanswered, later ones are passed on as well.
final class ThumbnailFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Told of each answered request: path, status, cache tier, start time (metrics, access log).
    typealias Observer = @Sendable (String, Int, String?, ContinuousClock.Instant) -> Void

    private let route: ThumbnailRoute
    /// Tells routes waiting on this connection's behalf that its client has gone.
    let watch = ConnectionWatch()
    private let deadlines: ConnectionDeadlines
    private let readiness: Readiness
    private let observe: Observer
    private let handedOn: HandedOnRequests
    private var passedOn = 0
    private var swallowingBody = false
    private var needsFlush = false
    private var closeAfterResponse = false

    init(route: ThumbnailRoute, readiness: Readiness, deadlines: ConnectionDeadlines, handedOn: HandedOnRequests,
         observe: @escaping Observer) {
        self.route = route
        self.deadlines = deadlines
        self.handedOn = handedOn
        self.readiness = readiness
        self.observe = observe
    }

    /// The text after a URI's `?` (nil without one).
    static func query(of uri: String) -> String? {
        uri.firstIndex(of: "?").map { String(uri[uri.index(after: $0)...]) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            let start = ContinuousClock.now
            deadlines.requestHeadReceived(expectsBody: Self.expectsBody(request))
            // A draining node ends each connection after its answer, so nothing new is sent on it.
            let keepAlive = request.isKeepAlive && !readiness.isDraining
            if passedOn == 0, request.method == .GET, request.uri.hasPrefix("/v1/thumbnail?"),
               let hit = route.freshHit(query: Self.query(of: request.uri), accept: request.headers.first(name: "accept"),
                                        ifNoneMatch: request.headers.first(name: "if-none-match"), version: request.version,
                                        keepAlive: keepAlive) {
                swallowingBody = true
                context.write(wrapOutboundOut(.head(hit.head)), promise: nil)
                if let body = hit.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
                if let file = hit.file, let handle = hit.fileHandle {
                    let sent = context.eventLoop.makePromise(of: Void.self)
                    sent.futureResult.whenComplete { _ in try? handle.close() }
                    context.write(wrapOutboundOut(.body(.fileRegion(file))), promise: sent)
                }
                if keepAlive {
                    context.write(wrapOutboundOut(.end(nil)), promise: nil)
                    deadlines.responseEnded()
                    needsFlush = true
                } else {
                    let channel = context.channel
                    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
                }
                handedOn.outstanding = max(0, handedOn.outstanding - 1)
                observe(request.uri, Int(hit.head.status.code), hit.tier, start)
                return
            }
            passedOn += 1
            swallowingBody = false
            context.fireChannelRead(data)
        case .body:
            guard !swallowingBody else { return }
            context.fireChannelRead(data)
        case .end:
            deadlines.requestEnded()
            guard !swallowingBody else { return }
            context.fireChannelRead(data)
        }
    }

    /// Whether a request announces a body (an upload); a GET's end follows its head at once.
    static func expectsBody(_ request: HTTPRequestHead) -> Bool {
        if request.headers.contains(name: "transfer-encoding") { return true }
        guard let length = request.headers.first(name: "content-length") else { return false }
        return length != "0"
    }

    /// Hummingbird allows half-closure, so a client that leaves shows first as the end of its input.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed? = event as? ChannelEvent { watch.clientLeft() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        watch.clientLeft()
        context.fireChannelInactive()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    /// Counts the framework's answers, and closes the connection after one that says
    /// `Connection: close` (a draining node's answer, or a miss on a connection the framework has
    /// stopped reading, where a request pipelined behind it would otherwise wait forever).
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response):
            if response.headers["connection"].contains(where: { $0.lowercased() == "close" }) { closeAfterResponse = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            passedOn = max(0, passedOn - 1)
            handedOn.outstanding = max(0, handedOn.outstanding - 1)
            deadlines.responseEnded()
            guard closeAfterResponse else { return context.write(data, promise: promise) }
            closeAfterResponse = false
            let written = promise ?? context.eventLoop.makePromise()
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            context.writeAndFlush(data, promise: written)
        }
    }
}

/// Hummingbird adds its extra handlers after its conversion to HTTP types; this one sets each
/// connection up when it starts, then removes itself: it refuses a connection over
/// `server.max_connections`, puts the fast path in front of that conversion, and in front of
/// everything the observer of raw input (for the connection's deadlines) and the raw hit answerer.
final class ThumbnailFastPathInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    /// The connection's two hit answerers, sharing what it has handed to NIO's decoder.
    typealias Answerers = (raw: RawHitAnswerer, decoded: ThumbnailFastPath)

    private let limits: ConnectionLimits
    private let makeAnswerers: (ConnectionDeadlines, HandedOnRequests) -> Answerers

    init(limits: ConnectionLimits, _ makeAnswerers: @escaping (ConnectionDeadlines, HandedOnRequests) -> Answerers) {
        self.limits = limits
        self.makeAnswerers = makeAnswerers
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        guard limits.admit() else {
            context.channel.close(promise: nil)
            return
        }
        let limits = limits
        context.channel.closeFuture.whenComplete { _ in limits.release() }
        let deadlines = ConnectionDeadlines(limits: limits, channel: context.channel)
        let answerers = makeAnswerers(deadlines, HandedOnRequests())
        if let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) {
            try? pipeline.addHandler(answerers.decoded, position: .before(codec))
            try? pipeline.addHandler(answerers.raw, position: .first)
        }
        try? pipeline.addHandler(RawInputObserver(deadlines: deadlines), position: .first)
        deadlines.connectionStarted()
        pipeline.removeHandler(context: context, promise: nil)
    }
}
