import Foundation

/// How this daemon takes part in a fleet behind a balancer. Keys of `fleet:` in config/thumbd.yaml.
///
/// thumbd does not know the balancer's hash ring. What must reach a URL's home node (a prefetch
/// item) goes through `entry`, the balancer, with the same hash as the browsers' requests; what
/// concerns every node (evicting a host, fleet totals) goes to each of `nodes`.
public struct FleetSettings: Sendable {
    /// The balancer's base URL (`http://127.0.0.1:8080`). When set, prefetch jobs request their
    /// thumbnails through it instead of making them here. nil: a single node.
    public var entry: String?
    /// Every node's base URL, for `thumbd cache evict --host`, `thumbd cache stats`.
    public var nodes: [String] = []
    /// Connecting to the entry point or a node.
    public var connectTimeout: Duration = .seconds(2)
    /// A whole request through the entry point or to a node: above the download timeout, since a
    /// prefetch item may wait for a download and a decode on its home node.
    public var requestTimeout: Duration = .seconds(60)

    public init() {}

    /// `http://host:port` without a trailing slash, or nil when `text` is not an http(s) base URL.
    public static func baseURL(_ text: String) -> String? {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        let lowered = trimmed.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return nil }
        let rest = trimmed.drop { $0 != ":" }.dropFirst(3)
        guard !rest.isEmpty, !rest.contains("?"), !rest.contains("#"), !rest.contains(where: \.isWhitespace) else { return nil }
        return trimmed
    }

    /// A comma-separated list of base URLs; throws the first entry that is not one.
    public static func parseNodes(_ text: String) throws(InvalidNode) -> [String] {
        try text.split(separator: ",").map { raw throws(InvalidNode) -> String in
            guard let url = baseURL(String(raw)) else { throw InvalidNode(entry: String(raw).trimmingCharacters(in: .whitespaces)) }
            return url
        }
    }

    public struct InvalidNode: Error, Sendable {
        public let entry: String
    }
}
