/// Every way an image can be refused, with a stable machine-readable code.
///
/// The codes are a public contract (CLI output, HTTP problem+json, logs): never rename one.
public struct ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable, Codable {
        case corruptImage = "corrupt_image"
        case truncatedImage = "truncated_image"
        case unsupportedFormat = "unsupported_format"
        case pixelLimitExceeded = "pixel_limit_exceeded"
        case encodeFailed = "encode_failed"
        case invalidRequest = "invalid_request"
        /// A byte cap the thumbnail cannot meet even at the lowest quality tried.
        case budgetUnreachable = "budget_unreachable"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func corrupt(_ message: String) -> ImageError { ImageError(.corruptImage, message) }
    public static func truncated(_ message: String) -> ImageError { ImageError(.truncatedImage, message) }
    public static func unsupported(_ message: String) -> ImageError { ImageError(.unsupportedFormat, message) }
}
