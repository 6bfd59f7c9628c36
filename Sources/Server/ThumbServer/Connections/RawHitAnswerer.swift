import NIOCore

/// Requests a connection has handed to NIO's HTTP decoder whose responses have not ended yet.
/// Shared by the connection's two hit answerers, on its event loop: the raw one may answer only
/// when none is outstanding, or its answer would overtake theirs.
final class HandedOnRequests {
    var outstanding = 0
}

/// Answers fresh cache hits of `GET /v1/thumbnail` from the connection's bytes, before NIO's HTTP
/// decoder: the request head is read in place (`RawRequestHead`), the response leaves as the bytes
/// prepared for it. For a hit this skips what cost most of a hit's CPU after the cache itself: the
/// decoder's request objects and header lists, the pipelining handler, the response encoder.
///
/// Every other request goes on to NIO's decoder, whole, in order (and so to `ThumbnailFastPath`
/// and Hummingbird): misses, other routes, HTTP/1.0, a request that closes the connection or
/// announces a body. A connection whose requests this reader cannot delimit (a body, a malformed
/// or oversized head) is handed to the decoder for good.
final class RawHitAnswerer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let route: ThumbnailRoute
    private let readiness: Readiness
    private let deadlines: ConnectionDeadlines
    private let handedOn: HandedOnRequests
    private let observe: ThumbnailFastPath.Observer
    /// The start of a request whose head has not arrived whole.
    private var partial: ByteBuffer?
    private var decoderReadsEverything = false
    private var needsFlush = false

    init(route: ThumbnailRoute, readiness: Readiness, deadlines: ConnectionDeadlines, handedOn: HandedOnRequests,
         observe: @escaping ThumbnailFastPath.Observer) {
        self.route = route
        self.readiness = readiness
        self.deadlines = deadlines
        self.handedOn = handedOn
        self.observe = observe
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !decoderReadsEverything else { return context.fireChannelRead(data) }
        var bytes = unwrapInboundIn(data)
        if var earlier = partial {
            partial = nil
            earlier.writeBuffer(&bytes)
            bytes = earlier
        }
        var handOn: ByteBuffer?
        reading: while bytes.readableBytes > 0 {
            switch RawRequestHead.read(bytes.readableBytesView) {
            case .incomplete:
                partial = bytes
                break reading
            case .notDelimitable:
                decoderReadsEverything = true
                handOn.append(&bytes)
                break reading
            case .request(let head):
                if handedOn.outstanding == 0, handOn == nil, answer(head, context: context) {
                    bytes.moveReaderIndex(forwardBy: head.length)
                    continue reading
                }
                handedOn.outstanding += 1
                var request = bytes.readSlice(length: head.length)!
                handOn.append(&request)
            }
        }
        if let handOn { context.fireChannelRead(wrapInboundOut(handOn)) }
        // What is left is the start of the next request: its head is timed from now.
        if partial != nil { deadlines.bytesArrived() }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    static let thumbnailPath = "/v1/thumbnail"

    /// Writes the hit's response; false when the request is not a fresh hit (it is handed on).
    private func answer(_ head: RawRequestHead, context: ChannelHandlerContext) -> Bool {
        guard let target = head.thumbnailTarget, !readiness.isDraining else { return false }
        let start = ContinuousClock.now
        // One string per hit, the query: the access log and metrics take the path without it.
        let query = String(decoding: target.dropFirst(Self.thumbnailPath.utf8.count + 1), as: UTF8.self)
        guard let hit = route.freshHit(query: query, accept: head.accept.map { String(decoding: $0, as: UTF8.self) },
                                       ifNoneMatch: head.ifNoneMatch.map { String(decoding: $0, as: UTF8.self) },
                                       version: .http1_1, keepAlive: true) else { return false }
        deadlines.requestHeadReceived(expectsBody: false)
        context.write(NIOAny(hit.headBytes ?? hit.head.encodedBytes()), promise: nil)
        if let body = hit.body { context.write(NIOAny(body), promise: nil) }
        if let file = hit.file, let handle = hit.fileHandle {
            let sent = context.eventLoop.makePromise(of: Void.self)
            sent.futureResult.whenComplete { _ in try? handle.close() }
            context.write(NIOAny(IOData.fileRegion(file)), promise: sent)
        }
        deadlines.responseEnded()
        needsFlush = true
        observe(Self.thumbnailPath, Int(hit.head.status.code), hit.tier, start)
        return true
    }
}

private extension Optional where Wrapped == ByteBuffer {
    /// Joins `bytes` onto what is being handed on (taking them all).
    mutating func append(_ bytes: inout ByteBuffer) {
        if self == nil {
            self = bytes
            bytes.moveReaderIndex(to: bytes.writerIndex)
        } else {
            self!.writeBuffer(&bytes)
        }
    }
}
