#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address, as the guard compares and classifies it.
///
/// Values are kept as plain integers so that prefix tests are a mask and a compare. An IPv4-mapped
/// IPv6 address (`::ffff:1.2.3.4`) stays IPv6 here: it is what a resolver returned, and is the
/// address the downloader would dial. Classification and `CIDR` look through it to the IPv4 inside.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    public enum Value: Hashable, Sendable {
        case v4(UInt32)
        /// The 128 bits, most significant half first.
        case v6(high: UInt64, low: UInt64)
    }

    public let value: Value

    public init(v4 bits: UInt32) {
        value = .v4(bits)
    }

    public init(v6High high: UInt64, low: UInt64) {
        value = .v6(high: high, low: low)
    }

    /// 4 bytes make an IPv4 address, 16 an IPv6 one, in network order.
    public init?(bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        func word(_ range: Range<Int>) -> UInt64 { bytes[range].reduce(0) { $0 << 8 | UInt64($1) } }
        switch bytes.count {
        case 4: value = .v4(UInt32(word(0..<4)))
        case 16: value = .v6(high: word(0..<8), low: word(8..<16))
        default: return nil
        }
    }

    /// Accepts dotted IPv4 (exactly four decimal octets, no leading zeros) and every IPv6 text form,
    /// optionally in URL brackets and with a `%zone` suffix, which is dropped.
    ///
    /// Shorthands such as `127.1` or `0x7f.0.0.1` are refused: callers treat a nil here as "a host
    /// name", and the resolver's answer for those is checked like any other.
    public init?(_ text: String) {
        var text = Substring(text)
        let bracketed = text.hasPrefix("[") && text.hasSuffix("]") && text.count >= 2
        if bracketed { text = text.dropFirst().dropLast() }

        if text.contains(":") {
            if let percent = text.firstIndex(of: "%") {
                // An empty zone is a typo, not an address.
                guard text.index(after: percent) != text.endIndex else { return nil }
                text = text[..<percent]
            }
            guard text.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }),
                  let parsed = Self.parse(String(text), family: AF_INET6)
            else { return nil }
            self = parsed
        } else {
            // Brackets are URL syntax for IPv6 only; the character check also keeps NUL bytes away from C.
            guard !bracketed, text.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }),
                  let parsed = Self.parse(String(text), family: AF_INET)
            else { return nil }
            self = parsed
        }
    }

    public var isIPv4: Bool {
        if case .v4 = value { true } else { false }
    }

    public var isIPv6: Bool { !isIPv4 }

    /// The address in network byte order: 4 or 16 bytes.
    public var bytes: [UInt8] {
        switch value {
        case .v4(let bits):
            (0..<4).map { UInt8(truncatingIfNeeded: bits >> (24 - 8 * $0)) }
        case .v6(let high, let low):
            [high, low].flatMap { half in (0..<8).map { UInt8(truncatingIfNeeded: half >> (56 - 8 * $0)) } }
        }
    }

    /// Canonical text (RFC 5952 for IPv6, as inet_ntop writes it), without brackets.
    public var description: String {
        let family = isIPv4 ? AF_INET : AF_INET6
        let bytes = bytes
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = bytes.withUnsafeBytes { raw in
            text.withUnsafeMutableBufferPointer { out in
                inet_ntop(family, raw.baseAddress, out.baseAddress, socklen_t(out.count))
            }
        }
        // inet_ntop fails only for a short buffer or an unknown family, neither possible here.
        precondition(written != nil, "inet_ntop refused a valid address")
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The host part of a URL: IPv6 needs brackets there (`http://[::1]:8080/`).
    public var urlHost: String {
        isIPv4 ? description : "[\(description)]"
    }

    private static func parse(_ text: String, family: Int32) -> IPAddress? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let status = buffer.withUnsafeMutableBytes { out in
            inet_pton(family, text, out.baseAddress)
        }
        guard status == 1 else { return nil }
        return IPAddress(bytes: family == AF_INET ? buffer.prefix(4) : buffer[...])
    }
}
