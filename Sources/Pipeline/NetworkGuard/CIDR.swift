/// A network prefix such as `10.0.0.0/8` or `fd00::/8`; a bare address is a single-host network.
///
/// Host bits below the prefix are cleared (`10.1.2.3/8` is `10.0.0.0/8`), as an operator writing
/// either means the same network.
public struct CIDR: Hashable, Sendable, CustomStringConvertible {
    public let network: IPAddress
    public let prefixLength: Int

    /// nil when the prefix is longer than the address (33 for IPv4, 129 for IPv6) or negative.
    public init?(network: IPAddress, prefixLength: Int) {
        guard prefixLength >= 0, prefixLength <= network.bitCount else { return nil }
        self.network = network.masked(to: prefixLength)
        self.prefixLength = prefixLength
    }

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else { return nil }
        guard parts.count == 2 else {
            self.init(network: address, prefixLength: address.bitCount)
            return
        }
        // All digits, so that "+8" or " 8" are refused rather than quietly read as 8.
        let digits = parts[1]
        guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ ("0"..."9").contains($0) }),
              let length = Int(digits)
        else { return nil }
        self.init(network: address, prefixLength: length)
    }

    /// An IPv4 network also holds the IPv4-mapped forms of its addresses (`::ffff:10.1.2.3` is in
    /// 10.0.0.0/8): they reach the same host. Likewise an IPv6 network covering `::ffff:0:0/96`
    /// holds the plain IPv4 addresses it maps.
    public func contains(_ address: IPAddress) -> Bool {
        switch (network.value, address.value) {
        case (.v4, .v6):
            guard let mapped = address.unmappedIPv4 else { return false }
            return mapped.masked(to: prefixLength) == network
        case (.v6, .v4):
            return address.mappedIPv6.masked(to: prefixLength) == network
        default:
            return address.masked(to: prefixLength) == network
        }
    }

    public var description: String { "\(network)/\(prefixLength)" }

    /// Reads a comma-separated list (`"10.0.0.0/8, fd00::/8"`); blanks around entries and empty
    /// entries are ignored, so a trailing comma or an empty setting is fine.
    public static func parseList(_ text: String) throws(CIDRParseError) -> [CIDR] {
        try commaSeparated(text, CIDR.init, orThrow: CIDRParseError.init(entry:))
    }
}

/// A list entry that is neither an address nor a network; names the entry so the setting can be fixed.
public struct CIDRParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public let entry: String

    public init(entry: String) {
        self.entry = entry
    }

    public var description: String {
        "'\(entry)' is not an IP address or network (expected forms like 10.0.0.0/8, fd00::/8 or 192.168.1.5)"
    }
}

extension Substring {
    var trimmingBlanks: Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}

/// A comma-separated setting read entry by entry: blanks around entries and empty entries are
/// ignored; the first entry `make` refuses is thrown as `error`.
func commaSeparated<Element, Failure: Error>(_ text: String, _ make: (String) -> Element?,
                                             orThrow error: (String) -> Failure) throws(Failure) -> [Element] {
    var elements: [Element] = []
    for entry in text.split(separator: ",") {
        let trimmed = String(entry.trimmingBlanks)
        guard !trimmed.isEmpty else { continue }
        guard let element = make(trimmed) else { throw error(trimmed) }
        elements.append(element)
    }
    return elements
}
