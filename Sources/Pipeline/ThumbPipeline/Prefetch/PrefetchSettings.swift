import ThumbVariant
/// Limits of prefetch jobs. Keys of `prefetch:` in config/thumbd.yaml.
public struct PrefetchSettings: Sendable {
    /// URLs one job may hold (after duplicates are dropped); more is refused (413).
    public var maxURLsPerJob: Int = 1000
    /// Jobs running at once; one more is refused (429) until one ends.
    public var maxActiveJobs: Int = 8
    /// Thumbnails one job asks the pipeline for at once (the downloader's own limits still apply).
    public var concurrency: Int = 16
    /// How long a finished job's report is kept.
    public var keepFinished: Duration = .seconds(600)
    /// Pages a `page_url` job may follow.
    public var maxPages: Int = 50
    /// Which variants a fallback picture covers (`server.fallback_image`, a preset's own), so a
    /// report can count the failed items a thumbnail request would answer with the picture.
    public var fallbackCovers: @Sendable (Variant) -> Bool = { _ in false }

    public init() {}
}

/// A prefetch request refused before it starts.
public struct PrefetchRefused: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case tooManyURLs = "too_many_urls"
        case tooManyJobs = "too_many_jobs"
        case noURLs = "no_urls"
    }

    public let code: Code
    public let message: String
    public var description: String { message }
}
