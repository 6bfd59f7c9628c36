import Foundation
import NetworkGuard

/// A download target, parsed and checked for what a downloader can reach: http or https, a host,
/// no credentials.
struct OriginURL: Sendable, CustomStringConvertible {
    let scheme: String
    /// Lower-cased, without brackets for IPv6.
    let host: String
    let port: Int
    /// Percent-encoded path and query, at least "/".
    let pathAndQuery: String
    let text: String

    var description: String { text }

    init(_ text: String) throws(DownloadError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw DownloadError(.invalidURL, "not a URL: \(text)")
        }
        guard scheme == "http" || scheme == "https" else {
            throw DownloadError(.invalidURL, "only http and https URLs can be fetched, not \(scheme):")
        }
        guard var host = components.percentEncodedHost?.lowercased(), !host.isEmpty else {
            throw DownloadError(.invalidURL, "the URL has no host: \(text)")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard components.user == nil, components.password == nil else {
            throw DownloadError(.invalidURL, "URLs with credentials are not fetched")
        }
        self.scheme = scheme
        self.host = host
        port = components.port ?? (scheme == "https" ? 443 : 80)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        pathAndQuery = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        self.text = text
    }

    /// The `Host` header: the name the origin expects, with the port when it is not the default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : 80
        return port == defaultPort ? name : "\(name):\(port)"
    }

    /// The same request sent to `address` (the one the guard checked), so the connection cannot go
    /// anywhere a second DNS answer points to.
    func pinned(to address: IPAddress) -> String {
        "\(scheme)://\(address.urlHost):\(port)\(pathAndQuery)"
    }

    /// Whether following a redirect from here to `next` leaves TLS behind (https to plain http).
    func isDowngrade(to next: OriginURL) -> Bool {
        scheme == "https" && next.scheme == "http"
    }

    /// A `Location` header resolved against this URL.
    func resolving(_ location: String) throws(DownloadError) -> OriginURL {
        guard let base = URL(string: text), let target = URL(string: location, relativeTo: base)?.absoluteString else {
            throw DownloadError(.invalidURL, "the origin redirected to an unusable location: \(location)")
        }
        return try OriginURL(target)
    }
}
