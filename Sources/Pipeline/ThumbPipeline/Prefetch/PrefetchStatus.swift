import Foundation

/// What a prefetch job has done so far: its counts always add up to `total` once it has ended
/// (done + alreadyCached + failed + cancelled).
public struct PrefetchStatus: Sendable, Codable, Equatable {
    public enum State: String, Sendable, Codable {
        case running, finished, cancelled
    }

    public struct Failure: Sendable, Codable, Equatable {
        public var url: String
        public var code: String
        public var message: String
    }

    public var id: String
    public var state: State
    /// Thumbnails the job holds: its distinct URLs times its sizes (a page that could not be
    /// fetched counts once); grows while a `page_url` job fetches pages.
    public var total: Int
    /// Made now.
    public var done: Int
    /// Fresh in the cache already: nothing downloaded.
    public var alreadyCached: Int
    public var failed: Int
    /// Of the failed, those a thumbnail request would answer with the fallback picture (the photo
    /// could not be had, and a fallback covers the job's variant). Nil from a daemon older than it.
    public var fellBack: Int? = 0
    /// Not made because the job was cancelled first.
    public var cancelled: Int
    public var failures: [Failure]
    /// The placeholder of each photo made or found cached, in the order they were: a page's grid
    /// can be laid out and painted from these before any thumbnail loads. Nil only in a report
    /// from a daemon older than placeholders.
    public var placeholders: [Placeholder]? = []
    /// Bytes of the thumbnails made now.
    public var bytes: Int
    public var pagesFetched: Int
    public var created: Date
    public var elapsedSeconds: Double

    public var remaining: Int { total - done - alreadyCached - failed - cancelled }
}
