import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers fresh cache hits for `GET /v1/thumbnail` inside the connection's NIO pipeline, on the
/// event loop that read the request: no task, no router, no async hop. Everything else (misses,
/// stale entries, errors, other routes) goes on to Hummingbird untouched.
///
/// The hit path decides whether thumbd stands next to nginx; through the full framework a hit costs
/// several times what the bytes do. A disk hit is read here too: from the page cache that is a few
/// microseconds, as nginx does.
///
/// Responses must leave in request order, so while a request passed on to the framework is still
/// unanswered, later ones are passed on as well.
final class ThumbnailFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let route: ThumbnailRoute
    private let observe: Observer
    private var passedOn = 0
    private var swallowingBody = false
    private var needsFlush = false
    private var closeAfterResponse = false

    /// Told of each answered request: path, status, cache tier, start time (metrics, access log).
    typealias Observer = @Sendable (String, Int, String?, ContinuousClock.Instant) -> Void

    init(route: ThumbnailRoute, observe: @escaping Observer) {
        self.route = route
        self.observe = observe
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            let start = ContinuousClock.now
            if passedOn == 0, request.method == .get, let path = request.path, path.hasPrefix("/v1/thumbnail?"),
               let (head, body) = route.freshHit(path: path, headers: request.headerFields) {
                swallowingBody = true
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                if let body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
                if request.headerFields[.connection]?.lowercased() == "close" {
                    let channel = context.channel
                    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
                } else {
                    context.write(wrapOutboundOut(.end(nil)), promise: nil)
                    needsFlush = true
                }
                observe(path, head.status.code, head.headerFields[.xCache], start)
                return
            }
            passedOn += 1
            swallowingBody = false
            context.fireChannelRead(data)
        case .body, .end:
            guard !swallowingBody else { return }
            context.fireChannelRead(data)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context)
        context.fireChannelReadComplete()
    }

    /// Counts the framework's answers, and closes the connection after one that says
    /// `Connection: close` (a miss: the framework has stopped reading this connection, so a
    /// request pipelined behind it would otherwise wait forever).
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response):
            if response.headerFields[.connection] == "close" { closeAfterResponse = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            passedOn = max(0, passedOn - 1)
            guard closeAfterResponse else { return context.write(data, promise: promise) }
            closeAfterResponse = false
            let written = promise ?? context.eventLoop.makePromise()
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            context.writeAndFlush(data, promise: written)
        }
    }

    private func flushIfNeeded(_ context: ChannelHandlerContext) {
        guard needsFlush else { return }
        needsFlush = false
        context.flush()
    }
}
