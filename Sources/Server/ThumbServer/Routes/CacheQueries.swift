import NIOPosix
import ThumbCache

/// Index queries and file reads wait on SQLite and the disk: they run on NIO's blocking pool,
/// never on the event loops that answer cache hits.
enum CacheQueries {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws(CacheError) -> T) async throws -> T {
        do {
            return try await NIOThreadPool.singleton.runIfActive { try body() }
        } catch let error as CacheError {
            throw Problem(.internalServerError, code: "cache_error", detail: error.description)
        }
    }
}
