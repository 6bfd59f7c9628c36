import Foundation

/// The one way thumbd writes a query: parameters sorted by name (then value), everything but
/// RFC 3986's unreserved characters percent-encoded. Signatures are computed over it, and every
/// client of a fleet writes it, so the balancer hashes the same `url` text for every request for
/// one photo.
public enum CanonicalQuery {
    public static func write(_ parameters: [(String, String)]) -> String {
        parameters.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\(encode($0.0))=\(encode($0.1))" }
            .joined(separator: "&")
    }

    public static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved: CharacterSet = {
        var set = CharacterSet()
        set.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return set
    }()
}
