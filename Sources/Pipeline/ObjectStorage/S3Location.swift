/// An object named by an `s3://BUCKET/KEY` URL. The key is percent-decoded (the URL's path is
/// percent-encoded like any URL's); requests encode it again the way SigV4 signs it.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    public let bucket: String
    public let key: String

    public static let scheme = "s3"
    /// S3's own limit on a key's length, in UTF-8 bytes.
    public static let maxKeyBytes = 1024

    /// Whether `text` names the s3 scheme (any case), so a caller can pick the parser.
    public static func isS3(_ text: String) -> Bool { text.utf8.count > 5 && text.prefix(5).lowercased() == "s3://" }

    public init(_ text: String) throws(S3LocationError) {
        guard Self.isS3(text) else { throw S3LocationError("not an s3:// URL: \(text.prefix(200))") }
        let rest = text.dropFirst(5)
        guard !rest.contains("?"), !rest.contains("#") else {
            throw S3LocationError("an s3:// URL names a bucket and a key only; it takes no query or fragment")
        }
        guard let slash = rest.firstIndex(of: "/") else { throw S3LocationError("an s3:// URL needs a key after the bucket: s3://BUCKET/KEY") }
        let bucket = String(rest[..<slash])
        try Self.check(bucket: bucket)
        let encodedKey = String(rest[rest.index(after: slash)...])
        guard !encodedKey.isEmpty else { throw S3LocationError("an s3:// URL needs a key after the bucket: s3://BUCKET/KEY") }
        guard let key = encodedKey.removingPercentEncoding else {
            throw S3LocationError("the key of \(text.prefix(200)) has a malformed percent escape")
        }
        guard key.utf8.count <= Self.maxKeyBytes else { throw S3LocationError("an S3 key is at most \(Self.maxKeyBytes) bytes") }
        self.bucket = bucket
        self.key = key
    }

    /// S3's rules for a bucket name (3 to 63 lower-case letters, digits, dots and hyphens, starting
    /// and ending with a letter or digit). Checked before the name goes into a host name or a path.
    public static func check(bucket: String) throws(S3LocationError) {
        let bytes = Array(bucket.utf8)
        func isAlphanumeric(_ b: UInt8) -> Bool { (0x61...0x7A).contains(b) || (0x30...0x39).contains(b) }
        guard (3...63).contains(bytes.count), bytes.allSatisfy({ isAlphanumeric($0) || $0 == 0x2E || $0 == 0x2D }),
              isAlphanumeric(bytes.first!), isAlphanumeric(bytes.last!) else {
            throw S3LocationError("\"\(bucket.prefix(100))\" is not a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens")
        }
    }

    /// The canonical URL: the cache's key for this object.
    public var description: String { "s3://\(bucket)/\(SigV4Encoding.encode(key, keepingSlashes: true))" }
}

public struct S3LocationError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
