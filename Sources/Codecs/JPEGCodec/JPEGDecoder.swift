import CJPEGBridge
import ImageCore

/// JPEG decoding through libjpeg-turbo at the smallest fast DCT scale that still satisfies the caller's
/// `DecodeScaleHint`: libjpeg-turbo scales by M/8 inside the IDCT, so a 1/8 decode does about 1/64
/// of the colour conversion and upsampling work of a full one.
enum JPEGDecoder {
    static func structure(of data: [UInt8]) throws(ImageError) -> JPEGStructure {
        let structure = data.withUnsafeBufferPointer { JPEGStructure($0) }
        switch structure.coding {
        case .lossless: throw .unsupported("lossless JPEG (SOF3) is not supported")
        case .hierarchical: throw .unsupported("hierarchical JPEG is not supported")
        default: break
        }
        guard structure.width > 0, structure.height > 0 else {
            if structure.truncated { throw .truncated("JPEG data ends before its frame header (truncated file)") }
            throw .corrupt("JPEG has no frame header (SOF) with a size")
        }
        guard structure.precision == 8 else {
            throw .unsupported("\(structure.precision)-bit JPEG is not supported (8-bit only)")
        }
        guard [1, 3, 4].contains(structure.components.count) else {
            throw .unsupported("JPEG with \(structure.components.count) colour components is not supported")
        }
        if structure.truncated || !structure.endsWithEOI {
            throw .truncated("JPEG data ends before its end-of-image marker (truncated file)")
        }
        return structure
    }

    static func readInfo(_ data: [UInt8]) throws(ImageError) -> ImageInfo {
        let s = try structure(of: data)
        return ImageInfo(format: .jpeg, width: s.width, height: s.height, hasAlpha: false, orientation: s.orientation)
    }

