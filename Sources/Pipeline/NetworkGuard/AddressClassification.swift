extension AddressCategory {
    /// Classifies an address; anything in no special-purpose range is `.public`.
    ///
    /// IPv6 transition forms that carry an IPv4 address are classified by that address, so
    /// `::ffff:10.0.0.1` is as private as `10.0.0.1`.
    public static func categorize(_ address: IPAddress) -> AddressCategory {
        if let inner = address.embeddedIPv4 {
            return categorize(inner)
        }
        let rules = address.isIPv4 ? ipv4Rules : ipv6Rules
        if let rule = rules.first(where: { $0.network.contains(address) }) {
            return rule.category
        }
        // IANA has handed out global unicast IPv6 only from 2000::/3; the rest is unassigned or special.
        if address.isIPv6, !globalUnicastIPv6.contains(address) {
            return .reserved
        }
        return .public
    }

    private typealias Rule = (network: CIDR, category: AddressCategory)

    /// The tables are literals the tests cover; a typo fails loudly at first use rather than
    /// leaving a range unguarded.
    private static func network(_ text: String) -> CIDR {
        guard let network = CIDR(text) else { preconditionFailure("bad built-in network \(text)") }
        return network
    }

    private static func rules(_ entries: [(String, AddressCategory)]) -> [Rule] {
        entries.map { text, category in (network(text), category) }
    }

    // First match wins, so single addresses come before the ranges that contain them.
    private static let ipv4Rules = rules([
        ("0.0.0.0/32", .unspecified),
        ("0.0.0.0/8", .thisNetwork),
        ("255.255.255.255/32", .broadcast),
        ("127.0.0.0/8", .loopback),
        ("169.254.169.254/32", .cloudMetadata),
        ("169.254.0.0/16", .linkLocal),
        ("10.0.0.0/8", .privateNetwork),
        ("172.16.0.0/12", .privateNetwork),
        ("192.168.0.0/16", .privateNetwork),
        ("100.64.0.0/10", .carrierGradeNAT),
        ("224.0.0.0/4", .multicast),
        ("240.0.0.0/4", .reserved),
        ("192.0.0.0/24", .reserved),      // IETF protocol assignments
        ("192.0.2.0/24", .reserved),      // TEST-NET-1
        ("198.18.0.0/15", .reserved),     // benchmarking
        ("198.51.100.0/24", .reserved),   // TEST-NET-2
        ("203.0.113.0/24", .reserved),    // TEST-NET-3
    ])

    private static let ipv6Rules = rules([
        ("::/128", .unspecified),
        ("::1/128", .loopback),
        ("fd00:ec2::254/128", .cloudMetadata),
        ("fe80::/10", .linkLocal),
        ("fec0::/10", .siteLocal),
        ("fc00::/7", .uniqueLocal),
        ("ff00::/8", .multicast),
        ("2001:db8::/32", .reserved),     // documentation
        ("2001:2::/48", .reserved),       // benchmarking
        ("100::/64", .reserved),          // discard-only
        // Local-use NAT64 (RFC 8215) may translate to any IPv4 network, private ones included,
        // and its prefix length varies, so the IPv4 address cannot be located reliably.
        ("64:ff9b:1::/48", .reserved),
    ])

    private static let globalUnicastIPv6 = network("2000::/3")
}
