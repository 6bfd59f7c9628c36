// Bit arithmetic behind CIDR matching and classification.
extension IPAddress {
    var bitCount: Int { isIPv4 ? 32 : 128 }

    /// The address with every bit after the first `prefixLength` cleared.
    func masked(to prefixLength: Int) -> IPAddress {
        switch value {
        case .v4(let bits):
            return IPAddress(v4: bits & Self.mask32(prefixLength))
        case .v6(let high, let low):
            return IPAddress(v6High: high & Self.mask64(prefixLength), low: low & Self.mask64(prefixLength - 64))
        }
    }

    /// `::ffff:a.b.c.d` is how dual-stack sockets and some resolvers spell an IPv4 peer.
    var unmappedIPv4: IPAddress? {
        guard case .v6(0, let low) = value, low >> 32 == 0xffff else { return nil }
        return IPAddress(v4: UInt32(truncatingIfNeeded: low))
    }

    /// The IPv4-mapped IPv6 form of an IPv4 address; an IPv6 address is returned unchanged.
    var mappedIPv6: IPAddress {
        guard case .v4(let bits) = value else { return self }
        return IPAddress(v6High: 0, low: 0xffff << 32 | UInt64(bits))
    }

    /// Ones in the first `length` bits; lengths outside 0...32 saturate.
    private static func mask32(_ length: Int) -> UInt32 {
        length <= 0 ? 0 : length >= 32 ? .max : ~(UInt32.max >> length)
    }

    private static func mask64(_ length: Int) -> UInt64 {
        length <= 0 ? 0 : length >= 64 ? .max : ~(UInt64.max >> length)
    }
}
