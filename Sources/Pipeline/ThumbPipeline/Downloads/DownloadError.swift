/// Why a download failed, with a stable code (HTTP problem+json, CLI output, metrics labels).
public struct DownloadError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable, Codable {
        /// Not http(s), no host, or unparseable.
        case invalidURL = "invalid_url"
        /// A private, loopback, link-local, metadata… address, or a host off the allow-list.
        case destinationBlocked = "destination_blocked"
        /// The origin answered with a status other than 200 (or 304 to a revalidation).
        case originStatus = "origin_status"
        case tooManyRedirects = "too_many_redirects"
        /// Connecting, or the whole download, took longer than allowed (a stalled body included).
        case originTimeout = "origin_timeout"
        /// The body is larger than the byte cap (announced, or counted while streaming).
        case originTooLarge = "origin_too_large"
        /// The connection ended before the announced body did.
        case originTruncated = "origin_truncated"
        /// DNS failure (no such name), connection refused or reset.
        case originUnreachable = "origin_unreachable"
        /// The TLS handshake failed: a certificate that is self-signed, expired, for another name, or
        /// from an authority nobody trusts here. Never retried, never trusted anyway.
        case originTLS = "origin_tls"
        /// A redirect from https to plain http, refused unless `download.allow_insecure_redirects`:
        /// an image fetched over TLS must not come back over a connection anyone can change.
        case insecureRedirect = "insecure_redirect"
        /// The response head (status line and header fields) is larger than a download takes.
        case originHeadersTooLarge = "origin_headers_too_large"
        /// An `s3://` object, or its bucket, does not exist (S3's NoSuchKey, NoSuchBucket).
        case objectNotFound = "object_not_found"
        /// The object store refused thumbd's credentials for an `s3://` object: a wrong or missing
        /// key, an expired token, a policy that does not grant the read.
        case objectAccessDenied = "object_access_denied"
        /// An `s3://` URL names a bucket thumbd is not told to read (`sources.s3.buckets`), or the
        /// shared tier's: refused before any request to the object store.
        case bucketNotAllowed = "bucket_not_allowed"
        /// A URL whose signature the cache key leaves out (a presigned URL) was refused by its
        /// origin (401 or 403): expired or forged. Its thumbnail is not served, even when cached.
        case urlRefused = "url_refused"
    }

    public let code: Code
    public let message: String
    /// The origin's HTTP status for `originStatus`.
    public let originStatus: Int?

    public init(_ code: Code, _ message: String, originStatus: Int? = nil) {
        self.code = code
        self.message = message
        self.originStatus = originStatus
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