    /// `cuttingScans`: at 1/8, a progressive file is decoded from its DC-scale stream (same pixels,
    /// a fraction of the entropy decoding), at 1/4 without its final AC refinement scans (SSIM 0.998
    /// or better); off only to compare.
    /// `blockMeans`: also keep the photo at one pixel per block (`JPEGBlockMeans`).
    /// `window`: decode only that part of the image (`DecodedImage.window` says which it gave), or
    /// the whole image when block means are asked of a file that cannot give them with a window.
    /// `ownACDecoder`: a progressive file's AC scans are entropy-decoded by the bridge's own decoder
    /// (the same coefficients, faster); off only to compare with libjpeg's.
    static func decode(_ data: [UInt8], limits: DecodeLimits, scale hint: DecodeScaleHint, keepingCMYK: Bool,
                       blockMeans: Bool = false, cuttingScans: Bool = true, window: DecodeWindow? = nil,
                       ownACDecoder: Bool = true) throws(ImageError) -> DecodedImage {
        let s = try structure(of: data)
        try limits.check(width: s.width, height: s.height)
        let eighths = scaleEighths(for: hint)
        let dcOnly = cuttingScans && eighths == 1 ? s.dcScaleStream(data) : nil
        let cut = dcOnly ?? (cuttingScans && eighths == 2 ? s.quarterScaleStream(data) : nil)

        return try (cut ?? data).withUnsafeBufferPointer { (source) throws(ImageError) -> DecodedImage in
            guard let decoder = thumbd_jpeg_open(source.baseAddress, source.count, limits.maxDecodeBytes) else {
                throw .corrupt("JPEG: libjpeg could not start")
            }
            defer { thumbd_jpeg_close(decoder) }
            func failure() -> ImageError { error(from: decoder) }

            var header = thumbd_jpeg_header()
            guard thumbd_jpeg_read_header(decoder, &header) == 0 else { throw failure() }
            try limits.check(width: Int(header.width), height: Int(header.height))
            // Smoothing guesses coefficients not sent yet: none is missing at 1/8 (exact), and at 1/4
            // it is on, as measured, for the last bits left out.
            if dcOnly != nil { _ = thumbd_jpeg_set_block_smoothing(decoder, 0) }
            if blockMeans { _ = thumbd_jpeg_capture_block_means(decoder) }
            if !ownACDecoder { _ = thumbd_jpeg_set_own_ac_decoder(decoder, 0) }

            var width: Int32 = 0, height: Int32 = 0
            guard thumbd_jpeg_output_size(decoder, Int32(eighths), &width, &height) == 0 else { throw failure() }
            let outputBytes = Int(width) * Int(height) * 4
            let coefficients = header.progressive != 0 || s.buffersAllCoefficients ? s.coefficientBytes : 0
            try limits.check(decodeBytes: outputBytes + coefficients, what: "this \(header.width)x\(header.height) JPEG")

            var decodedWindow: DecodeWindow?
            // Block means of a window come from the entropy decoder, which sees every block only in
            // a single-scan file; any other is decoded whole, its block means caught as before.
            if let window, !blockMeans || (header.single_scan != 0 && header.is_cmyk == 0) {
                var x = Int32(window.x), columns = Int32(window.width)
                guard thumbd_jpeg_start_window(decoder, &x, Int32(window.y), &columns, Int32(window.height)) == 0 else { throw failure() }
                decodedWindow = DecodeWindow(x: Int(x), y: window.y, width: Int(columns), height: window.height)
            }
            let size = decodedWindow.map { ($0.width, $0.height) } ?? (Int(width), Int(height))
            let pixelBytes = size.0 * size.1 * 4

            // Not zero-filled first: the decoder writes every byte of every row, and on failure the
            // buffer is dropped unread. Zeroing a 4 MB buffer was 2 % of a thumbnail's time.
            var status: Int32 = 0
            let pixels = [UInt8](unsafeUninitializedCapacity: pixelBytes) { out, initialized in
                status = thumbd_jpeg_decode(decoder, out.baseAddress, size.0 * 4, out.count)
                initialized = status == 0 ? pixelBytes : 0
            }
            guard status == 0 else { throw failure() }
            // The marker walk refuses files without an EOI; this catches a scan cut short inside.
            if thumbd_jpeg_warning_state(decoder).hit_end_of_data != 0 {
                throw .truncated("JPEG data ends early (truncated file)")
            }
            let info = ImageInfo(format: .jpeg, width: Int(header.width), height: Int(header.height),
                                 hasAlpha: false, orientation: s.orientation)
            var image = PixelBuffer(width: size.0, height: size.1, hasAlpha: false, pixels: pixels)
            // Adobe writes CMYK inverted (255 means no ink); other writers store it plainly.
            let inverted = header.saw_adobe_marker != 0
            var samples = DecodedSamples.rgba
            if header.is_cmyk != 0 {
                if keepingCMYK { samples = .cmyk(inverted: inverted) } else { image.convertNaiveCMYKToRGBA(inverted: inverted) }
            }
            var decodedImage = DecodedImage(info: info, pixels: image, scale: Double(eighths) / 8, color: s.embeddedColor, samples: samples)
            if blockMeans { decodedImage.blockMeans = JPEGBlockMeans.image(from: decoder) }
            decodedImage.window = decodedWindow
            return decodedImage
        }
    }

    /// The smallest of 1/8, 2/8, 4/8 and 8/8 not below the hint. libjpeg-turbo's SIMD inverse DCTs
    /// are the 8x8, 4x4, 2x2 and DC-only ones; at 3/8, 5/8, 6/8 or 7/8 it falls back to scalar
    /// IDCTs, measured here (djpeg, real photos) slower than the next power of two although that
    /// one gives more pixels. The resize after it then has more to work from, never less.
    static func scaleEighths(for hint: DecodeScaleHint) -> Int {
        [1, 2, 4, 8].first { Double($0) / 8 >= hint.minimumScale } ?? 8
    }

    private static func error(from decoder: OpaquePointer) -> ImageError {
        let message = String(cString: thumbd_jpeg_message(decoder))
        if message.contains("Unsupported JPEG data precision") || message.contains("Unsupported JPEG process")
            || message.contains("Unsupported color conversion") {
            return .unsupported("JPEG: \(message)")
        }
        if message.contains("Premature end") { return .truncated("JPEG data ends early (truncated file)") }
        if message.contains("Insufficient memory") || message.contains("Backing store not supported") {
            return ImageError(.pixelLimitExceeded, "JPEG needs more memory to decode than the limit allows")
        }
        return .corrupt("JPEG: \(message.isEmpty ? "unknown libjpeg error" : message)")
    }

}
