import Foundation

/// One bucket's endpoint, addressing and credentials, resolved from `S3Settings`: makes the signed
/// requests for its objects.
public struct S3Target: Sendable {
    public let bucket: String
    public let region: String
    public let endpoint: S3Endpoint
    public let pathStyle: Bool
    public let credentials: S3Credentials?

    /// A request ready to send: its URL, and the headers to send with it (Host and the signature's).
    public struct Request: Sendable {
        public let url: String
        public let headers: [(String, String)]
        /// The host and port connected to, for per-host limits and messages.
        public let authority: String
    }

    /// A request for `key` (nil: the bucket itself), signed when credentials are set.
    /// `payloadHash` is the body's SHA-256 in hex (a PUT's); GET, HEAD and DELETE sign an empty one.
    public func request(_ method: String, key: String?, query: [(String, String)] = [], extraSignedHeaders: [(String, String)] = [],
                        payloadHash: String = SigV4Signer.emptyPayloadHash, at date: Date = Date()) -> Request {
        let host = pathStyle ? endpoint.host : "\(bucket).\(endpoint.host)"
        let authority = endpoint.authority(host: host)
        let path = (pathStyle ? "/\(bucket)" : "") + "/" + (key ?? "")
        var headers = [("host", authority)] + extraSignedHeaders
        if let credentials {
            let signer = SigV4Signer(credentials: credentials, region: region)
            headers += signer.signedHeaders(method: method, path: path, query: query, headers: headers, payloadHash: payloadHash, at: date)
        }
        let encodedQuery = query.map { SigV4Encoding.encode($0.0) + "=" + SigV4Encoding.encode($0.1) }.joined(separator: "&")
        let url = "\(endpoint.scheme)://\(authority)\(SigV4Encoding.encode(path, keepingSlashes: true))"
            + (encodedQuery.isEmpty ? "" : "?" + encodedQuery)
        return Request(url: url, headers: headers, authority: authority)
    }
}
