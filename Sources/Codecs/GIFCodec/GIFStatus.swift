import CGIF
import ImageCore

extension ImageError {
    /// Maps a giflib failure to the stable codes. `what` names the step that failed.
    ///
    /// giflib says D_GIF_ERR_READ_FAILED both when the file ends and when a byte it read is impossible
    /// (an LZW code size over 8), and some of its reads fail without setting any code: so whether the
    /// file ran out is taken from the byte source itself (`ranOut`), never from the code. A file that
    /// ran out is truncated; so is LZW data whose end code comes before the frame's last pixel
    /// (D_GIF_ERR_EOF_TOO_SOON: the image is cut short, even if the file goes on). giflib's only
    /// allocations are its small tables, so running out of memory there is a limit, not bad data.
    static func gif(_ code: Int32, ranOut: Bool, _ what: String) -> ImageError {
        let detail = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        if ranOut {
            return .truncated("GIF data ends early (truncated file): \(what)")
        }
        switch code {
        case D_GIF_ERR_EOF_TOO_SOON:
            return .truncated("the GIF frame's LZW data ends before its last pixel: \(what) (\(detail))")
        case D_GIF_ERR_NOT_ENOUGH_MEM:
            return ImageError(.pixelLimitExceeded, "giflib could not allocate its tables: \(what) (\(detail))")
        case D_GIF_ERR_NOT_GIF_FILE:
            return .corrupt("not a GIF file: \(what)")
        case D_GIF_ERR_WRONG_RECORD:
            return .corrupt("the GIF holds a record that is neither an image, an extension nor the trailer: \(what)")
        case D_GIF_ERR_IMAGE_DEFECT:
            return .corrupt("the GIF frame's LZW data is invalid: \(what) (\(detail))")
        case D_GIF_ERR_DATA_TOO_BIG:
            return .corrupt("the GIF frame holds more pixels than its size: \(what) (\(detail))")
        case D_GIF_ERR_READ_FAILED:
            // Not out of data (above): giflib's code for an LZW minimum code size over 8.
            return .corrupt("the GIF's LZW code size is invalid: \(what)")
        case 0:
            return .corrupt("the GIF data is invalid: \(what)")
        default:
            return .corrupt("the GIF data is invalid: \(what) (\(detail))")
        }
    }
}
