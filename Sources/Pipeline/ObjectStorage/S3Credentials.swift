/// An access key pair, with the session token of temporary credentials. Its description never
/// shows the secret or the token: credentials end up in error messages and logs by accident.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String { "access key \(accessKeyID) (secret hidden)" }
}
