import Hummingbird
import NIOCore

/// Hummingbird's request context plus the request's connection, so a route that waits for slow
/// work can find the connection's `ConnectionWatch`.
struct ThumbdRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}
