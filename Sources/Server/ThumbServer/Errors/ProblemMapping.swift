import Hummingbird
import ImageCore
import ThumbCache
import ThumbPipeline
import UploadPreparation

extension Problem {
    /// The problem for anything the pipeline throws. Unknown errors are 500 `internal_error`
    /// (their text is logged, not shown).
    static func from(_ error: any Error, retryAfter: Int) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let error as DownloadError:
            return Problem(status(of: error), code: error.code.rawValue, detail: error.message)
        case let error as ImageError:
            return Problem(status(of: error.code), code: error.code.rawValue, detail: error.message)
        case let busy as PipelineBusy:
            return Problem(.serviceUnavailable, code: "busy", detail: busy.description, retryAfter: retryAfter)
        case let error as UploadError:
            var problem = Problem(status(of: error.code), code: error.code.rawValue, detail: error.message)
            problem.image = error.image
            return problem
        case let error as CacheKeyError:
            return Problem(.badRequest, code: "invalid_url", detail: error.message)
        case let error as PlaceholderUnavailable:
            return Problem(.internalServerError, code: "placeholder_unavailable", detail: error.description)
        default:
            return Problem(.internalServerError, code: "internal_error", detail: "the request failed inside thumbd; see its log")
        }
    }

    private static func status(of error: DownloadError) -> HTTPResponse.Status {
        switch error.code {
        case .invalidURL: .badRequest
        case .destinationBlocked, .bucketNotAllowed: .forbidden
        // The origin's "not found" is the client's answer too; any other origin status is our gateway's failure.
        case .originStatus: error.originStatus == 404 || error.originStatus == 410 ? .notFound : .badGateway
        // The origin misbehaved or could not be reached safely: our gateway's failure, never the client's.
        case .tooManyRedirects, .originTruncated, .originUnreachable, .originTLS, .insecureRedirect, .originHeadersTooLarge: .badGateway
        case .objectNotFound: .notFound
        case .urlRefused: .forbidden
        // thumbd's own credentials were refused: the operator's to fix, not the client's.
        case .objectAccessDenied: .badGateway
        case .originTimeout: .gatewayTimeout
        case .originTooLarge: .contentTooLarge
        }
    }

    private static func status(of code: UploadError.Code) -> HTTPResponse.Status {
        switch code {
        case .noImages, .tooManyImages, .invalidUpload, .invalidRequest, .unreadableFile: .badRequest
        case .imageTooLarge, .requestTooLarge: .contentTooLarge
        case .budgetUnreachable, .corruptImage, .truncatedImage, .pixelLimitExceeded: .unprocessableContent
        case .unsupportedFormat: .unsupportedMediaType
        case .encodeFailed, .writeFailed: .internalServerError
        }
    }

    private static func status(of code: ImageError.Code) -> HTTPResponse.Status {
        switch code {
        case .unsupportedFormat: .unsupportedMediaType
        case .corruptImage, .truncatedImage, .pixelLimitExceeded, .budgetUnreachable: .unprocessableContent
        case .invalidRequest: .badRequest
        case .encodeFailed: .internalServerError
        }
    }
}
