/// One entry of the host allow-list: an exact host (`images.example.com`) or every subdomain of
/// one (`*.example.com`, which matches `a.example.com` and `a.b.example.com` but not the apex, so
/// an operator who wants both lists both).
///
/// Names compare case-insensitively and a trailing dot (the fully-qualified spelling) is ignored.
/// IP literals compare by address, so `[::1]` matches a pattern `0:0::1`.
public struct HostPattern: Hashable, Sendable, CustomStringConvertible {
    /// Normalized: lowercase, no trailing dot, IP literals in canonical form.
    public let name: String
    public let matchesSubdomains: Bool

    public init?(_ text: String) {
        let trimmed = String(Substring(text).trimmingBlanks)
        if trimmed.hasPrefix("*.") {
            guard let suffix = Self.normalize(trimmed.dropFirst(2)), IPAddress(suffix) == nil else { return nil }
            name = suffix
            matchesSubdomains = true
        } else {
            guard let exact = Self.normalize(Substring(trimmed)) else { return nil }
            name = exact
            matchesSubdomains = false
        }
    }

    public func matches(_ host: String) -> Bool {
        guard let host = Self.normalize(Substring(host)) else { return false }
        guard matchesSubdomains else { return host == name }
        return host.count > name.count + 1 && host.hasSuffix("." + name)
    }

    public var description: String { matchesSubdomains ? "*.\(name)" : name }

    /// Reads a comma-separated list; blanks around entries and empty entries are ignored.
    public static func parseList(_ text: String) throws(HostPatternParseError) -> [HostPattern] {
        try commaSeparated(text, HostPattern.init, orThrow: HostPatternParseError.init(entry:))
    }

    /// nil for anything that is not a plausible host: the same check guards `matches`, so a host
    /// such as `evil.test\0.example.com` cannot pass as a subdomain and then resolve as `evil.test`.
    static func normalize(_ host: Substring) -> String? {
        if let address = IPAddress(String(host)) {
            return address.description
        }
        // ASCII only: Unicode lowercasing would turn the Kelvin sign into "k" and match a name
        // other than the one the resolver is then asked for.
        var bytes = Array(host.utf8)
        if bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        guard !bytes.isEmpty, bytes.count <= 253, bytes.allSatisfy(isHostByte) else { return nil }
        let name = String(decoding: bytes.map(asciiLowercased), as: UTF8.self)
        guard !name.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else { return nil }
        return name
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    // Letters, digits, hyphen, and underscore (not valid in host names, but common in DNS records).
    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }
}

/// A host list entry that is not a host name or `*.` pattern; names the entry.
public struct HostPatternParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public let entry: String

    public init(entry: String) {
        self.entry = entry
    }

    public var description: String {
        "'\(entry)' is not a host name or a pattern like *.example.com"
    }
}
