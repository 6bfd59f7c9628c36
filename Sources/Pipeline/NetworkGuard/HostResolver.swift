/// Turns a host into the addresses to check. IP literals (`127.0.0.1`, `[::1]`, `fe80::1%eth0`)
/// are answered directly; names go to the system resolver (getaddrinfo, so /etc/hosts and
/// nsswitch apply) on a thread of their own.
public struct HostResolver: Sendable {
    private let lookUp: @Sendable (_ host: String, _ port: Int) async throws -> [IPAddress]

    /// The system resolver.
    public init() {
        lookUp = { host, port in try await SystemLookup.addresses(host: host, port: port) }
    }

    /// Answers names from a table instead of DNS (case-insensitive, trailing dot ignored); any
    /// other name is not found. For tests that need a name to resolve to chosen addresses.
    public static func fixed(_ answers: [String: [IPAddress]]) -> HostResolver {
        var table: [String: [IPAddress]] = [:]
        for (name, addresses) in answers {
            guard let key = HostPattern.normalize(Substring(name)) else { preconditionFailure("'\(name)' is not a host name") }
            table[key] = addresses
        }
        return HostResolver { [table] host, _ in
            guard let key = HostPattern.normalize(Substring(host)), let addresses = table[key], !addresses.isEmpty else {
                throw ResolutionError(host: host, reason: .notFound, detail: "not in the fixed table")
            }
            return addresses
        }
    }

    /// Answers as this resolver does, but only after `delay`: a DNS server that takes its time,
    /// for tests (a real one cannot be slowed without root). Cancelling the lookup ends the wait, as
    /// it does for the system resolver.
    public func delayed(by delay: Duration) -> HostResolver {
        HostResolver { [lookUp] host, port in
            try await Task.sleep(for: delay)
            return try await lookUp(host, port)
        }
    }

    private init(lookUp: @escaping @Sendable (_ host: String, _ port: Int) async throws -> [IPAddress]) {
        self.lookUp = lookUp
    }

    /// The addresses for `host`, without duplicates, in the resolver's order (which already
    /// reflects the system's address preference). Never empty: no answer is a `ResolutionError`.
    public func resolve(host: String, port: Int) async throws -> [IPAddress] {
        guard (0...65535).contains(port) else {
            throw ResolutionError(host: host, reason: .invalidRequest, detail: "port \(port) is out of range")
        }
        if let literal = IPAddress(host) {
            return [literal]
        }
        // C sees a string only up to its first NUL, and control characters or spaces are never part
        // of a host name: refuse them rather than look up something other than what was checked.
        guard !host.isEmpty, host.utf8.count <= 254, host.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            throw ResolutionError(host: host, reason: .invalidRequest, detail: "not a valid host name")
        }
        var seen = Set<IPAddress>()
        let unique = try await lookUp(host, port).filter { seen.insert($0).inserted }
        guard !unique.isEmpty else {
            throw ResolutionError(host: host, reason: .notFound, detail: "no addresses")
        }
        return unique
    }
}

/// A host that could not be resolved; `detail` is the resolver's own text (gai_strerror).
public struct ResolutionError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// No such name, or no IPv4/IPv6 address for it.
        case notFound
        /// The DNS server did not answer in time or failed; a retry may succeed.
        case temporaryFailure
        /// An empty or malformed host, or a bad port.
        case invalidRequest
        /// Anything else the resolver reported (out of memory, a system error).
        case failed
    }

    public let host: String
    public let reason: Reason
    public let detail: String

    public init(host: String, reason: Reason, detail: String) {
        self.host = host
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "cannot resolve \(host): \(detail)" }
}
