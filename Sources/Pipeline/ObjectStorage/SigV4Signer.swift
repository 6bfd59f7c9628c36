import Digests
import Foundation

/// AWS Signature Version 4 for S3 requests (HMAC-SHA256), in the header form and the query form
/// (presigned URLs). Written here because no S3 SDK for Swift is on the machines thumbd builds on;
/// the tests hold it against AWS's published examples and against botocore's signer.
public struct SigV4Signer: Sendable {
    public let credentials: S3Credentials
    public let region: String
    public let service: String

    /// SHA-256 of an empty body: what a GET, HEAD or DELETE signs as its payload.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers to add to a request (`Authorization`, `x-amz-date`, `x-amz-content-sha256`, and
    /// `x-amz-security-token` with temporary credentials). `headers` are the ones to sign besides
    /// those: `host` at least.
    public func signedHeaders(method: String, path: String, query: [(String, String)] = [], headers: [(String, String)],
                              payloadHash: String = SigV4Signer.emptyPayloadHash, at date: Date) -> [(String, String)] {
        let stamp = AmzDate(date)
        var added = [("x-amz-content-sha256", payloadHash), ("x-amz-date", stamp.full)]
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
        let canonical = CanonicalRequest(method: method, path: path, query: query, headers: headers + added, payloadHash: payloadHash)
        let signature = sign(canonical, stamp: stamp)
        let authorization = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope(stamp)), "
            + "SignedHeaders=\(canonical.signedHeaderNames), Signature=\(signature)"
        return added + [("Authorization", authorization)]
    }

    /// The query parameters that make a URL presigned for `expires` seconds (1 to 604,800), to be
    /// appended to `query`. Only `host` is signed; the payload is not.
    public func presignedQuery(method: String, path: String, query: [(String, String)] = [], host: String,
                               expires: Int, at date: Date) -> [(String, String)] {
        let stamp = AmzDate(date)
        var added = [("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
                     ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(stamp))"),
                     ("X-Amz-Date", stamp.full),
                     ("X-Amz-Expires", String(expires))]
        if let token = credentials.sessionToken { added.append(("X-Amz-Security-Token", token)) }
        added.append(("X-Amz-SignedHeaders", "host"))
        let canonical = CanonicalRequest(method: method, path: path, query: query + added, headers: [("host", host)],
                                         payloadHash: "UNSIGNED-PAYLOAD")
        return added + [("X-Amz-Signature", sign(canonical, stamp: stamp))]
    }

    func scope(_ stamp: AmzDate) -> String { "\(stamp.day)/\(region)/\(service)/aws4_request" }

    func stringToSign(_ canonical: CanonicalRequest, stamp: AmzDate) -> String {
        ["AWS4-HMAC-SHA256", stamp.full, scope(stamp), SHA256Digest(of: canonical.text).hex].joined(separator: "\n")
    }

    func sign(_ canonical: CanonicalRequest, stamp: AmzDate) -> String {
        var key = Array(("AWS4" + credentials.secretAccessKey).utf8)
        for part in [stamp.day, region, service, "aws4_request"] {
            key = HMACSHA256.code(for: part, key: key)
        }
        return HexText.lowercase(HMACSHA256.code(for: stringToSign(canonical, stamp: stamp), key: key))
    }
}

/// The request as SigV4 hashes it: method, URI-encoded path, sorted query, sorted lower-cased
/// headers with trimmed values, the signed header names and the payload's hash.
struct CanonicalRequest {
    let text: String
    let signedHeaderNames: String

    init(method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String) {
        let encoded: [(name: String, value: String)] = query.map { (SigV4Encoding.encode($0.0), SigV4Encoding.encode($0.1)) }
        let sorted = encoded.sorted { a, b in a.name == b.name ? a.value < b.value : a.name < b.name }
        let encodedQuery = sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
        var merged: [String: [String]] = [:]
        for (name, value) in headers {
            let collapsed = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            merged[name.lowercased(), default: []].append(collapsed)
        }
        let names = merged.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(merged[$0]!.joined(separator: ","))\n" }.joined()
        signedHeaderNames = names.joined(separator: ";")
        text = [method, SigV4Encoding.encode(path, keepingSlashes: true), encodedQuery, canonicalHeaders, signedHeaderNames, payloadHash]
            .joined(separator: "\n")
    }
}

/// SigV4's URI encoding: every byte but the unreserved characters (A-Z a-z 0-9 - . _ ~) as %XX in
/// upper-case hex; slashes kept in a path. The same encoding makes the request's own URL, so what
/// is signed is what is sent.
public enum SigV4Encoding {
    public static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlashes:
                out.append("/")
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

/// The two forms of a request's time SigV4 uses: 20130524T000000Z and 20130524 (UTC).
struct AmzDate {
    let full: String
    let day: String

    init(_ date: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String { String(n ?? 0).leftPadded(to: 2) }
        day = String(c.year ?? 1970).leftPadded(to: 4) + two(c.month) + two(c.day)
        full = day + "T" + two(c.hour) + two(c.minute) + two(c.second) + "Z"
    }
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
