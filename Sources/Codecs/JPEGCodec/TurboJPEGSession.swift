import CTurboJPEG
import ImageCore

/// One TurboJPEG compressor handle, freed when the session ends. Handles are not thread-safe, so
/// each encode makes its own (creating one costs microseconds next to the work).
final class TurboJPEGSession {
    let handle: tjhandle

    init() throws(ImageError) {
        guard let handle = tjInitCompress() else { throw ImageError(.encodeFailed, "TurboJPEG could not start an encoder") }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    func error() -> ImageError {
        let message = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown TurboJPEG error"
        return ImageError(.encodeFailed, "JPEG: \(message)")
    }
}
