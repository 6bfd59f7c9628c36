import CHEIF
import ImageCore

extension ImageError {
    /// Maps a libheif error to the stable codes. `what` names the step that failed.
    ///
    /// libheif says "end of data" for data that stops early (an item's extent past the end of the
    /// file): truncated. Its security limits (image size, box counts, nesting) are allocation limits:
    /// `pixel_limit_exceeded`. A codec or feature it lacks is unsupported; the rest is corrupt data,
    /// the HEVC decoder's failures included. libheif's message text belongs to the context (or image)
    /// that reported it: call this before freeing that.
    static func heif(_ error: heif_error, _ what: String) -> ImageError {
        let message = error.message.map { String(cString: $0) } ?? ""
        let detail = message.isEmpty ? "libheif error \(error.code.rawValue)/\(error.subcode.rawValue)" : message
        switch (error.code, error.subcode) {
        case (_, heif_suberror_End_of_data):
            return .truncated("HEIC data ends early (truncated file): \(what) (\(detail))")
        case (heif_error_Memory_allocation_error, _), (_, heif_suberror_Security_limit_exceeded):
            return ImageError(.pixelLimitExceeded, "HEIC image is over libheif's limits: \(what) (\(detail))")
        case (heif_error_Unsupported_filetype, _), (heif_error_Unsupported_feature, _):
            return .unsupported("HEIC uses a feature libheif \(LibHEIF.version) does not support: \(what) (\(detail))")
        case (heif_error_Decoder_plugin_error, _):
            return .corrupt("HEVC bitstream is invalid: \(what) (\(detail))")
        default:
            return .corrupt("HEIC data is invalid: \(what) (\(detail))")
        }
    }
}
