/// An absolute http(s) URL, or an object store's `s3://BUCKET/KEY`, in the one form the cache keys
/// on: scheme and host lower-cased, the default port and the fragment dropped, an empty path
/// written "/", and the rest — path and query — kept exactly as given (servers may treat case and
/// parameter order as meaningful). An s3 URL's host is its bucket: no port, no credentials.
public struct NormalizedURL: Hashable, Sendable, Codable, CustomStringConvertible {
    public let value: String
    public let scheme: String
    public let host: String

    public static let maxLength = 8192

    /// The fragment a key's URL ends with when the request's URL had parameters the key leaves out
    /// (a presigned URL's signature, `UnkeyedQuery`). A URL a client sends never keeps a fragment,
    /// so the unsigned URL of a private object can never name the entry its signed URLs made.
    public static let signedMarker = "#signed"

    /// The URL to show a client: `value` without `signedMarker`, so a presigned URL's is the
    /// object's URL without the signature parameters the key leaves out.
    public var shown: String {
        value.hasSuffix(Self.signedMarker) ? String(value.dropLast(Self.signedMarker.count)) : value
    }

    /// A URL as a client or a setting gives it: any fragment is dropped.
    public init(_ text: String) throws(CacheKeyError) {
        try self.init(text, keepingSignedMarker: false)
    }

    /// A key's URL as the cache itself recorded it, `signedMarker` kept.
    init(stored text: String) throws(CacheKeyError) {
        try self.init(text, keepingSignedMarker: true)
    }

    private init(_ text: String, keepingSignedMarker: Bool) throws(CacheKeyError) {
        guard text.utf8.count <= Self.maxLength else { throw CacheKeyError(message: "URL is longer than \(Self.maxLength) bytes") }
        // Spaces and control characters are never valid in a URL; refusing them also keeps the
        // key's hashed form ("URL, newline, variant") unambiguous.
        guard !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw CacheKeyError(message: "URL contains a space or a control character; percent-encode it")
        }
        guard let schemeEnd = text.range(of: "://") else { throw CacheKeyError(message: "not an absolute URL (no scheme://): \(text.prefix(200))") }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" || scheme == "s3" else {
            throw CacheKeyError(message: "only http, https and s3 URLs are cached, not \(scheme)")
        }
        var rest = text[schemeEnd.upperBound...]
        var signed = false
        if let hash = rest.firstIndex(of: "#") {
            signed = keepingSignedMarker && rest[hash...] == Self.signedMarker
            rest = rest[..<hash]
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        let pathAndQuery = rest[authorityEnd...]
        guard !authority.contains(where: { $0 == " " || $0 == "\\" }) else { throw CacheKeyError(message: "malformed host in URL") }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }  // credentials never key an entry
        if scheme == "s3", authority.contains(":") { throw CacheKeyError(message: "an s3:// URL names a bucket, without a port") }

        var host = Substring(authority)
        var port: Substring? = nil
        if host.hasPrefix("[") {  // IPv6 literal
            guard let close = host.firstIndex(of: "]") else { throw CacheKeyError(message: "malformed IPv6 host in URL") }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") { port = after.dropFirst() } else if !after.isEmpty { throw CacheKeyError(message: "malformed host in URL") }
            host = host[...close]
        } else if let colon = host.lastIndex(of: ":") {
            port = host[host.index(after: colon)...]
            host = host[..<colon]
            // Only an IPv6 literal, in brackets, holds a colon: "a:b:80" is no host and port, and
            // keyed as "a:b" it would not read back.
            guard !host.contains(":") else { throw CacheKeyError(message: "malformed host in URL") }
        }
        guard !host.isEmpty else { throw CacheKeyError(message: "URL has no host") }
        if let port {
            guard !port.isEmpty, port.allSatisfy(\.isNumber), let number = Int(port), number <= 65535 else {
                throw CacheKeyError(message: "malformed port in URL")
            }
            let isDefault = (scheme == "http" && number == 80) || (scheme == "https" && number == 443)
            if !isDefault { host = Substring("\(host):\(number)") }
        }
        let lowerHost = host.lowercased()
        let path = pathAndQuery.isEmpty || pathAndQuery.first == "?" ? "/" + pathAndQuery : String(pathAndQuery)
        self.scheme = scheme
        self.host = lowerHost
        self.value = "\(scheme)://\(lowerHost)\(path)" + (signed ? Self.signedMarker : "")
    }

    /// A value already in normal form (a normal URL with query parameters taken out).
    init(normalized value: String, scheme: String, host: String) {
        self.value = value
        self.scheme = scheme
        self.host = host
    }

    public var description: String { value }
}
