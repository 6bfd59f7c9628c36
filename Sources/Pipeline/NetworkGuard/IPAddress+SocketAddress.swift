#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension IPAddress {
    /// Reads the address out of a `sockaddr_in` or `sockaddr_in6` (getaddrinfo, accept, getpeername);
    /// nil for any other family. The port and any IPv6 scope are not part of an `IPAddress`.
    ///
    /// The pointer must address a whole structure of the family it declares.
    public init?(socketAddress: UnsafePointer<sockaddr>) {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let bits = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            self.init(v4: UInt32(bigEndian: bits))
        case AF_INET6:
            var address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            self.init(bytes: withUnsafeBytes(of: &address) { Array($0) })
        default:
            return nil
        }
    }

    /// The same, from storage large enough for any family.
    public init?(socketAddress storage: sockaddr_storage) {
        var storage = storage
        let parsed = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { IPAddress(socketAddress: $0) }
        }
        guard let parsed else { return nil }
        self = parsed
    }
}
