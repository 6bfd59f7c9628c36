import ObjectStorage

/// `cache.shared: s3://BUCKET/PREFIX`: a result tier every node of a fleet reads and writes, so a
/// new or restarted node does not start cold. Its size is the bucket's lifecycle rule's business.
public struct SharedTierSettings: Sendable {
    public let bucket: String
    /// Without slashes at either end; may be empty.
    public let prefix: String
    /// A read that takes longer is given up: the node goes to the origin (and says so in metrics).
    public var readTimeout: Duration = .seconds(2)
    /// Writes waiting or under way; a thumbnail made past this is not written (counted as dropped).
    public var maxPendingWrites: Int = 64
    /// Reads failed in a row that open the breaker (`SharedTierBreaker`), and how long it then stays open.
    public var breakerFailures = 3
    public var breakerWindow: Duration = .seconds(5)

    public init(_ text: String) throws(S3LocationError) {
        guard S3Location.isS3(text) else { throw S3LocationError("cache.shared must be s3://BUCKET[/PREFIX], not \(text.prefix(200))") }
        let rest = text.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        try S3Location.check(bucket: bucket)
        let prefix = rest.dropFirst(bucket.count).split(separator: "/").joined(separator: "/")
        guard !prefix.contains(where: { $0 == "?" || $0 == "#" || $0 == "%" }), prefix.utf8.count <= 512 else {
            throw S3LocationError("the prefix of cache.shared must be plain text, at most 512 bytes, without ?, # or %")
        }
        self.bucket = bucket
        self.prefix = prefix
    }

    public var description: String { "s3://\(bucket)/\(prefix)" }
}
