import CTurboJPEG
import ImageCore

/// One TurboJPEG handle, freed when the session ends. Handles are not thread-safe, so each decode
/// or encode makes its own (creating one costs microseconds next to the work).
final class TurboJPEGSession {
    let handle: tjhandle

    init(decompress: Void) throws(ImageError) {
        guard let handle = tjInitDecompress() else { throw ImageError(.corruptImage, "TurboJPEG could not start a decoder") }
        self.handle = handle
    }

    init(compress: Void) throws(ImageError) {
        guard let handle = tjInitCompress() else { throw ImageError(.encodeFailed, "TurboJPEG could not start an encoder") }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    var lastCallOnlyWarned: Bool { tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) }

    func error(defaultCode: ImageError.Code) -> ImageError {
        let message = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown TurboJPEG error"
        if message.contains("Unsupported JPEG data precision") || message.contains("Unsupported color conversion") {
            return .unsupported("JPEG: \(message)")
        }
        if message.contains("Premature end") {
            return .truncated("JPEG data ends early (truncated file)")
        }
        return ImageError(defaultCode, "JPEG: \(message)")
    }
}
