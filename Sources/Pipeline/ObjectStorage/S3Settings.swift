import Foundation

/// Where the objects of `s3://` URLs are, and with which credentials: one default and any number
/// of buckets that differ (`sources.s3` in the configuration, or the AWS_* variables every AWS
/// tool reads).
public struct S3Settings: Sendable {
    public var region: String = "us-east-1"
    /// A custom endpoint (MinIO, Ceph, R2, SeaweedFS, GCS's S3 interface): `http(s)://HOST[:PORT]`.
    /// Nil: AWS's own, `https://s3.REGION.amazonaws.com`.
    public var endpoint: S3Endpoint?
    /// Path-style addressing (`ENDPOINT/BUCKET/KEY`). Nil: path style for a custom endpoint, the
    /// bucket's own host name on AWS (except for bucket names with dots, which no certificate covers).
    public var pathStyle: Bool?
    /// Nil: requests go unsigned, which only a public bucket answers.
    public var credentials: S3Credentials?
    /// Per-bucket differences; what a bucket leaves out comes from the fields above. Also the
    /// buckets `s3://` URLs may read, unless `anyBucket`.
    public var buckets: [String: S3BucketSettings] = [:]
    /// Every bucket the credentials can read is a source (the behaviour before 0.14.0). Off: only
    /// those listed in `buckets`, so a client cannot turn any readable object into a thumbnail.
    public var anyBucket = false
    /// The shared result tier's bucket: never read as a source, whatever the above say, so a client
    /// cannot read the fleet's stored thumbnails and their facts by name.
    public var reservedBucket: String?

    public init() {}

    /// The variables AWS's own tools read: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
    /// AWS_SESSION_TOKEN, AWS_REGION (or AWS_DEFAULT_REGION), AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL).
    public static func fromEnvironment(_ environment: [String: String]) throws(S3SettingsError) -> S3Settings {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        var settings = S3Settings()
        if let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") { settings.region = region }
        if let endpoint = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL") {
            settings.endpoint = try S3Endpoint(endpoint)
        }
        switch (value("AWS_ACCESS_KEY_ID"), value("AWS_SECRET_ACCESS_KEY")) {
        case (let id?, let secret?):
            settings.credentials = S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
        case (nil, nil):
            break
        default:
            throw S3SettingsError("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together: one of them is set without the other")
        }
        return settings
    }

    /// Whether an `s3://` URL may read from `bucket`; nil when it may, else why not.
    public func refusal(of bucket: String) -> String? {
        if bucket == reservedBucket {
            return "s3://\(bucket) holds the shared tier (cache.shared) and is never read as a source"
        }
        guard anyBucket || buckets[bucket] != nil else {
            return "s3://\(bucket) is not listed in sources.s3.buckets (sources.s3.any_bucket is off)"
        }
        return nil
    }

    /// What requests for `bucket` use.
    public func target(for bucket: String) -> S3Target {
        let own = buckets[bucket]
        let endpoint = own?.endpoint ?? self.endpoint
        let region = own?.region ?? self.region
        let pathStyle = own?.pathStyle ?? self.pathStyle ?? (endpoint != nil || bucket.contains("."))
        return S3Target(bucket: bucket, region: region, endpoint: endpoint ?? S3Endpoint.aws(region: region),
                        pathStyle: pathStyle, credentials: own?.credentials ?? credentials)
    }
}

/// What one bucket sets differently from `S3Settings`' defaults.
public struct S3BucketSettings: Sendable {
    public var region: String?
    public var endpoint: S3Endpoint?
    public var pathStyle: Bool?
    public var credentials: S3Credentials?

    public init(region: String? = nil, endpoint: S3Endpoint? = nil, pathStyle: Bool? = nil, credentials: S3Credentials? = nil) {
        self.region = region
        self.endpoint = endpoint
        self.pathStyle = pathStyle
        self.credentials = credentials
    }
}

/// An S3 endpoint's scheme, host and port.
public struct S3Endpoint: Sendable, Equatable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    public let port: Int

    public init(_ text: String) throws(S3SettingsError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty else {
            throw S3SettingsError("the S3 endpoint \"\(text.prefix(200))\" is not an http(s)://HOST[:PORT] URL")
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.user == nil else {
            throw S3SettingsError("the S3 endpoint \"\(text.prefix(200))\" must be only http(s)://HOST[:PORT], without a path, query or credentials")
        }
        self.scheme = scheme
        self.host = host.lowercased()
        port = components.port ?? (scheme == "https" ? 443 : 80)
    }

    init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    static func aws(region: String) -> S3Endpoint { S3Endpoint(scheme: "https", host: "s3.\(region).amazonaws.com", port: 443) }

    /// `host` as a Host header and a URL write it: the port only when it is not the scheme's own.
    func authority(host name: String) -> String {
        let bracketed = name.contains(":") ? "[\(name)]" : name
        return port == (scheme == "https" ? 443 : 80) ? bracketed : "\(bracketed):\(port)"
    }

    public var description: String { "\(scheme)://\(authority(host: host))" }
}

public struct S3SettingsError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
