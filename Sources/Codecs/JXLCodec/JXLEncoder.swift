import CJXL
import ImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lossy (VarDCT, XYB) JPEG XL output: a bare codestream, 8-bit sRGB, an alpha channel only when
/// some pixel is not opaque, no container and no metadata. Single-threaded, as the decoder.
enum JXLEncoder {
    static let effortRange = 1...9
    /// JPEG XL level 5 (what every decoder must take): 262,144 pixels a side, 2^28 pixels in all.
    static let maxSide = 1 << 18
    static let maxPixels = 1 << 28
    /// The first output buffer; thumbnails at thumbd's qualities take 5 to 60 kB.
    static let initialOutputBytes = 64 << 10

    /// thumbd's JPEG-like quality as a butteraugli distance: cjxl 0.7's own mapping for its
    /// `--quality` ("positive quality values roughly match libjpeg quality"): 0.1 + (100 - q) x 0.09
    /// from 30 up, 6.4 + 2.5^((30 - q) / 5) / 6.25 below, capped at libjxl's largest distance, 25
    /// (cjxl itself fails below quality 5). Checked against cjxl 0.7: `-q 20`, `-q 50`, `-q 82` and
    /// `-q 95` write the same bytes as `-d` with these distances. Quality 82 is distance 1.72, 90 is
    /// 1.0 (libjxl's "visually lossless"), 50 is 4.6, 20 is 7.4. cjxl turns 100 into lossless; here
    /// 100 stays lossy, at distance 0.1, the curve's end.
    ///
    /// Measured on 25 photos' 300x400 thumbnails (thumbd's SSIM, luma): the distance at which JPEG
    /// XL matches Pillow's JPEG at quality 60, 82 and 92 has medians of 3.5, 1.88 and 0.98; this
    /// mapping gives 3.7, 1.72 and 0.82, as faithful or a little more, as thumbd's qualities mean.
    static func distance(quality: Int) -> Float {
        let q = Double(min(100, max(1, quality)))
        let distance = q >= 30 ? 0.1 + (100 - q) * 0.09 : 6.4 + pow(2.5, (30 - q) / 5) / 6.25
        return Float(min(25, distance))
    }

    static func encode(_ image: PixelBuffer, quality: Int, effort: Int) throws(ImageError) -> [UInt8] {
        guard EncodeSettings.qualityRange.contains(quality) else {
            throw ImageError(.invalidRequest, "JPEG XL quality \(quality) is outside \(EncodeSettings.qualityRange)")
        }
        return try encode(image, distance: distance(quality: quality), effort: effort)
    }

    /// The encode at a butteraugli distance (0.1 ... 25, libjxl's lossy range) rather than a quality.
    static func encode(_ image: PixelBuffer, distance: Float, effort: Int) throws(ImageError) -> [UInt8] {
        guard (0.1...25).contains(distance) else {
            throw ImageError(.invalidRequest, "JPEG XL distance \(distance) is outside 0.1...25")
        }
        guard effortRange.contains(effort) else {
            throw ImageError(.invalidRequest, "JPEG XL effort \(effort) is outside \(effortRange)")
        }
        guard image.width <= maxSide, image.height <= maxSide, image.width * image.height <= maxPixels else {
            throw ImageError(.encodeFailed, "\(image.width)x\(image.height) is larger than JPEG XL level 5 allows")
        }
        let what = "\(image.width)x\(image.height)"
        guard let encoder = JxlEncoderCreate(nil) else {
            throw ImageError(.encodeFailed, "libjxl could not allocate an encoder")
        }
        defer { JxlEncoderDestroy(encoder) }

        let writesAlpha = image.hasAlpha && !isOpaque(image)
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(image.width)
        info.ysize = UInt32(image.height)
        info.bits_per_sample = 8
        info.num_color_channels = 3
        info.alpha_bits = writesAlpha ? 8 : 0
        info.num_extra_channels = writesAlpha ? 1 : 0
        // XYB: the lossy mode libjxl tunes its distances for.
        info.uses_original_profile = JXL_FALSE
        var sRGB = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&sRGB, JXL_FALSE)
        try check(encoder, JxlEncoderSetBasicInfo(encoder, &info), "basic info for \(what)")
        try check(encoder, JxlEncoderSetColorEncoding(encoder, &sRGB), "sRGB colour encoding")

