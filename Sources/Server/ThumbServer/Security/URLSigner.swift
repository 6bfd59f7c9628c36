import Digests
import Foundation
import ThumbFleet

/// HMAC-SHA256 signatures over a thumbnail request's query, so that only holders of the key can
/// make the daemon fetch anything.
///
/// The signed text is canonical: every parameter but `sig`, sorted by name (then value), each
/// written `name=value` with everything but RFC 3986's unreserved characters percent-encoded, joined
/// by `&`. The signature is base64url without padding. `thumbd sign` prints signed URLs.
public struct URLSigner: Sendable {
    public static let parameter = "sig"
    private let key: [UInt8]

    public init(key: String) {
        self.key = Array(key.utf8)
    }

    public static func canonicalQuery(_ parameters: [(String, String)]) -> String {
        CanonicalQuery.write(parameters.filter { $0.0 != parameter })
    }

    public func signature(for parameters: [(String, String)]) -> String {
        let mac = HMACSHA256.code(for: Self.canonicalQuery(parameters), key: key)
        return Data(mac).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// True when `parameters` carry a `sig` that matches the rest. Compared in constant time.
    public func isValid(_ parameters: [(String, String)]) -> Bool {
        guard let given = parameters.first(where: { $0.0 == Self.parameter })?.1 else { return false }
        let expected = signature(for: parameters)
        let a = Array(given.utf8), b = Array(expected.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// The query string for `parameters` with its signature appended.
    public func signedQuery(_ parameters: [(String, String)]) -> String {
        Self.canonicalQuery(parameters) + "&\(Self.parameter)=\(signature(for: parameters))"
    }
}
