import CAVIF
import ImageCore

extension ImageError {
    /// Maps a libavif result to the stable error codes. `diagnostic` is libavif's detail text
    /// (avifDiagnostics), `what` names the step that failed.
    ///
    /// libavif 0.11.1 reports several different failures with one code, AVIF_RESULT_BMFF_PARSE_FAILED,
    /// and tells them apart only in its diagnostic text: dimensions over imageSizeLimit or
    /// imageDimensionLimit ("dimensions are too large"), a sequence over imageCountLimit ("Exceeded
    /// avifDecoder's imageCountLimit"), data offsets past the end of the file ("... possibly
    /// truncated data", "... Truncated data?"). Those texts are read here (the tests pin each one);
    /// anything else is corrupt. A cut between two top-level boxes (meta whole, mdat missing) is
    /// seen only by libavif, so its truncation reports are believed even when AVIFContainer found
    /// every box complete.
    static func avif(_ result: avifResult, _ diagnostic: String, _ what: String) -> ImageError {
        let detail = diagnostic.isEmpty ? resultName(result) : "\(resultName(result)): \(diagnostic)"
        switch result {
        case AVIF_RESULT_TRUNCATED_DATA:
            return .truncated("AVIF data ends early (truncated file): \(what) (\(detail))")
        case AVIF_RESULT_BMFF_PARSE_FAILED where diagnostic.contains("too large"):
            return ImageError(.pixelLimitExceeded, "AVIF image is larger than libavif decodes (\(AVIFDecoder.libavifMaxPixels) pixels, \(AVIFDecoder.libavifMaxDimension) a side): \(what) (\(detail))")
        case AVIF_RESULT_BMFF_PARSE_FAILED where diagnostic.contains("imageCountLimit"):
            return ImageError(.pixelLimitExceeded, "AVIF image sequence lists more than \(AVIFDecoder.frameCountLimit) frames: \(what) (\(detail))")
        case AVIF_RESULT_BMFF_PARSE_FAILED where diagnostic.lowercased().contains("truncated"):
            return .truncated("AVIF data ends early (truncated file): \(what) (\(detail))")
        case AVIF_RESULT_BMFF_PARSE_FAILED, AVIF_RESULT_INVALID_IMAGE_GRID, AVIF_RESULT_ISPE_SIZE_MISMATCH,
             AVIF_RESULT_COLOR_ALPHA_SIZE_MISMATCH, AVIF_RESULT_NO_CONTENT, AVIF_RESULT_INVALID_EXIF_PAYLOAD:
            return .corrupt("AVIF data is invalid: \(what) (\(detail))")
        case AVIF_RESULT_DECODE_COLOR_FAILED, AVIF_RESULT_DECODE_ALPHA_FAILED:
            // Also what the AV1 decoder says when a frame is larger than the image's ispe declared
            // (the frame size limit set before decoding).
            return .corrupt("AV1 bitstream is invalid: \(what) (\(detail))")
        case AVIF_RESULT_INVALID_FTYP:
            return .unsupported("not an AVIF file (its ftyp brands are not AVIF's): \(what)")
        case AVIF_RESULT_NO_AV1_ITEMS_FOUND:
            return .unsupported("the HEIF file holds no AV1 image: \(what) (\(detail))")
        case AVIF_RESULT_UNSUPPORTED_DEPTH, AVIF_RESULT_NOT_IMPLEMENTED, AVIF_RESULT_REFORMAT_FAILED, AVIF_RESULT_NO_CODEC_AVAILABLE:
            return .unsupported("AVIF uses a feature libavif \(AVIFDecoder.libavifVersion) does not support: \(what) (\(detail))")
        case AVIF_RESULT_OUT_OF_MEMORY:
            // libavif allocates from header sizes we already checked; running out still means the
            // image is too big for this process.
            return ImageError(.pixelLimitExceeded, "libavif ran out of memory: \(what)")
        default:
            return .corrupt("AVIF decode failed: \(what) (\(detail))")
        }
    }

    /// An encoder failure, with libavif's result and diagnostic.
    static func avifEncode(_ result: avifResult, _ diagnostic: String, _ what: String) -> ImageError {
        let detail = diagnostic.isEmpty ? resultName(result) : "\(resultName(result)): \(diagnostic)"
        return ImageError(.encodeFailed, "libavif could not encode \(what) (\(detail))")
    }

    static func resultName(_ result: avifResult) -> String {
        guard let name = avifResultToString(result) else { return "libavif result \(result.rawValue)" }
        return String(cString: name)
    }
}

/// libavif's diagnostic buffer (a fixed C array) as a Swift string.
func diagnosticText(_ diag: avifDiagnostics) -> String {
    withUnsafeBytes(of: diag.error) { raw in
        let bytes = raw.bindMemory(to: UInt8.self)
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
    }
}