        guard let settings = JxlEncoderFrameSettingsCreate(encoder, nil) else {
            throw ImageError(.encodeFailed, "libjxl could not allocate frame settings")
        }
        try check(encoder, JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort)), "effort \(effort)")
        try check(encoder, JxlEncoderSetFrameDistance(settings, distance), "distance \(distance)")

        // An opaque image is handed over as RGB: libjxl takes no alpha it was not told of.
        let channels = writesAlpha ? 4 : 3
        var format = JxlPixelFormat(num_channels: UInt32(channels), data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let samples = writesAlpha ? image.pixels : rgb(image)
        let added = samples.withUnsafeBytes { bytes in
            JxlEncoderAddImageFrame(settings, &format, bytes.baseAddress, bytes.count)
        }
        try check(encoder, added, "the \(what) frame")
        JxlEncoderCloseInput(encoder)
        return try output(encoder, what: what, rawBytes: samples.count)
    }

    /// JxlEncoderProcessOutput until it is done, doubling the buffer whenever libjxl asks for more.
    /// A lossy codestream is far smaller than its samples: past twice their size, something is wrong.
    private static func output(_ encoder: OpaquePointer, what: String, rawBytes: Int) throws(ImageError) -> [UInt8] {
        let maxBytes = 2 * rawBytes + initialOutputBytes
        var output = [UInt8](repeating: 0, count: initialOutputBytes)
        var written = 0
        while true {
            let status = output.withUnsafeMutableBufferPointer { buffer in
                var next = buffer.baseAddress.map { $0 + written }
                var available = buffer.count - written
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                written = buffer.count - available
                return status
            }
            switch status {
            case JXL_ENC_SUCCESS:
                output.removeSubrange(written...)
                return output
            case JXL_ENC_NEED_MORE_OUTPUT:
                guard output.count < maxBytes else {
                    throw ImageError(.encodeFailed, "libjxl wrote over \(maxBytes) bytes for \(what)")
                }
                output.append(contentsOf: repeatElement(0, count: output.count))
            default:
                try check(encoder, status, "writing \(what)")
            }
        }
    }

    private static func check(_ encoder: OpaquePointer, _ status: JxlEncoderStatus, _ what: String) throws(ImageError) {
        guard status != JXL_ENC_SUCCESS else { return }
        let error = JxlEncoderGetError(encoder)
        let reason: String
        switch error {
        case JXL_ENC_ERR_OOM: reason = "out of memory"
        case JXL_ENC_ERR_BAD_INPUT: reason = "bad input"
        case JXL_ENC_ERR_NOT_SUPPORTED: reason = "not supported"
        case JXL_ENC_ERR_API_USAGE: reason = "API misuse"
        default: reason = "error \(error.rawValue)"
        }
        throw ImageError(.encodeFailed, "libjxl refused \(what): \(reason)")
    }

    private static func isOpaque(_ image: PixelBuffer) -> Bool {
        image.pixels.withUnsafeBufferPointer { pixels in
            var all: UInt8 = 0xFF
            for index in stride(from: 3, to: pixels.count, by: 4) { all &= pixels[index] }
            return all == 0xFF
        }
    }

    /// The RGB bytes of an opaque image, alpha dropped.
    private static func rgb(_ image: PixelBuffer) -> [UInt8] {
        let count = image.width * image.height
        return [UInt8](unsafeUninitializedCapacity: count * 3) { out, initialized in
            image.pixels.withUnsafeBufferPointer { rgba in
                for i in 0..<count {
                    out[3 * i] = rgba[4 * i]
                    out[3 * i + 1] = rgba[4 * i + 1]
                    out[3 * i + 2] = rgba[4 * i + 2]
                }
            }
            initialized = count * 3
        }
    }
}
