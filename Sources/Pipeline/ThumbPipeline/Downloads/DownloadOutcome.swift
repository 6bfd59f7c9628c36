import ThumbCache

/// What the origin gave back.
public enum DownloadOutcome: Sendable {
    /// A 200 with the whole body (within the byte cap).
    case fetched(OriginBody)
    /// A 304 to a conditional request: what we hold is still current.
    case notModified(CacheValidators)
}

public struct OriginBody: Sendable {
    public var bytes: [UInt8]
    /// As the origin said; informative only (the format comes from the magic bytes).
    public var contentType: String?
    /// The origin's ETag and Last-Modified, sent back when the entry is revalidated.
    public var validators: CacheValidators
    /// The URL the body came from, after redirects.
    public var finalURL: String
}
