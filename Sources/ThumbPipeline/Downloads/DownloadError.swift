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
        /// DNS failure, connection refused or reset, TLS failure.
        case originUnreachable = "origin_unreachable"
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
