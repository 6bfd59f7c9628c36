/// Which destinations downloads may reach: public addresses always, other categories only inside
/// an operator-listed network, and (when a host list is set) only listed hosts.
public struct AddressPolicy: Sendable {
    /// Exemptions for non-public addresses, e.g. an origin on 10.1.2.0/24.
    public let allowNetworks: [CIDR]
    /// nil means every host name may be fetched (subject to the address check).
    public let allowHosts: [HostPattern]?

    public init(allowNetworks: [CIDR] = [], allowHosts: [HostPattern]? = nil) {
        self.allowNetworks = allowNetworks
        self.allowHosts = allowHosts
    }

    public func check(_ address: IPAddress) -> AddressVerdict {
        let category = AddressCategory.categorize(address)
        if category == .public || allowNetworks.contains(where: { $0.contains(address) }) {
            return .allowed
        }
        return .blocked(category)
    }

    /// The host allow-list alone; addresses are judged separately, after resolution.
    public func permitsHost(_ host: String) -> Bool {
        guard let allowHosts else { return true }
        return allowHosts.contains { $0.matches(host) }
    }
}

public enum AddressVerdict: Hashable, Sendable {
    case allowed
    /// Not public and in no allowed network; the category says why.
    case blocked(AddressCategory)

    public var isAllowed: Bool { self == .allowed }
}
