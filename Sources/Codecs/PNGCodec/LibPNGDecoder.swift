import CPNGBridge
import ImageCore

/// One libpng read, through the C bridge (which keeps every setjmp/longjmp on the C side).
///
/// Not Sendable and never escapes a `withDecoder` call: it points into the caller's bytes.
final class LibPNGDecoder {
    private let handle: OpaquePointer

    struct Header {
        var width: Int
        var height: Int
        var colorType: Int
        var bitDepth: Int
        var interlaced: Bool
        var hasAlpha: Bool
        var exif: [UInt8]?
        var color: EmbeddedColor
    }

    private init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        thumbd_png_decoder_destroy(handle)
    }

    /// Runs `body` with a decoder reading `data`; the decoder is gone when this returns.
    /// libpng and zlib may hold at most `memoryLimit` bytes between them.
    static func withDecoder<R>(_ data: [UInt8], memoryLimit: Int,
                               _ body: (LibPNGDecoder) throws(ImageError) -> R) throws(ImageError) -> R {
        let result: Result<R, ImageError> = data.withUnsafeBufferPointer { bytes in
            guard let handle = thumbd_png_decoder_create(bytes.baseAddress, bytes.count, max(0, memoryLimit)) else {
                return .failure(ImageError(.pixelLimitExceeded, "out of memory starting the PNG decoder"))
            }
            let decoder = LibPNGDecoder(handle: handle)
            return withExtendedLifetime(decoder) { () -> Result<R, ImageError> in
                Result { () throws(ImageError) -> R in try body(decoder) }
            }
        }
        return try result.get()
    }

    /// The most memory libpng and zlib have held at once for this decoder.
    var peakLibPNGMemory: Int { thumbd_png_decoder_peak_memory(handle) }

    func readHeader() throws(ImageError) -> Header {
        var info = thumbd_png_info()
        try check(thumbd_png_read_info(handle, &info))
        var exif: [UInt8]?
        if let bytes = info.exif, info.exif_length > 0 {
            exif = Array(UnsafeBufferPointer(start: bytes, count: Int(info.exif_length)))
        }
        return Header(width: Int(info.width), height: Int(info.height),
                      colorType: Int(info.color_type), bitDepth: Int(info.bit_depth),
                      interlaced: info.interlaced != 0, hasAlpha: info.has_alpha != 0, exif: exif,
                      color: Self.color(info))
    }

    /// The PNG specification's order: an iCCP profile, else the sRGB chunk, else gAMA (with cHRM).
    private static func color(_ info: thumbd_png_info) -> EmbeddedColor {
        if let bytes = info.icc_profile, info.icc_profile_length > 0 {
            return .iccProfile(Array(UnsafeBufferPointer(start: bytes, count: Int(info.icc_profile_length))))
        }
        if info.has_srgb != 0 { return .sRGB }
        guard info.gamma > 0 else { return .unspecified }
        var chromaticities: EmbeddedColor.Chromaticities?
        if info.has_chromaticities != 0 {
            let c = withUnsafeBytes(of: info.chromaticities) { Array($0.bindMemory(to: Int32.self)) }.map { Double($0) / 100_000 }
            chromaticities = .init(white: (c[0], c[1]), red: (c[2], c[3]), green: (c[4], c[5]), blue: (c[6], c[7]))
        }
        return .pngGamma(fileGamma: Double(info.gamma) / 100_000, chromaticities: chromaticities)
    }

    /// Sets up every transformation to 8-bit RGBA; returns the output row size (width * 4).
    func startRGBA8() throws(ImageError) -> Int {
        var rowBytes = 0
        try check(thumbd_png_start_rgba8(handle, &rowBytes))
        return rowBytes
    }

    /// The next `count` rows of a non-interlaced image into `buffer`, `stride` bytes apart.
    func readRows(into buffer: UnsafeMutableBufferPointer<UInt8>, stride: Int, count: Int) throws(ImageError) {
        precondition(count >= 0 && buffer.count >= stride * count, "row buffer too small")
        guard count > 0, let base = buffer.baseAddress else { return }
        try check(thumbd_png_read_rows(handle, base, stride, UInt32(count)))
    }

    /// The whole image (every Adam7 pass) into `buffer`, `stride` bytes apart.
    func readImage(into buffer: UnsafeMutableBufferPointer<UInt8>, stride: Int, height: Int) throws(ImageError) {
        precondition(buffer.count >= stride * height, "image buffer too small")
        guard let base = buffer.baseAddress else { return }
        try check(thumbd_png_read_image(handle, base, stride))
    }

    /// Reads the chunks after the image data (up to IEND), so damage there is noticed too.
    func finish() throws(ImageError) {
        try check(thumbd_png_finish(handle))
    }

    private func check(_ status: thumbd_png_status) throws(ImageError) {
        guard status != THUMBD_PNG_OK else { return }
        let raw = String(cString: thumbd_png_decoder_message(handle))
        throw Self.error(status, raw)
    }

    static func error(_ status: thumbd_png_status, _ raw: String) -> ImageError {
        switch status {
        case THUMBD_PNG_TRUNCATED:
            return .truncated(raw.isEmpty ? "PNG data ends early (truncated file)" : raw)
        case THUMBD_PNG_LIMIT:
            return ImageError(.pixelLimitExceeded,
                              "PNG dimensions over the decoder's limit of \(THUMBD_PNG_MAX_DIMENSION) pixels a side (\(raw))")
        case THUMBD_PNG_NO_MEMORY:
            return ImageError(.pixelLimitExceeded, "decoding this PNG needs more memory than allowed (libpng: \(raw))")
        case THUMBD_PNG_MISUSE:
            return .corrupt("PNG decoder used out of order: \(raw)")
        default:
            return .corrupt(humanize(raw))
        }
    }

    /// libpng's terse messages, reworded where a person would not follow them.
    static func humanize(_ raw: String) -> String {
        if raw.isEmpty { return "corrupt PNG" }
        if raw == "Not a PNG file" { return "not a PNG file (bad signature)" }
        if raw == "PNG file corrupted by ASCII conversion" {
            return "PNG signature damaged by a text-mode (ASCII) transfer"
        }
        if raw.hasSuffix(": CRC error"), let colon = raw.firstIndex(of: ":") {
            return "bad CRC in \(raw[..<colon])"
        }
        return "corrupt PNG: \(raw)"
    }
}
