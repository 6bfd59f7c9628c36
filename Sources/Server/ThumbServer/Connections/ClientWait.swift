import Hummingbird
import NIOCore

/// Slow work done for one request (a miss, a placeholder not cached yet), cancelled as soon as
/// the client goes. With the connection's `ConnectionWatch` the connection stays open for the
/// client's next request, as a keep-alive upstream (nginx) expects. Without one (a connection the
/// fast path was not installed on) the request stream itself is watched, which uses it up: the
/// answer must then close the connection (`closesConnection`).
struct ClientWait {
    private let request: Request
    private let watch: ConnectionWatch?

    init(_ request: Request, context: ThumbdRequestContext) async {
        self.request = request
        let channel = context.channel
        watch = try? await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: ThumbnailFastPath.self).watch
        }.get()
    }

    var closesConnection: Bool { watch == nil }

    func run<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        if let watch { return try await watch.untilClientLeaves(operation) }
        return try await request.body.consumeWithCancellationOnInboundClose { _ in try await operation() }
    }
}
