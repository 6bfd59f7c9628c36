import ImageCore

/// What libtiff said when a call failed, turned into the stable codes.
///
/// libtiff has no error codes, only messages ("module: text"), so the kind is told from the words
/// it uses: a read that came back short (or a strip or tile that lies past the end of the file,
/// `pastEnd`) is `truncated_image`; an allocation over the limit set in the open options is
/// `pixel_limit_exceeded`; a compression or feature libtiff lacks is `unsupported_format`;
/// everything else is `corrupt_image`. The message goes into the error for people to read.
struct TIFFFailure {
    let message: String
    /// The client read procedure was asked for bytes past the end of the data.
    let readPastEnd: Bool
    /// Set by the caller when the strip or tile that failed lies (partly) past the end of the file.
    var pastEnd = false

    /// libtiff's words for a read that came back short: "Read error on strip 3; got 0 bytes,
    /// expected 1200", "Cannot read TIFF directory count", "IO error during reading of ...".
    static let shortReadWords = ["Read error", "read error", "Cannot read", "Can not read", "IO error"]
    /// Allocation refused by the limit of the open options, or by malloc.
    static let memoryWords = ["byte limit", "Failed to allocate", "Out of memory", "Cannot allocate", "Not enough memory", "No space for", "memory allocation"]
    static let unsupportedWords = ["not implemented", "not configured", "Sorry", "not supported", "unsupported", "Unsupported"]

    var isShortRead: Bool {
        readPastEnd || pastEnd || Self.shortReadWords.contains { message.contains($0) }
    }

    /// The error for a failure while doing `what` ("decoding strip 3", "reading the first directory").
    func error(_ what: String) -> ImageError {
        let detail = message.isEmpty ? "libtiff gave no reason" : message
        if isShortRead {
            return .truncated("TIFF data ends early (truncated file): \(what) (\(detail))")
        }
        if Self.memoryWords.contains(where: { message.contains($0) }) {
            return ImageError(.pixelLimitExceeded, "TIFF needs more memory than the decode limit allows: \(what) (\(detail))")
        }
        if Self.unsupportedWords.contains(where: { message.contains($0) }) {
            return .unsupported("TIFF uses a feature libtiff \(LibTIFF.version) does not support: \(what) (\(detail))")
        }
        return .corrupt("TIFF data is invalid: \(what) (\(detail))")
    }
}
