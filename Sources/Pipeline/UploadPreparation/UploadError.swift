import ImageCore

/// Every way a batch of upload photos can be refused, with a stable code and, when one image is to
/// blame, which one (its 1-based position and its name).
///
/// The codes are a public contract (CLI output, HTTP problem+json): never rename one.
public struct UploadError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable, Codable {
        case noImages = "no_images"
        case tooManyImages = "too_many_images"
        case budgetUnreachable = "budget_unreachable"
        case imageTooLarge = "image_too_large"
        case requestTooLarge = "request_too_large"
        case invalidUpload = "invalid_upload"
        case invalidRequest = "invalid_request"
        /// An original that cannot be read (the CLI's files).
        case unreadableFile = "unreadable_file"
        /// The prepared batch could not be written (the CLI's output folder); nothing was left behind.
        case writeFailed = "write_failed"
        case corruptImage = "corrupt_image"
        case truncatedImage = "truncated_image"
        case unsupportedFormat = "unsupported_format"
        case pixelLimitExceeded = "pixel_limit_exceeded"
        case encodeFailed = "encode_failed"

        init(_ code: ImageError.Code) {
            self = switch code {
            case .corruptImage: .corruptImage
            case .truncatedImage: .truncatedImage
            case .unsupportedFormat: .unsupportedFormat
            case .pixelLimitExceeded: .pixelLimitExceeded
            case .encodeFailed: .encodeFailed
            case .invalidRequest: .invalidRequest
            case .budgetUnreachable: .budgetUnreachable
            }
        }
    }

    public let code: Code
    public let message: String
    /// The image at fault, or nil for a batch-level refusal.
    public let image: ImageReference?

    public init(_ code: Code, _ message: String, image: ImageReference? = nil) {
        self.code = code
        self.message = message
        self.image = image
    }

    init(_ error: ImageError, image: ImageReference) {
        self.init(Code(error.code), error.message, image: image)
    }

    public var description: String {
        guard let image else { return "\(code.rawValue): \(message)" }
        return "\(code.rawValue): \(image): \(message)"
    }
}

/// An image of a batch as a person names it: "image 3 (IMG_0412.jpg)".
public struct ImageReference: Sendable, Equatable, Codable, CustomStringConvertible {
    /// 1-based, in the order given.
    public let position: Int
    public let name: String

    public init(position: Int, name: String) {
        self.position = position
        self.name = name
    }

    public var description: String { "image \(position) (\(name))" }
}
