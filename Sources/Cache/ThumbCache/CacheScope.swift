/// A set of entries named by what an operator knows: one entry, one image URL (every variant and
/// the original), or everything from one host.
public enum CacheScope: Sendable, Hashable, CustomStringConvertible {
    case entry(CacheKey)
    case url(NormalizedURL)
    /// A host as `NormalizedURL.host` writes it: lower-case, with ":port" when not the default.
    case host(String)

    public func contains(_ key: CacheKey) -> Bool {
        switch self {
        case .entry(let entry): return key == entry
        case .url(let url): return key.url == url
        case .host(let host): return key.url.host == host
        }
    }

    public var description: String {
        switch self {
        case .entry(let key): return "\(key.url.value) \(key.variant)"
        case .url(let url): return url.value
        case .host(let host): return "host \(host)"
        }
    }
}
