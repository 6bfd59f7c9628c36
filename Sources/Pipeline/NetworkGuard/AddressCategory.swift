/// What kind of network an address belongs to, as far as the download guard cares.
///
/// Raw values are snake_case so they can go into logs, metrics labels and JSON as they are.
public enum AddressCategory: String, Sendable, CaseIterable {
    case `public` = "public"
    case loopback = "loopback"
    case privateNetwork = "private_network"
    case linkLocal = "link_local"
    /// 169.254.169.254 and fd00:ec2::254: link-local or unique-local by range, but reported apart
    /// because a fetch there hands out cloud credentials, the usual target of SSRF.
    case cloudMetadata = "cloud_metadata"
    case carrierGradeNAT = "carrier_grade_nat"
    case multicast = "multicast"
    case unspecified = "unspecified"
    case thisNetwork = "this_network"
    case broadcast = "broadcast"
    /// Documentation, benchmarking, future-use and IETF protocol ranges, and IPv6 outside the
    /// global unicast space: nothing a download should reach.
    case reserved = "reserved"
    case uniqueLocal = "unique_local"
    case siteLocal = "site_local"

    /// With its article, to complete "127.0.0.2 is …".
    public var phrase: String {
        switch self {
        case .public: "a public address"
        case .loopback: "a loopback address"
        case .privateNetwork: "a private network address"
        case .linkLocal: "a link-local address"
        case .cloudMetadata: "a cloud metadata service address"
        case .carrierGradeNAT: "a carrier-grade NAT address"
        case .multicast: "a multicast address"
        case .unspecified: "the unspecified address"
        case .thisNetwork: "a 'this network' address"
        case .broadcast: "the broadcast address"
        case .reserved: "a reserved address"
        case .uniqueLocal: "a unique local address"
        case .siteLocal: "a site-local address"
        }
    }
}
