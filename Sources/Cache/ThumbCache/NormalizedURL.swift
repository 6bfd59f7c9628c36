/// An absolute http(s) URL, or an object store's `s3://BUCKET/KEY`, in the one form the cache keys
/// on: scheme and host lower-cased, the default port and the fragment dropped, an empty path
/// written "/", and the rest — path and query — kept exactly as given (servers may treat case and
/// parameter order as meaningful). An s3 URL's host is its bucket: no port, no credentials.
public struct NormalizedURL: Hashable, Sendable, Codable, CustomStringConvertible {
    public let value: String
    public let scheme: String
    public let host: String

    public static let maxLength = 8192

    public init(_ text: String) throws(CacheKeyError) {
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
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
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
        self.value = "\(scheme)://\(lowerHost)\(path)"
    }

    public var description: String { value }
}
