extension IPAddress {
    /// The IPv4 address inside an IPv6 transition address, when traffic to it ends up at that IPv4
    /// host: a guard that looked only at the IPv6 prefix would let `::ffff:127.0.0.1` or
    /// `64:ff9b::a9fe:a9fe` (169.254.169.254 through NAT64) through.
    ///
    /// Covers IPv4-mapped `::ffff:0:0/96`, IPv4-compatible `::/96` (but `::` and `::1` are the
    /// unspecified and loopback addresses), NAT64 `64:ff9b::/96`, 6to4 `2002::/16` (address in bits
    /// 16..<48) and Teredo `2001::/32` (client address inverted in the last 32 bits).
    var embeddedIPv4: IPAddress? {
        guard case .v6(let high, let low) = value else { return nil }
        let last32 = UInt32(truncatingIfNeeded: low)
        switch (high, low >> 32) {
        case (0, 0xffff):
            return IPAddress(v4: last32)
        case (0, 0) where low > 1:
            return IPAddress(v4: last32)
        case (0x0064_ff9b_0000_0000, 0):
            return IPAddress(v4: last32)
        default:
            break
        }
        if high >> 48 == 0x2002 {
            return IPAddress(v4: UInt32(truncatingIfNeeded: high >> 16))
        }
        if high >> 32 == 0x2001_0000 {
            // RFC 4380 stores the client's public address inverted so that NATs do not rewrite it.
            return IPAddress(v4: ~last32)
        }
        return nil
    }
}
