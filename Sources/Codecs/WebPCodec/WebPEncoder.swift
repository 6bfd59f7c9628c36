import CWebP
import ImageCore

/// Simple-format WebP output (VP8 or VP8L, plus ALPH only when needed): never any metadata chunk.
enum WebPEncoder {
    /// libwebp's speed/size trade-off for lossy output (0 fast … 6 small). Measured on this 2-core
    /// machine, 200x200 photos at quality 82: method 2 takes 3.8 ms for 10.4 kB at 33.4 dB PSNR,
    /// method 4 7.9 ms for 10.1 kB at 33.6 dB, method 6 22 ms for 9.7 kB. 4 is libwebp's and
    /// cwebp's default; its few milliseconds are small beside decoding and resizing the source.
    static let lossyMethod: Int32 = 4
    /// libwebp's lossless preset level (0 fast … 9 small). Same photos: level 4 takes 22 ms for
    /// 59.9 kB, level 6 (cwebp's default) 89 ms for 58.8 kB, level 9 over 10 s. 4 keeps lossless
    /// thumbnails affordable for 2% more bytes.
    static let losslessLevel: Int32 = 4

    static func encode(_ image: PixelBuffer, quality: Int?) throws(ImageError) -> [UInt8] {
        if let quality, !EncodeSettings.qualityRange.contains(quality) {
            throw ImageError(.invalidRequest, "WebP quality \(quality) is outside \(EncodeSettings.qualityRange)")
        }
        guard image.width <= Int(WEBP_MAX_DIMENSION), image.height <= Int(WEBP_MAX_DIMENSION) else {
            throw ImageError(.encodeFailed, "\(image.width)x\(image.height) is larger than WebP allows (\(WEBP_MAX_DIMENSION) pixels a side)")
        }

        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else {
            throw ImageError(.encodeFailed, "libwebp encoder ABI mismatch")
        }
        if let quality {
            config.quality = Float(quality)
            config.method = lossyMethod
        } else {
            guard WebPConfigLosslessPreset(&config, losslessLevel) != 0 else {
                throw ImageError(.encodeFailed, "libwebp refused the lossless preset")
            }
            // Lossless means every pixel comes back, RGB under transparent pixels too.
            config.exact = 1
        }
        config.thread_level = 0
        guard WebPValidateConfig(&config) != 0 else {
            throw ImageError(.encodeFailed, "libwebp refused the encoder configuration")
        }

        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else {
            throw ImageError(.encodeFailed, "libwebp encoder ABI mismatch")
        }
        defer { WebPPictureFree(&picture) }
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        // Lossless works on ARGB; lossy imports straight to YUV(A) without an ARGB copy.
        picture.use_argb = quality == nil ? 1 : 0

        let stride = Int32(image.rowBytes)
        let imported = image.pixels.withUnsafeBufferPointer { pixels in
            // RGBX ignores the alpha bytes, so an opaque image gets no alpha plane at all.
            image.hasAlpha
                ? WebPPictureImportRGBA(&picture, pixels.baseAddress, stride)
                : WebPPictureImportRGBX(&picture, pixels.baseAddress, stride)
        }
        guard imported != 0 else {
            throw ImageError(.encodeFailed, "libwebp could not import the pixels (\(describe(picture.error_code)))")
        }

        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let encoded = withUnsafeMutablePointer(to: &writer) { writerPointer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            defer { picture.custom_ptr = nil }
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0, let memory = writer.mem, writer.size > 0 else {
            throw ImageError(.encodeFailed, "libwebp could not encode \(image.width)x\(image.height): \(describe(picture.error_code))")
        }
        return [UInt8](UnsafeBufferPointer(start: memory, count: writer.size))
    }

    private static func describe(_ code: WebPEncodingError) -> String {
        switch code {
        case VP8_ENC_OK: "no error reported"
        case VP8_ENC_ERROR_OUT_OF_MEMORY: "out of memory"
        case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: "out of memory for the bitstream"
        case VP8_ENC_ERROR_NULL_PARAMETER: "missing parameter"
        case VP8_ENC_ERROR_INVALID_CONFIGURATION: "invalid configuration"
        case VP8_ENC_ERROR_BAD_DIMENSION: "bad dimensions"
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW: "first partition over 512 KiB (try a lower quality)"
        case VP8_ENC_ERROR_PARTITION_OVERFLOW: "partition over 16 MiB"
        case VP8_ENC_ERROR_BAD_WRITE: "write failed"
        case VP8_ENC_ERROR_FILE_TOO_BIG: "file over 4 GiB"
        case VP8_ENC_ERROR_USER_ABORT: "aborted"
        default: "libwebp error \(code.rawValue)"
        }
    }
}
