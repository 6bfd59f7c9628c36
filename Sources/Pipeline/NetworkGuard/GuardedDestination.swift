/// Where a download may connect: the host as the URL named it (for the Host header and TLS name)
/// and the one checked address to dial.
///
/// Connecting to `address` rather than resolving `host` again is the point: a second lookup
/// could answer differently (DNS rebinding) and skip the check.
public struct GuardedDestination: Hashable, Sendable {
    public let host: String
    public let port: Int
    public let address: IPAddress

    public init(host: String, port: Int, address: IPAddress) {
        self.host = host
        self.port = port
        self.address = address
    }
}

/// A download refused by the policy. The text is meant for operators (it may name internal
/// addresses); a server may prefer a vaguer message for clients.
public struct DestinationBlocked: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        case hostNotAllowed
        /// The first address the host resolved to, all of which were blocked.
        case address(IPAddress, AddressCategory)
    }

    public let host: String
    public let reason: Reason

    public init(host: String, reason: Reason) {
        self.host = host
        self.reason = reason
    }

    public var address: IPAddress? {
        if case .address(let address, _) = reason { address } else { nil }
    }

    public var category: AddressCategory? {
        if case .address(_, let category) = reason { category } else { nil }
    }

    public var description: String {
        switch reason {
        case .hostNotAllowed:
            return "\(host) is not on the allow_hosts list"
        case .address(let address, let category):
            let finding = "\(address) is \(category.phrase); allow it with allow_networks"
            // A literal needs no repeating; a name shows what it resolved to.
            return IPAddress(host) == address ? finding : "\(host): \(finding)"
        }
    }
}

extension AddressPolicy {
    /// Resolves `host` and picks the first address the policy allows, skipping blocked ones.
    ///
    /// Throws `DestinationBlocked` when the host is not on the allow-list (checked before any
    /// lookup, so refused names cause no DNS traffic) or when every address is blocked, and
    /// `ResolutionError` when the name does not resolve.
    public func resolveGuarded(host: String, port: Int, resolver: HostResolver = HostResolver()) async throws -> GuardedDestination {
        guard permitsHost(host) else {
            throw DestinationBlocked(host: host, reason: .hostNotAllowed)
        }
        let addresses = try await resolver.resolve(host: host, port: port)
        var firstBlocked: (IPAddress, AddressCategory)?
        for address in addresses {
            switch check(address) {
            case .allowed:
                return GuardedDestination(host: host, port: port, address: address)
            case .blocked(let category):
                if firstBlocked == nil { firstBlocked = (address, category) }
            }
        }
        // The resolver never returns an empty list, but an injected one might.
        guard let (address, category) = firstBlocked else {
            throw ResolutionError(host: host, reason: .notFound, detail: "no addresses")
        }
        throw DestinationBlocked(host: host, reason: .address(address, category))
    }
}
