import CWebP
import ImageCore

extension ImageError {
    /// Maps a libwebp status to the stable error codes. `what` names the step that failed.
    static func webp(_ status: VP8StatusCode, _ what: String) -> ImageError {
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA:
            return .truncated("WebP data ends early (truncated file): \(what)")
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            return .unsupported("WebP uses a feature libwebp does not support: \(what)")
        case VP8_STATUS_OUT_OF_MEMORY:
            // libwebp allocates from header sizes we already checked; running out still means the
            // image is too big for this process.
            return ImageError(.pixelLimitExceeded, "libwebp ran out of memory: \(what)")
        case VP8_STATUS_BITSTREAM_ERROR:
            return .corrupt("WebP bitstream is invalid: \(what)")
        case VP8_STATUS_INVALID_PARAM:
            return .corrupt("WebP data is invalid: \(what)")
        default:
            return .corrupt("WebP decode failed (libwebp status \(status.rawValue)): \(what)")
        }
    }
}
