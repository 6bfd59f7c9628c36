/// The `<Code>` and `<Message>` of an S3 error answer (`<Error><Code>NoSuchKey</Code>…`), read
/// without an XML parser: only these two elements matter, and their text has no markup.
public struct S3ErrorBody: Sendable, Equatable {
    public let code: String?
    public let message: String?

    /// Bodies larger than this are not S3 errors; the caller reads at most this much.
    public static let maxBytes = 16 * 1024

    public init(_ bytes: [UInt8]) {
        let text = String(decoding: bytes.prefix(Self.maxBytes), as: UTF8.self)
        code = Self.element("Code", in: text)
        message = Self.element("Message", in: text)
    }

    static func element(_ name: String, in text: String) -> String? {
        guard let open = text.range(of: "<\(name)>"), let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex) else {
            return nil
        }
        let value = text[open.upperBound..<close.lowerBound].prefix(300)
        return value.isEmpty ? nil : String(value)
    }

    /// Codes that mean the object (or its bucket) is not there.
    public var isMissing: Bool { ["NoSuchKey", "NoSuchBucket", "NotFound"].contains(code ?? "") }

    /// Codes that mean the credentials were refused or lack the right.
    public var isDenied: Bool {
        ["AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId", "ExpiredToken", "InvalidToken", "TokenRefreshRequired",
         "AllAccessDisabled", "AuthorizationHeaderMalformed", "InvalidSecurity", "RequestTimeTooSkewed"].contains(code ?? "")
    }
}
